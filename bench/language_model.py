"""Does the language model earn its place? The fallback classifier measured on callers nobody scripted.

    python bench/language_model.py [--split dev|test|both] [--heard RUN.jsonl ...] [--gguf PATH] [--limit N]

The engine asks the llama.cpp model to label a caller's words only when no rule understood them. Every
generated scenario (bench/generate_scenarios.py) is played twice in text, with the same caller: once on
the rules alone and once with the classifier, so what the model changes is the only difference. With
`--heard`, the JSON lines of spoken runs (`appliance simulate --spoken --json`) give what the transcriber
heard for each line, and the caller says that instead: the garbled words the model is there for.

For every turn where the rules found nothing and the model was asked, the right label is what the rules
make of the words as they were said (the clean line, at the same question): one of the intents the state
allows, or "unknown" when the line meant none of them. Written to the `language-model` section of
bench/RESULTS.md: how often the label is right, how often a wrong one cost the caller a scenario or turns,
what it added to the reply's latency, the rules-only figures beside it, and the decision it supports.
`--gguf` measures any other GGUF model file the same way, so a clinic can judge one before switching.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results_file import write_section  # noqa: E402

from appliance.engine.flow import load_flow  # noqa: E402
from appliance.engine.types import CallInfo  # noqa: E402
from appliance.simulate.caller import SimulatedCaller  # noqa: E402
from appliance.simulate.runner import judge, set_up_scenario, PlayedCall  # noqa: E402
from appliance.simulate.scenario import InvalidScenario, load_scenario  # noqa: E402
from appliance.understanding import ListenContext, understand  # noqa: E402
from appliance.understanding.name_list import load_name_list  # noqa: E402

GENERATED = ROOT / "var" / "generated"


@dataclass
class Asked:
    """One turn the rules did not understand, and what the model made of it."""

    said: str
    heard: str
    allowed: tuple[str, ...]
    truth: str            # an allowed intent, or "unknown"
    label: str            # the model's, or "unknown" (also for late or failed)
    ms: float


@dataclass
class Played:
    passed: bool
    turns: int
    asked: list[Asked] = field(default_factory=list)


class HeardCaller(SimulatedCaller):
    """The scenario's caller, saying each line as the transcriber heard it in a spoken run (when known)."""

    def __init__(self, script, heard: dict[str, str]):
        super().__init__(script)
        self.heard = heard
        self.last_said = ""

    def next_line(self, waiting_for: str) -> str:
        self.last_said = super().next_line(waiting_for)
        return self.heard.get(self.last_said, self.last_said)


class RecordingClassifier:
    """The real classifier, remembering every call it was asked."""

    def __init__(self, classifier):
        self.classifier = classifier
        self.calls: list[tuple[str, tuple[str, ...], str, float]] = []

    def __call__(self, text: str, allowed: tuple[str, ...]):
        if not allowed:
            return None   # a state that lets the model name nothing: it is not asked
        started = time.perf_counter()
        signal = self.classifier(text, allowed)
        self.calls.append((text, allowed, signal.name if signal else "unknown", (time.perf_counter() - started) * 1000))
        return signal


def play(path: Path, flow, heard: dict[str, str], classifier=None) -> Played:
    scenario, clinic = load_scenario(path)
    setup = set_up_scenario(scenario, clinic, flow, classifier=classifier)
    engine = setup.engine
    caller = HeardCaller(scenario.caller, heard)
    results = [engine.start(CallInfo(caller_id=scenario.caller_id))]
    lines = [""]
    asked: list[Asked] = []
    while not results[-1].ended and not caller.done:
        question = flow.questions[results[-1].waiting_for]
        context = ListenContext(question=question, now=setup.clock.now(), catalog=engine.catalog, region=engine.region,
                                offered_slots=engine.ctx.offered, bookings=engine.ctx.bookings or ())
        line = caller.next_line(results[-1].waiting_for)
        calls_before = len(classifier.calls) if classifier is not None else 0
        lines.append(line)
        results.append(engine.turn(line))
        if classifier is not None and len(classifier.calls) > calls_before:
            text, allowed, label, ms = classifier.calls[-1]
            meant = understand(caller.last_said, context)
            truth = next((s.name for s in meant.intents if s.name in allowed), "unknown")
            asked.append(Asked(caller.last_said, text, allowed, truth, label, ms))
    if not engine.ended:
        engine.hangup()
    played = PlayedCall(scenario, clinic, setup.store, setup.recorder, engine.ctx.call_id, results, lines,
                        setup.before, results[-1].ended)
    return Played(judge(path, played, flow).passed, len(lines) - 1, asked)


def heard_maps(runs: list[Path]) -> dict[str, dict[str, str]]:
    """Scenario name -> {line as said: first way it was heard} from spoken runs' JSON lines."""
    maps: dict[str, dict[str, str]] = {}
    for run in runs:
        for row in (json.loads(line) for line in run.read_text().splitlines() if line.startswith("{")):
            said, heard = row.get("said") or [], row.get("heard") or []
            pairs = maps.setdefault(row["name"], {})
            for s, h in zip(said, heard):
                pairs.setdefault(s, h)
    return maps


def ensure_generated() -> None:
    if not (GENERATED / "dev").is_dir():
        subprocess.run([sys.executable, str(ROOT / "bench" / "generate_scenarios.py"), "--out", str(GENERATED)],
                       check=True, capture_output=True)


def load_classifier(gguf: str | None):
    from appliance.language import IntentClassifier, LanguageModel
    from appliance.settings import load_settings

    settings = load_settings()
    model = LanguageModel(gguf, threads=settings.device.threads) if gguf else LanguageModel.shared(settings)
    classifier = IntentClassifier(model, settings=settings)
    classifier.warm_up()
    return classifier, Path(gguf).name if gguf else settings.models.llm


def measure(files: list[Path], flow, maps, classifier) -> dict:
    rows = []
    for path in files:
        try:
            name = load_scenario(path)[0].name
        except InvalidScenario:
            continue
        heard = maps.get(name, {})
        rules = play(path, flow, heard)
        recording = RecordingClassifier(classifier)
        with_llm = play(path, flow, heard, recording)
        rows.append((path, rules, with_llm))
    return summarise(rows)


def summarise(rows) -> dict:
    asked = [a for _, _, llm in rows for a in llm.asked]
    right = [a for a in asked if a.label == a.truth]
    wrong = [a for a in asked if a.label != a.truth]
    wrong_acted = [a for a in wrong if a.label != "unknown"]   # a wrong label the engine acted on
    helped = [p for p, rules, llm in rows if llm.passed and not rules.passed]
    hurt = [p for p, rules, llm in rows if rules.passed and not llm.passed]
    extra_turns = sum(llm.turns - rules.turns for _, rules, llm in rows)
    return {
        "scenarios": len(rows), "rules_passed": sum(r.passed for _, r, _ in rows),
        "llm_passed": sum(llm.passed for _, _, llm in rows), "asked": len(asked), "right": len(right),
        "wrong": len(wrong), "wrong_acted": len(wrong_acted), "helped": [p.name for p in helped],
        "hurt": [p.name for p in hurt], "extra_turns": extra_turns,
        "ms_p50": statistics.median([a.ms for a in asked]) if asked else 0.0,
        "ms_max": max([a.ms for a in asked], default=0.0),
        "examples": [(a.heard, a.truth, a.label) for a in wrong[:8]],
    }


def body(results: dict[str, dict], model: str, heard_runs: list[Path], seconds: float) -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    lines = [
        "## The language model's place: the fallback classifier on generated callers (`bench/language_model.py`)",
        "",
        f"Commit {commit}, {platform.python_implementation()} {platform.python_version()} on {platform.machine()}, "
        f"model {model}. Each generated scenario played twice in text with the same caller, on the rules alone "
        f"and with the classifier; " + (f"the caller says each line as the transcriber heard it in "
                                         f"{', '.join(p.name for p in heard_runs)}." if heard_runs else
                                         "the caller's lines as written.") + f" {seconds / 60:.0f} min.",
        "",
        "| split | scenarios | pass, rules only | pass, with the model | turns the rules missed (model asked) "
        "| label right | wrong label acted on | scenarios it saved | scenarios it lost | extra caller turns "
        "| latency added p50 / max |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for split, r in results.items():
        right = f"{r['right']} ({r['right'] / r['asked']:.0%})" if r["asked"] else "-"
        lines.append(f"| {split} | {r['scenarios']} | {r['rules_passed']} | {r['llm_passed']} | {r['asked']} | {right} "
                     f"| {r['wrong_acted']} | {len(r['helped'])} | {len(r['hurt'])} | {r['extra_turns']:+d} "
                     f"| {r['ms_p50']:.0f} / {r['ms_max']:.0f} ms |")
    total_helped = sum(len(r["helped"]) for r in results.values())
    total_hurt = sum(len(r["hurt"]) for r in results.values())
    keep = total_helped > total_hurt
    lines += ["", "Wrong labels (heard -> right label, model's label):", ""]
    for r in results.values():
        for heard, truth, label in r["examples"]:
            lines.append(f"- \"{heard}\" -> {truth}, model: {label}")
    lines += ["", f"Decision: **{'keep' if keep else 'turn off'}** `[llm] classify` by default "
                  f"({total_helped} scenarios saved against {total_hurt} lost across the splits measured; "
                  "without it a turn no rule understood is asked again, as the rules-only column shows)."]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=["dev", "test", "both"], default="both")
    parser.add_argument("--heard", type=Path, nargs="*", default=[], help="spoken runs' JSON lines")
    parser.add_argument("--gguf", help="measure this GGUF file instead of the configured model")
    parser.add_argument("--limit", type=int, default=0, help="at most this many scenarios per split")
    parser.add_argument("--no-write", action="store_true", help="print, do not write bench/RESULTS.md")
    args = parser.parse_args()
    started = time.perf_counter()
    ensure_generated()
    load_name_list()
    flow = load_flow(ROOT / "config" / "flows" / "clinic.yaml")
    classifier, model = load_classifier(args.gguf)
    maps = heard_maps(args.heard)
    splits = ["dev", "test"] if args.split == "both" else [args.split]
    results = {}
    for split in splits:
        files = sorted((GENERATED / split).glob("*.yaml"))
        if args.limit:
            files = files[:args.limit]
        results[split] = measure(files, flow, maps, classifier)
        print(split, json.dumps({k: v for k, v in results[split].items() if k != "examples"}), flush=True)
    text = body(results, model, args.heard, time.perf_counter() - started)
    if args.no_write:
        print(text)
    else:
        print(f"wrote {write_section('language-model', text)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
