"""Time `understand()` on every caller line of the scenarios.

    python bench/understanding.py [--runs N] [--top K] [--lists] [SCENARIO_DIR]

Each caller line (`caller.opening`, every `answers` value or list item,
`interjections[].say`, `default`) is heard in the context it would be heard
in: the answer's key as `waiting_for`, `intent` for the opening, the
interjections and the default line. The context carries that scenario's
clinic catalog, region and `now`. With `--lists`, lines heard while choosing
a slot get two offered slots and lines heard while choosing a booking get the
scenario's appointments, as the engine would pass them.

Prints p50/p95/p99/max over every timed call, the same over each line's
median (steadier on a busy machine), and the slowest lines. Nothing is
written anywhere.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from appliance.clinic import load_clinic_file  # noqa: E402
from appliance.domain import Slot  # noqa: E402
from appliance.understanding import ListenContext, understand  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def caller_lines(caller: dict) -> list[tuple[str, str]]:
    """(waiting_for, line) for every line the caller of one scenario may say."""
    lines: list[tuple[str, str]] = []
    if caller.get("opening"):
        lines.append(("intent", str(caller["opening"])))
    for key, value in (caller.get("answers") or {}).items():
        for item in value if isinstance(value, list) else [value]:
            if item is not None and str(item).strip():
                lines.append((str(key), str(item)))
    for item in caller.get("interjections") or []:
        if isinstance(item, dict) and item.get("say"):
            lines.append(("intent", str(item["say"])))
    if caller.get("default"):
        lines.append(("intent", str(caller["default"])))
    return lines


def _offered(catalog, now: datetime) -> tuple[Slot, ...]:
    """Two slots the next day, as an agent would read them out."""
    if not (catalog.services and catalog.practitioners and catalog.locations):
        return ()
    day = (now + timedelta(days=1)).replace(hour=10, minute=0, second=0, microsecond=0)
    service, practitioner, location = catalog.services[0], catalog.practitioners[0], catalog.locations[0]
    return tuple(Slot(start, service.id, practitioner.id, location.id, service.minutes)
                 for start in (day, day.replace(hour=14, minute=30)))


def load_cases(directory: Path, lists: bool) -> list[tuple[str, str, ListenContext]]:
    cases: list[tuple[str, str, ListenContext]] = []
    for path in sorted(directory.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        caller = data.get("caller") or {}
        if not caller or "clinic" not in data:
            continue
        now = datetime.fromisoformat(str(data["now"]))
        clinic = load_clinic_file(path, today=now.date())
        catalog = clinic.catalog()
        region = clinic.profile().region
        bookings = clinic.appointment_records() if lists else ()
        offered = _offered(catalog, now) if lists else ()
        for waiting, line in caller_lines(caller):
            context = ListenContext(
                waiting_for=waiting, now=now, catalog=catalog, region=region,
                offered_slots=offered if waiting == "slot_choice" else (),
                bookings=bookings if waiting == "booking_choice" else (),
            )
            cases.append((path.stem, line, context))
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", nargs="?", default=str(ROOT / "tests" / "scenarios"))
    parser.add_argument("--runs", type=int, default=200, help="timed passes over every line")
    parser.add_argument("--top", type=int, default=15, help="slowest lines to list")
    parser.add_argument("--lists", action="store_true", help="offer slots and bookings where the engine would")
    args = parser.parse_args()

    cases = load_cases(Path(args.target), args.lists)
    for _ in range(3):  # warm up: first calls build catalog indexes and regex caches
        for _name, line, context in cases:
            understand(line, context)

    per_case: list[list[float]] = [[] for _ in cases]
    clock = time.perf_counter_ns
    gc.collect()
    gc.disable()  # a collection landing inside one call says nothing about that call
    try:
        wall = time.perf_counter()
        for _ in range(args.runs):
            for k, (_name, line, context) in enumerate(cases):
                started = clock()
                understand(line, context)
                per_case[k].append((clock() - started) / 1e6)
            gc.collect()
            understand(cases[0][1], cases[0][2])  # untimed: the collection left the caches cold for the next call
        wall = time.perf_counter() - wall
    finally:
        gc.enable()

    every = [t for times in per_case for t in times]
    medians = [statistics.median(times) for times in per_case]
    print(f"{len(cases)} caller lines x {args.runs} runs = {len(every)} calls"
          f"{' (slots and bookings offered)' if args.lists else ''}; "
          f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores; {wall:.1f} s")
    print(f"{'':>16} {'p50':>7} {'p95':>7} {'p99':>7} {'max':>7} {'mean':>7}  (ms)")
    for label, values in (("every call", every), ("median per line", medians)):
        p50, p95, p99 = (percentile(values, q) for q in (50, 95, 99))
        print(f"{label:>16} {p50:7.3f} {p95:7.3f} {p99:7.3f} {max(values):7.3f} {statistics.fmean(values):7.3f}")
    print(f"\nslowest {args.top} lines (median ms, waiting_for, scenario, line):")
    order = sorted(range(len(cases)), key=lambda k: -medians[k])
    for k in order[: args.top]:
        name, line, context = cases[k]
        print(f"  {medians[k]:6.3f}  {context.waiting_for:<16} {name[:34]:<34} {line!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
