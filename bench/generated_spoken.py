"""How the appliance hears callers nobody scripted: generated scenarios spoken in six voices over four lines.

    .venv/bin/python bench/generated_spoken.py --split test [--caller-voice V] [--line L] [--sample N]
    .venv/bin/python bench/generated_spoken.py --report          (rewrite the section from the kept runs)

One run speaks one split's scenarios (bench/generate_scenarios.py writes them to
var/generated/) with `appliance simulate --spoken --fast --json`, a caller voice and
a line, and keeps the JSON lines in var/bench/generated-spoken/. `--sample N` takes
N scenarios spread evenly over the families (the same N every time), so that a voice
or a line costs minutes, not an hour. Every run kept goes into the
`generated-spoken` section of bench/RESULTS.md:

- the pass rate per split, voice and line (of the scenarios that pass in text);
- accuracy per question kind: each spoken turn is compared with the same turn played
  in text; a turn is right when the agent's next state, question and reply are the
  same as in text. A call's turns are counted up to its first difference, which is
  counted against the question the caller was answering;
- the caller word error rate, overall and per question kind;
- existing patients identified: of the calls whose text run matched a patient on the
  books by name and date of birth, how many spoken runs matched the same one, and how
  many matched someone else;
- the families that fail. Dev failures are listed with what was said and heard;
  the test split is for measuring only, so its failures are counted, never listed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generated_text import _commit, _machine, _rate  # noqa: E402
from results_file import write_section  # noqa: E402

from appliance.simulate.caller_choices import DEFAULT_LINE, DEFAULT_VOICE, LINES, VOICES  # noqa: E402
from appliance.simulate.word_error import WordErrors, word_errors  # noqa: E402

GENERATED = ROOT / "var" / "generated"
KEPT = ROOT / "var" / "bench" / "generated-spoken"
APPLIANCE = str(ROOT / ".venv" / "bin" / "appliance")
SPLITS = ("dev", "test")

# A question's kind is what its declaration expects (config/flows/questions.yaml); the table's names.
KIND_OF_EXPECTED = {"confirmation": "yes/no", "name": "name", "spelling": "name", "dob": "date of birth",
                    "phone": "phone", "window": "day and time", "service": "service", "location": "location",
                    "slot": "slot pick", "task": "what they want", "more": "what they want",
                    "booking": "which booking", "practitioner": "practitioner", "message": "message"}
KIND_ORDER = ["yes/no", "name", "date of birth", "phone", "day and time", "service", "location", "slot pick",
              "what they want", "which booking", "practitioner", "message"]


def question_kinds() -> dict[str, str]:
    import yaml
    questions = yaml.safe_load((ROOT / "config" / "flows" / "questions.yaml").read_text(encoding="utf-8"))
    questions = questions.get("questions", questions)
    return {name: KIND_OF_EXPECTED.get((spec.get("expects") or ["message"])[0], "message")
            for name, spec in questions.items() if isinstance(spec, dict)}


def manifest() -> dict[str, dict]:
    path = GENERATED / "manifest.json"
    if not path.exists():
        raise SystemExit(f"{path} is missing: run .venv/bin/python bench/generate_scenarios.py first")
    return {Path(e["file"]).name: e for e in json.loads(path.read_text(encoding="utf-8"))["scenarios"]}


def sample(split: str, count: int | None, known: dict[str, dict]) -> list[Path]:
    """`count` of the split's files, one family after another in turn, so every family is in even a small
    sample; the same files every time for the same count."""
    files = sorted((GENERATED / split).glob("*.yaml"))
    if not count or count >= len(files):
        return files
    by_family: dict[str, list[Path]] = defaultdict(list)
    for path in files:
        by_family[known[path.name]["family"]].append(path)
    chosen: list[Path] = []
    while len(chosen) < count:
        for family in sorted(by_family):
            if by_family[family] and len(chosen) < count:
                chosen.append(by_family[family].pop(0))
    return sorted(chosen)


def simulate(args: list[str]) -> list[dict]:
    out = subprocess.run([APPLIANCE, "simulate", "--json", *args], cwd=ROOT, capture_output=True, text=True)
    if out.returncode == 2:
        raise SystemExit(out.stderr.strip())
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    if not rows:
        raise SystemExit(f"appliance simulate gave no results:\n{out.stderr[-2000:]}")
    return rows


def run(split: str, voice: str, line: str, count: int | None) -> Path:
    files = [str(p) for p in sample(split, count, manifest())]
    started = time.perf_counter()
    text = {Path(r["file"]).name: r for r in simulate(files)}
    spoken = simulate(["--spoken", "--fast", "--caller-voice", voice, "--line", line, *files])
    seconds = time.perf_counter() - started
    KEPT.mkdir(parents=True, exist_ok=True)
    kept = KEPT / f"{split}-{voice}-{line}.jsonl"
    with kept.open("w", encoding="utf-8") as out:
        for row in spoken:
            row["text_turns"] = text[Path(row["file"]).name]["turns"]
            row["text_identified"] = text[Path(row["file"]).name].get("identified")
            row.update({"split": split, "seconds": round(seconds / len(spoken), 1), "commit": _commit()})
            out.write(json.dumps(row, default=str) + "\n")
    return kept


def turn_by_turn(row: dict, kinds: dict[str, str]):
    """(kind, said, heard, right) for each turn the spoken call shared with the text call, up to and
    including the first that went differently."""
    text, spoken = row["text_turns"], row["turns"]
    for i in range(1, min(len(text), len(spoken))):
        question = text[i - 1].get("waiting_for")
        kind = kinds.get(question or "", None)
        same = all(text[i].get(k) == spoken[i].get(k) for k in ("state", "waiting_for", "agent"))
        if kind:
            yield kind, text[i].get("caller", ""), spoken[i].get("caller", ""), same
        if not same:
            return


def body(rows: list[dict]) -> str:
    kinds = question_kinds()
    known = manifest()
    runs: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for row in rows:
        runs[(row["split"], row["caller_voice"], row["line"])].append(row)

    def order(key):
        split, voice, line = key
        return (voice != DEFAULT_VOICE, VOICES.index(voice), LINES.index(line), SPLITS.index(split))

    commits = sorted({r.get("commit", "?") for r in rows})
    minutes = sum(r.get("seconds", 0) for r in rows) / 60
    lines = [
        "## Generated callers, spoken (`bench/generated_spoken.py`)",
        "",
        f"Scenarios from `bench/generate_scenarios.py --seed 2026`, spoken with `appliance simulate --spoken --fast` "
        f"(default models: Whisper base int8, beam 1) by each caller voice over each line; samples spread evenly "
        f"over the families (`--sample`). Commit {', '.join(commits)}; {_machine()}; {datetime.now():%Y-%m-%d}; "
        f"{minutes:.0f} min of runs. The test split is for measuring only.",
        "",
        "Pass rate, of the scenarios that pass in text:",
        "",
        "| voice | line | dev | test | caller word error rate | commit (dev; test) |",
        "|---|---|---|---|---|---|",
    ]
    pairs = sorted({(v, l) for (_, v, l) in runs}, key=lambda p: (p[0] != DEFAULT_VOICE, VOICES.index(p[0]),
                                                                   LINES.index(p[1])))
    for voice, line in pairs:
        cells, errors = [], WordErrors(0, 0)
        for split in SPLITS:
            got = [r for r in runs.get((split, voice, line), []) if r.get("passes_in_text")]
            cells.append(_rate(sum(r["passed"] for r in got), len(got)))
            errors = errors + WordErrors(sum(r.get("word_errors", 0) for r in runs.get((split, voice, line), [])),
                                         sum(r.get("words", 0) for r in runs.get((split, voice, line), [])))
        made = "; ".join(",".join(sorted({r.get("commit", "?") for r in runs.get((split, voice, line), [])})) or "-"
                         for split in SPLITS)
        lines.append(f"| {voice} | {line} | {cells[0]} | {cells[1]} | "
                     + (f"{errors.rate:.1%} of {errors.words} words |" if errors.words else "- |") + f" {made} |")

    per_kind: dict[str, dict[str, list]] = defaultdict(lambda: {s: [0, 0, WordErrors(0, 0)] for s in SPLITS})
    for row in rows:
        for kind, said, heard, right in turn_by_turn(row, kinds):
            cell = per_kind[kind][row["split"]]
            cell[0] += right
            cell[1] += 1
            cell[2] = cell[2] + word_errors(said, heard)
    lines += ["", "Accuracy per question kind, all voices and lines together (a turn is right when the agent "
              "went on exactly as in text; word error rate of the answers to that question):", "",
              "| question kind | dev right | test right | dev WER | test WER |", "|---|---|---|---|---|"]
    for kind in [k for k in KIND_ORDER if k in per_kind]:
        d, t = per_kind[kind]["dev"], per_kind[kind]["test"]
        lines.append(f"| {kind} | {_rate(d[0], d[1])} | {_rate(t[0], t[1])} | "
                     f"{_wer(d[2])} | {_wer(t[2])} |")

    lines += identification(runs, pairs)

    families: dict[str, dict[str, list[int]]] = defaultdict(lambda: {s: [0, 0] for s in SPLITS})
    for row in rows:
        if row.get("passes_in_text"):
            cell = families[known.get(Path(row["file"]).name, {}).get("family", "?")][row["split"]]
            cell[0] += row["passed"]
            cell[1] += 1
    lines += ["", "Per family, all voices and lines together:", "", "| family | dev | test |", "|---|---|---|"]
    lines += [f"| {name} | {_rate(*c['dev'])} | {_rate(*c['test'])} |" for name, c in sorted(families.items())]

    lines += ["", "Dev failures (voice, line: the first turn that went differently, said -> heard, at which "
              "question; then the check that failed):", ""]
    for key in sorted(runs, key=order):
        split, voice, line = key
        if split != "dev":
            continue
        for row in runs[key]:
            if row["passed"] or not row.get("passes_in_text"):
                continue
            steps = list(turn_by_turn(row, kinds))
            where = next((f"at {kind}: \"{said}\" -> \"{heard}\"" for kind, said, heard, right in steps if not right),
                         "every turn as in text")
            lines.append(f"- {voice}, {line}, `{Path(row['file']).name}`: {where}. "
                         f"{row['failures'][0] if row['failures'] else ''}")
    return "\n".join(lines)


def identification(runs: dict[tuple[str, str, str], list[dict]], pairs: list[tuple[str, str]]) -> list[str]:
    """Existing patients identified by name and date of birth: of the calls whose text run matched a
    patient on the books, how many spoken runs matched the same one, another one, or none. A run kept
    before the field existed has no `text_identified` and is left out."""
    counted = []
    for voice, line in pairs:
        cells = []
        for split in SPLITS:
            calls = [r for r in runs.get((split, voice, line), []) if r.get("text_identified")]
            right = sum(r.get("identified") == r["text_identified"] for r in calls)
            wrong = sum(r.get("identified") not in (None, r["text_identified"]) for r in calls)
            cells.append(f"{_rate(right, len(calls))}, {wrong} as someone else" if calls else "-")
        if cells != ["-", "-"]:
            counted.append(f"| {voice} | {line} | {cells[0]} | {cells[1]} |")
    if not counted:
        return []
    return ["", "Existing patients identified by name and date of birth (of the calls whose text run matched "
            "a patient on the books: the spoken run matched the same patient; matched another):", "",
            "| voice | line | dev | test |", "|---|---|---|---|", *counted]


def _wer(errors: WordErrors) -> str:
    return f"{errors.rate:.0%}" if errors.words else "-"


def report() -> str:
    rows = [json.loads(line) for path in sorted(KEPT.glob("*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("{")]
    if not rows:
        raise SystemExit(f"no runs kept in {KEPT}: run with --split first")
    text = body(rows)
    write_section("generated-spoken", text)
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=SPLITS)
    parser.add_argument("--caller-voice", dest="voice", choices=VOICES, default=DEFAULT_VOICE)
    parser.add_argument("--line", choices=LINES, default=DEFAULT_LINE)
    parser.add_argument("--sample", type=int, help="this many scenarios, spread over the families")
    parser.add_argument("--report", action="store_true", help="only rewrite the section from the kept runs")
    args = parser.parse_args()
    if not args.report:
        if not args.split:
            parser.error("--split is needed to run (or --report)")
        print(f"kept {run(args.split, args.voice, args.line, args.sample)}", file=sys.stderr)
    print(report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
