"""How `appliance models list` and `appliance models verify` print what they found."""

from __future__ import annotations

from .checksums import size_text
from .inventory import ModelStatus, VerifyResult


def inventory_table(rows: list[ModelStatus]) -> list[str]:
    """One line per model; `*` marks the models the settings use."""
    header = ("", "NAME", "PART", "KIND", "PRESENT", "SIZE", "CHECKSUM", "LICENCE")
    table = [header]
    for row in rows:
        table.append(("*" if row.selected else "", row.name, row.part, row.kind, "yes" if row.present else "no",
                      size_text(row.size_on_disk) if row.size_on_disk else "-", row.checksum, row.licence))
    widths = [max(len(line[i]) for line in table) for i in range(len(header) - 1)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line[:-1], widths)) + "  " + line[-1]
             for line in table]
    lines.append("* used by the current settings; `appliance models verify` checks every sha256")
    return lines


def verify_lines(results: list[VerifyResult]) -> list[str]:
    lines = []
    for result in results:
        size = size_text(sum(check.size for check in result.files))
        built = sum(check.role == "assembled" for check in result.files)
        files = f"{len(result.files)} file(s)" + (f" ({built} assembled from the others)" if built else "")
        if result.state == "ok":
            lines.append(f"OK      {result.name} ({result.part}): {files}, {size}, sha256 match")
        elif result.state == "missing" and not result.required:
            lines.append(f"absent  {result.name} ({result.part}): not installed (not needed by the current settings)")
        else:
            lines.append(f"FAILED  {result.name} ({result.part}): {result.state}")
            lines += [f"        {problem}" for problem in result.problems]
            lines.append("        fix: run `appliance models install` (it reinstalls or rebuilds damaged files)")
    return lines
