"""Writing one benchmark's section of bench/RESULTS.md without touching the others."""

from __future__ import annotations

import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
HEADER = "# Benchmark results\n\nEach section is rewritten by the benchmark named in it; figures are from the machine it last ran on.\n"


def write_section(name: str, body: str) -> Path:
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else HEADER
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    section = f"{start}\n{body.rstrip()}\n{end}"
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip() + "\n\n" + section + "\n"
    RESULTS.write_text(text, encoding="utf-8")
    return RESULTS


def publish(name: str, body: str, *, write: bool = True) -> None:
    """Print a benchmark's section and, unless told not to (`--no-write`), write it into RESULTS.md."""
    print(body)
    if write:
        write_section(name, body)
