"""How many scenario files pass when spoken: the voice issue's 90% goal.

    python bench/spoken_scenarios.py [--mode fast|realtime|sip] [--caller-voice V] [--line L]
                                     [--from RUN.jsonl] [FILE_OR_DIR ...]
    (default: --mode fast, --caller-voice piper-joe, --line g711, tests/scenarios)

Runs `appliance simulate --json` with `--spoken --fast` (caller lines
synthesised by the caller voice, put through the line, fed faster than real
time; the engine hears only what Whisper heard), `--spoken` (the same in real
time, as a caller would speak: about an hour for the 48 files) or `--sip`
(real time, as SIP calls on loopback), or reads the JSON lines of an earlier
run, and writes that mode's section of bench/RESULTS.md (one per voice and
line; Piper on G.711 keeps the plain section names): passes among the
scenarios that pass in text, the caller word error rate, the reply latency,
and each failure with what was said and what was heard (which is where the
remaining misses come from).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results_file import write_section  # noqa: E402

from appliance.simulate.caller_choices import DEFAULT_LINE, DEFAULT_VOICE, LINES, VOICES  # noqa: E402
from appliance.simulate.word_error import word_errors  # noqa: E402

GOAL = 0.90


MODES = {
    "fast": (["--spoken", "--fast"], "spoken-scenarios", "fed faster than real time"),
    "realtime": (["--spoken"], "spoken-scenarios-realtime", "in real time on the in-memory line"),
    "sip": (["--sip"], "spoken-scenarios-sip", "in real time as SIP calls on loopback"),
}
LINE_WORDS = {"clean": "a clean full-band line", "g711": "a G.711 line (8 kHz, µ-law)",
              "noisy": "a noisy G.711 line (room noise 15 dB under the speech)",
              "lossy": "a lossy G.711 line (2% of packets lost, concealed)"}


def section_name(mode: str, voice: str, line: str) -> str:
    """The RESULTS.md section: the mode's own for Piper on G.711, else with the voice and line in it."""
    base = MODES[mode][1]
    return base if (voice, line) == (DEFAULT_VOICE, DEFAULT_LINE) else f"{base}-{voice}-{line}"


def run(targets: list[str], mode: str, voice: str, line: str) -> tuple[list[dict], float]:
    """Play the scenarios; the JSON lines are kept in var/bench/ for a closer look (or `--from`)."""
    started = time.perf_counter()
    out = subprocess.run([str(ROOT / ".venv" / "bin" / "appliance"), "simulate", *MODES[mode][0], "--json",
                          "--caller-voice", voice, "--line", line, *targets], cwd=ROOT, capture_output=True, text=True)
    if out.returncode == 2:
        raise SystemExit(out.stderr.strip())
    kept = ROOT / "var" / "bench" / f"{section_name(mode, voice, line)}.jsonl"
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text(out.stdout)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    return rows, time.perf_counter() - started


def body(rows: list[dict], seconds: float | None, mode: str = "fast", voice: str = DEFAULT_VOICE,
         line: str = DEFAULT_LINE) -> str:
    in_text = [r for r in rows if r.get("passes_in_text")]
    spoken = [r for r in in_text if r["passed"]]
    words = sum(r.get("words", 0) for r in rows)
    errors = sum(r.get("word_errors", 0) for r in rows)
    rate = len(spoken) / len(in_text) if in_text else 0.0
    latencies = sorted(x for r in rows for x in r.get("latency_ms", []))
    lines = [
        f"## Spoken scenarios, {mode}{_who(voice, line)} (`bench/spoken_scenarios.py --mode {mode}"
        + ("" if (voice, line) == (DEFAULT_VOICE, DEFAULT_LINE) else f" --caller-voice {voice} --line {line}") + "`)",
        "",
        f"{len(rows)} scenario files, spoken by {voice} over {LINE_WORDS[line]}, {MODES[mode][2]}, default models "
        f"(Whisper base int8, beam 1), {platform.machine()} CPU"
        + (f", {seconds / 60:.0f} min" if seconds else "") + ".",
        "",
        "| | figure | goal |",
        "|---|---|---|",
        f"| pass when spoken, of those passing in text | {len(spoken)} of {len(in_text)} ({rate:.1%}): "
        f"{'met' if rate >= GOAL else 'NOT met'} | {GOAL:.0%} |",
        f"| caller word error rate | {errors / words:.1%} ({errors} of {words} words) | - |" if words else "",
        f"| end of caller speech to first agent audio, p50 / p95 | {_pct(latencies, 50):.0f} / "
        f"{_pct(latencies, 95):.0f} ms over {len(latencies)} turns | 1000 / 1600 ms |"
        if latencies and mode != "fast" else None,   # fed faster than real time, replies queue: not a latency
        "",
        "Failures (the caller's lines Whisper got most wrong: said -> heard):",
        "",
    ]
    for r in rows:
        if r["passed"]:
            continue
        scored = [(word_errors(s, h).errors, s, h) for s, h in zip(r.get("said", []), r.get("heard", []))]
        pairs = [(s, h) for errors, s, h in sorted(scored, key=lambda x: -x[0]) if errors][:2]
        heard = "; ".join(f"\"{s}\" -> \"{h}\"" for s, h in pairs) or "(heard right)"
        lines.append(f"- {r['name']}: {r['failures'][0] if r['failures'] else '?'}. {heard}")
    return "\n".join(line for line in lines if line is not None)


def _who(voice: str, line: str) -> str:
    return "" if (voice, line) == (DEFAULT_VOICE, DEFAULT_LINE) else f", {voice} on {line}"


def _pct(ordered: list[float], p: int) -> float:
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", default=["tests/scenarios"])
    parser.add_argument("--mode", choices=sorted(MODES), default="fast")
    parser.add_argument("--caller-voice", dest="voice", choices=VOICES, default=DEFAULT_VOICE)
    parser.add_argument("--line", choices=LINES, default=DEFAULT_LINE)
    parser.add_argument("--note", default="", help="a line on how the run went (load, a crash), printed under the title")
    parser.add_argument("--from", dest="source", type=Path, help="JSON lines of an earlier --spoken --json run")
    args = parser.parse_args()
    if args.source:
        rows = [json.loads(line) for line in args.source.read_text().splitlines() if line.startswith("{")]
        seconds = None
    else:
        rows, seconds = run(args.targets, args.mode, args.voice, args.line)
    text = body(rows, seconds, args.mode, args.voice, args.line)
    if args.note:
        title, rest = text.split("\n", 1)
        text = f"{title}\n\n{args.note}\n{rest}"
    print(text)
    print(f"\nwritten to {write_section(section_name(args.mode, args.voice, args.line), text)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
