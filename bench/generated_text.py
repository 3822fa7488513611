"""How the appliance does with callers nobody scripted: generated scenarios played in text.

    .venv/bin/python bench/generated_text.py [--out var/generated] [--count 320] [--seed 2026]

Generates the scenarios (bench/generate_scenarios.py), plays both splits with
`appliance simulate --json`, and writes the `generated-text` section of
bench/RESULTS.md: pass rates per split side by side, per family and per clinic,
and for dev each failure with the caller's words where it went wrong and what the
agent did. The test split is for measuring only: its failures are counted, never listed.
The JSON lines are kept in var/bench/generated-{dev,test}.jsonl.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generator.clinics import clinic_plans  # noqa: E402
from generator.write import write  # noqa: E402
from results_file import write_section  # noqa: E402

SPLITS = ("dev", "test")


def play(folder: Path, split: str) -> tuple[list[dict], float]:
    started = time.perf_counter()
    out = subprocess.run([str(ROOT / ".venv" / "bin" / "appliance"), "simulate", "--json", str(folder)],
                         cwd=ROOT, capture_output=True, text=True)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    if not rows:
        raise SystemExit(f"appliance simulate gave no results for {folder}:\n{out.stderr[-2000:]}")
    kept = ROOT / "var" / "bench" / f"generated-{split}.jsonl"
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text(out.stdout, encoding="utf-8")
    return rows, time.perf_counter() - started


def where_it_went_wrong(row: dict, most: int = 3) -> str:
    """The caller's words after which the agent asked the same thing again, and its reply (the first
    `most` of them); without any, the caller's last words and the agent's last reply."""
    turns = row["turns"]
    asked_again = [f"at {before['waiting_for']}: \"{after['caller']}\" -> \"{_short(after['agent'])}\""
                   for before, after in zip(turns[1:], turns[2:])
                   if before["waiting_for"] not in ("none", None) and after["waiting_for"] == before["waiting_for"]]
    if asked_again:
        return "; ".join(asked_again[:most])
    last = turns[-1] if turns else {"caller": "", "agent": ""}
    return f"ended {row.get('outcome')}: \"{last['caller']}\" -> \"{_short(last['agent'])}\""


def _short(text: str, limit: int = 110) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _rate(passed: int, total: int) -> str:
    return f"{passed}/{total} ({passed / total:.0%})" if total else "-"


def _commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    # the benchmarks' own writes to RESULTS.md are not a change to the code measured
    dirty = " with uncommitted changes" if git("status", "--porcelain", "--untracked-files=no", "--", ".",
                                               ":!bench/RESULTS.md") else ""
    return f"{git('rev-parse', '--short', 'HEAD')}{dirty}"


def _machine() -> str:
    model = ""
    try:
        model = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{platform.node()}, {model or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def body(results: dict[str, list[dict]], manifest: dict[str, dict], *, seed: int, gen_seconds: float,
         play_seconds: dict[str, float]) -> str:
    regions = {plan.key: f"{plan.name} ({plan.region})" for plan in clinic_plans()}
    by = {"family": defaultdict(lambda: {s: [0, 0] for s in SPLITS}),
          "clinic": defaultdict(lambda: {s: [0, 0] for s in SPLITS})}
    for split, rows in results.items():
        for row in rows:
            info = manifest[Path(row["file"]).name]
            for key in ("family", "clinic"):
                cell = by[key][info[key]][split]
                cell[0] += row["passed"]
                cell[1] += 1
    total = {s: (sum(r["passed"] for r in results[s]), len(results[s])) for s in SPLITS}
    lines = [
        "## Generated callers in text (`bench/generated_text.py`)",
        "",
        f"{sum(n for _, n in total.values())} scenarios from `bench/generate_scenarios.py --seed {seed}` "
        f"(generated in {gen_seconds:.1f} s), played with `appliance simulate --json` "
        f"(dev {play_seconds['dev']:.0f} s, test {play_seconds['test']:.0f} s). "
        f"Commit {_commit()}; {_machine()}; {datetime.now():%Y-%m-%d}.",
        "The test split is for measuring only; fix the product from dev's failures.",
        "",
        "| | dev | test |",
        "|---|---|---|",
        f"| all | {_rate(*total['dev'])} | {_rate(*total['test'])} |",
        "",
        "| family | dev | test |",
        "|---|---|---|",
    ]
    lines += [f"| {name} | {_rate(*cells['dev'])} | {_rate(*cells['test'])} |" for name, cells in sorted(by["family"].items())]
    lines += ["", "| clinic | dev | test |", "|---|---|---|"]
    lines += [f"| {regions.get(name, name)} | {_rate(*cells['dev'])} | {_rate(*cells['test'])} |"
              for name, cells in sorted(by["clinic"].items())]
    lines += ["", "Dev failures, by family (the caller's words the agent asked again after -> its reply; then the checks that failed):", ""]
    failing = defaultdict(list)
    for row in results["dev"]:
        if not row["passed"]:
            failing[manifest[Path(row["file"]).name]["family"]].append(row)
    for family in sorted(failing):
        lines.append(f"- **{family}** ({len(failing[family])})")
        for row in failing[family]:
            checks = "; ".join(row["failures"][:2]) or "?"
            lines.append(f"  - `{Path(row['file']).name}` {where_it_went_wrong(row)}. Failed: {checks}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "generated")
    parser.add_argument("--count", type=int, default=320)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    started = time.perf_counter()
    write(args.out, args.seed, args.count)
    gen_seconds = time.perf_counter() - started
    manifest = {Path(entry["file"]).name: entry
                for entry in json.loads((args.out / "manifest.json").read_text(encoding="utf-8"))["scenarios"]}
    results, seconds = {}, {}
    for split in SPLITS:
        results[split], seconds[split] = play(args.out / split, split)
    text = body(results, manifest, seed=args.seed, gen_seconds=gen_seconds, play_seconds=seconds)
    print(text)
    print(f"\nwritten to {write_section('generated-text', text)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
