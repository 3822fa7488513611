"""Turn latency as the monitor shows it: the wait itself is read in `call_review.turn_wait` (the review flags
read it too); here, how it is written and summed up."""

from __future__ import annotations

from ..call_review.turn_wait import DURATIONS, turn_latency_ms  # noqa: F401  (the monitor's name for it)


def format_ms(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 1000:
        return f"{value / 1000:.1f} s"
    if value >= 10:
        return f"{value:.0f} ms"
    return f"{value:.1f} ms"


def percentile(values: list[float], fraction: float) -> float | None:
    """Nearest-rank percentile (p95: fraction 0.95)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-int(fraction * 1000) * len(ordered) // 1000))   # ceil(fraction * n)
    return ordered[min(rank, len(ordered)) - 1]
