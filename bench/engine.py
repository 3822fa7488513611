"""Engine decision time per caller turn, over every scenario, N times.

    python bench/engine.py [--runs N] [SCENARIO_DIR]

Times `Engine.turn` (understanding, rules, tools against an in-memory SQLite
store, replies) with and without the call record write, which is what the
engine adds to every spoken turn. Goal: deciding p95 under 1 ms.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from appliance.engine.flow import load_flow  # noqa: E402
from appliance.understanding.name_list import load_name_list  # noqa: E402
from appliance.simulate.runner import play_scenario, scenario_files  # noqa: E402
from appliance.simulate.scenario import InvalidScenario, load_scenario  # noqa: E402
from results_file import write_section  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", nargs="?", default=str(ROOT / "tests" / "scenarios"))
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()

    flow = load_flow(ROOT / "config" / "flows" / "clinic.yaml")
    load_name_list()   # as the phone service does at start-up: the first new patient's turn is not a cold read
    scenarios = []
    for path in scenario_files([args.target]):
        try:
            scenarios.append(load_scenario(path))
        except InvalidScenario:
            continue
    per_turn: list[float] = []      # the whole turn, call record write included
    deciding: list[float] = []      # the same turn without the call record write (I/O)

    def timed(engine, line):
        started = time.perf_counter()
        result = engine.turn(line)
        total = (time.perf_counter() - started) * 1000
        per_turn.append(total)
        deciding.append(total - engine.record_ms)
        return result

    # one untimed pass: per-clinic caches (catalogue matchers) are built once per process in service
    for scenario, clinic in scenarios:
        play_scenario(scenario, clinic, flow)
    wall = time.perf_counter()
    for _ in range(args.runs):
        for scenario, clinic in scenarios:
            play_scenario(scenario, clinic, flow, player=timed)
    wall = time.perf_counter() - wall

    p50, p95, p99 = (percentile(deciding, q) for q in (50, 95, 99))
    t50, t95, t99 = (percentile(per_turn, q) for q in (50, 95, 99))
    lines = [
        "## Engine decision time per caller turn (`bench/engine.py`)",
        "",
        f"{len(scenarios)} scenarios x {args.runs} runs = {len(per_turn)} caller turns; "
        f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores.",
        "Deciding: understanding, rules, tools on an in-memory SQLite store and the reply. "
        "With record: the same plus committing the turn's call record (transitions, tool calls, turn row) to that store.",
        "",
        "| measure | deciding (ms) | with record (ms) |",
        "|---|---|---|",
        f"| p50 | {p50:.3f} | {t50:.3f} |",
        f"| p95 | {p95:.3f} | {t95:.3f} |",
        f"| p99 | {p99:.3f} | {t99:.3f} |",
        f"| mean | {statistics.fmean(deciding):.3f} | {statistics.fmean(per_turn):.3f} |",
        f"| max | {max(deciding):.3f} | {max(per_turn):.3f} |",
        "",
        f"Goal: p95 under 1 ms: {'met' if p95 < 1.0 else 'NOT met'}. Whole run: {wall:.1f} s.",
    ]
    body = "\n".join(lines)
    print(body)
    print(f"\nwritten to {write_section('engine', body)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
