"""The monitor's widgets, one per file."""
