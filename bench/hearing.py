"""How well one answer is heard, question by question, caller voice by voice, line by line.

    python bench/hearing.py [--voices V,...] [--lines L,...] [--kinds K,...] [--limit N [--whole K,...]] [--seed S]
                            [--answer-scoring on|off]
    python bench/hearing.py --from var/bench/hearing.jsonl       (the section again, from a run's answers)
    (default: all six voices, the g711 line, every kind, every answer)

Each answer in bench/hearing_items.yaml (yes, no, name, date of birth, phone number, day and time, service,
location, slot pick; at least 20 of each, in the ways callers say them) is said by the caller voice
(appliance/simulate/caller_voices.py), put through the line (line_conditions.py) and heard as a call hears
it: the in-memory line, Silero VAD and the appliance's CallerListener (turn ends, Smart Turn, Whisper with
the question's prompt), then understood with the question's context. Each answer starts after a moment of
quiet, as after the receptionist's question, and the audio goes in faster than real time; the next answer
starts only once the last one's turn has been handed over. What the question brings (its prompt for Whisper,
its context for understanding) comes from `ask`, one function, so it can follow the dialogue's questions as
they change.

Writes the `hearing` section of bench/RESULTS.md: answers understood right per kind for each voice and
line, beside the same answers understood from their text (what understanding alone gets), and every answer
heard or understood wrong (said -> heard -> understood). Every answer's result is kept in
var/bench/hearing.jsonl.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from datetime import time as clock_time
from pathlib import Path
from typing import Any, Callable

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from results_file import write_section  # noqa: E402

from appliance.simulate.caller_choices import DEFAULT_LINE, LINES, VOICES  # noqa: E402

ITEMS = HERE / "hearing_items.yaml"
KINDS = ("yes", "no", "non_answer", "name", "dob", "phone", "day_time", "service", "location", "slot_pick")
KIND_NAMES = {"yes": "yes", "no": "no", "non_answer": "not an answer (never a yes)", "name": "name",
              "dob": "date of birth", "phone": "phone number", "day_time": "day and time", "service": "service",
              "location": "location", "slot_pick": "slot pick"}
# the question the receptionist asks for each kind (declared in config/flows/questions.yaml)
WAITING_FOR = {"yes": "confirm", "no": "confirm", "non_answer": "confirm", "name": "full_name", "dob": "dob",
               "phone": "phone", "day_time": "time_preference", "service": "service", "location": "location",
               "slot_pick": "slot_choice"}
LEAD_IN_S = 0.5          # quiet before an answer: the receptionist has just stopped
TAIL_S = 2.5             # quiet after it: more than the longest turn end (1.0 s) and handover (0.6 s)
ANSWER_LIMIT_S = 30.0    # wall time one answer may take to be heard before the probe gives up on it


class BadItems(ValueError):
    pass


@dataclass(frozen=True)
class Item:
    kind: str
    say: str
    expect: Any
    offered: tuple[datetime, ...] = ()
    where: str = ""        # kinds.<kind>[i], for messages


@dataclass
class Probe:
    """The clinic and the clock the questions are asked with."""
    now: datetime
    clinic: Any
    items: list[Item]

    @property
    def catalog(self):
        return self.clinic.catalog()

    @property
    def questions(self):
        """The shipped flow's declared questions (config/flows/questions.yaml)."""
        from appliance.engine.flow import SHIPPED_FLOWS
        from appliance.understanding import known_kinds, read_questions

        return read_questions(SHIPPED_FLOWS / "questions.yaml", known_kinds=known_kinds())


# ------------------------------------------------------------------ the answers

def load_probe(path: Path = ITEMS) -> Probe:
    from appliance.clinic import load_clinic_file

    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    try:
        now = datetime.fromisoformat(str(data["now"]))
        clinic = load_clinic_file(path.parent / str(data["clinic"]), today=now.date())
        kinds = data["kinds"]
    except KeyError as exc:
        raise BadItems(f"{path}: missing {exc.args[0]!r}") from None
    unknown = sorted(set(kinds) - set(KINDS), key=str)
    if unknown:
        raise BadItems(f"{path}: kinds: unknown {unknown} (the kinds are {', '.join(KINDS)}; quote yes and no)")
    items = [_item(kind, i, entry, path) for kind in KINDS for i, entry in enumerate(kinds.get(kind) or [])]
    return Probe(now, clinic, items)


def _item(kind: str, index: int, entry: Any, path: Path) -> Item:
    where = f"kinds.{kind}[{index}]"
    if not isinstance(entry, dict) or not entry.get("say") or "expect" not in entry:
        raise BadItems(f"{path}: {where}: needs `say` and `expect`")
    expect = entry["expect"]
    try:
        if kind == "dob":
            expect = date.fromisoformat(str(expect))
        elif kind == "slot_pick":
            expect = datetime.fromisoformat(str(expect))
        offered = tuple(datetime.fromisoformat(str(s)) for s in entry.get("offered") or ())
    except ValueError as exc:
        raise BadItems(f"{path}: {where}: {exc}") from None
    if kind == "slot_pick" and expect not in offered:
        raise BadItems(f"{path}: {where}: expect {expect:%Y-%m-%dT%H:%M} is not among the offered slots")
    return Item(kind, str(entry["say"]), expect, offered, where)


# ------------------------------------------------------------------ the question

def ask(listener: Any, item: Item, probe: Probe) -> Callable[[str], Any]:
    """Put `item`'s question to the listener as a call does after asking it (the declared question: its
    patience and Whisper's prompt), and return how the answer is understood. Everything question-specific is
    here."""
    from appliance.clinic.regions import region_for
    from appliance.domain import Slot
    from appliance.engine.context import CallContext
    from appliance.engine.expected_answers import expected_answers
    from appliance.engine.rule_env import RuleEnv
    from appliance.understanding import ListenContext, understand
    from appliance.voice.stt import hotwords_for

    question = probe.questions[WAITING_FOR[item.kind]]
    catalog = probe.catalog
    listener.question = question
    listener.hotwords = hotwords_for(catalog, probe.clinic.profile())
    listener.turn_hotwords = question.stt_prompt or ""
    service, practitioner, location = catalog.services[0], catalog.practitioners[0], catalog.locations[0]
    offered = tuple(Slot(start, service.id, practitioner.id, location.id, service.minutes) for start in item.offered)
    region = region_for(probe.clinic.profile().region)
    context = ListenContext(question=question, now=probe.now, catalog=catalog, region=region, offered_slots=offered)
    # what the engine would tell the ears to expect after asking it (engine/expected_answers.py)
    listener.expected = expected_answers(question, CallContext(call_id="hearing", offered=offered),
                                         RuleEnv(catalog, probe.clinic.profile(), {}, region))
    listener.understand = lambda text: understand(text, context)   # as the engine reads them (choices scored)
    return listener.understand


# ------------------------------------------------------------------ right or wrong

def understood(item: Item, heard: Any) -> tuple[bool, str]:
    """Whether the understanding `heard` (an Utterance) is what `item` means, and what it took, in words."""
    kind = item.kind
    if kind in ("yes", "no"):
        intents = [s.name for s in heard.intents]
        other = "no" if kind == "yes" else "yes"
        return heard.has(kind) and not heard.has(other), ", ".join(intents) or "(nothing)"
    if kind == "non_answer":   # anything but the yes that would unlock a write
        intents = [s.name for s in heard.intents]
        return not heard.has("yes"), ", ".join(intents) or "(nothing)"
    if kind == "name":
        name = heard.name
        said = f"{name.first or ''} {name.last or ''}".strip() if name else ""
        return _letters(said) == _letters(item.expect) and bool(name and name.first and name.last), said or "(no name)"
    if kind == "dob":
        return heard.dob == item.expect, str(heard.dob or "(no date)")
    if kind == "phone":
        return heard.phone == item.expect, heard.phone or "(no number)"
    if kind == "day_time":
        return _window_is(heard.window, item.expect), _window_words(heard.window)
    if kind == "service":
        return heard.service_ids == (item.expect,), ", ".join(heard.service_ids) or "(no service)"
    if kind == "location":
        return heard.location_id == item.expect, heard.location_id or "(no location)"
    pick = heard.slot_pick
    picked = item.offered[pick] if pick is not None and 0 <= pick < len(item.offered) else None
    return picked == item.expect, f"{picked:%a %H:%M}" if picked else "(no pick)"


def _letters(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.casefold())


def _window_is(window: Any, expect: dict) -> bool:
    if window is None:
        return False
    start = date.fromisoformat(str(expect["start"]))
    end = date.fromisoformat(str(expect["end"])) if expect.get("end") else start + timedelta(days=1)
    wanted = (start, end, _time(expect.get("from")), _time(expect.get("to")))
    got = (window.start.date() if window.start else None, window.end.date() if window.end else None,
           window.time_from, window.time_to)
    return got == wanted


def _time(value: Any) -> clock_time | None:
    return clock_time.fromisoformat(str(value)) if value else None


def _window_words(window: Any) -> str:
    if window is None:
        return "(no window)"
    day = f"{window.start:%a %d %b}" if window.start else "any day"
    if window.end and window.start and window.end - window.start > timedelta(days=1):
        day += f" to {window.end - timedelta(days=1):%a %d %b}"
    if not (window.time_from or window.time_to):
        return day
    hour = lambda t: f"{t:%H:%M}" if t else ""   # noqa: E731
    return f"{day} {hour(window.time_from)}-{hour(window.time_to)}"


# ------------------------------------------------------------------ the ears

class Ears:
    """The listening half of a call: the in-memory line, Silero VAD and the CallerListener, with the caller's
    turns collected as they are handed over (where a call's engine would get them)."""

    def __init__(self, runtime: Any, rate: int, background: bytes | None):
        from pipecat.pipeline.pipeline import Pipeline
        from pipecat.pipeline.worker import PipelineParams, PipelineWorker
        from pipecat.processors.audio.vad_processor import VADProcessor

        from appliance.voice import CallerLine, CallerListener, LineTransport

        voice = runtime.settings.voice
        self.rate = rate
        self.line = CallerLine(rate, fast=True, background=background)
        self.transport = LineTransport(self.line, realtime_output=False)
        self.listener = CallerListener(
            transcriber=runtime.transcriber, rate=rate, vad_start_secs=voice.vad_start_secs,
            vad_stop_secs=voice.vad_stop_secs, smart_turn=runtime.smart_turn, barge_in_min_s=voice.barge_in_min_s,
            call_id="hearing")
        vad = VADProcessor(vad_analyzer=runtime.vad_analyzer(stop_secs=self.listener.vad_pause_secs))
        self.sink = _turn_sink()
        self.worker = PipelineWorker(
            Pipeline([self.transport.input(), vad, self.listener, self.sink]),
            params=PipelineParams(audio_in_sample_rate=rate, audio_out_sample_rate=rate), enable_rtvi=False,
            enable_turn_tracking=False, idle_timeout_secs=None, cancel_on_idle_timeout=False,
            check_dangling_tasks=False)
        self._running: asyncio.Task | None = None

    async def start(self) -> None:
        from pipecat.workers.runner import WorkerRunner

        runner = WorkerRunner(handle_sigint=False, check_dangling_tasks=False)
        await runner.add_workers(self.worker)
        self._running = asyncio.create_task(runner.run())

    async def stop(self) -> None:
        await self.worker.cancel()
        if self._running is not None:
            await self._running

    async def hear(self, pcm: bytes) -> tuple[list[str], list[str]]:
        """The caller's turns that `pcm` (an answer with the quiet around it) made, as handed over, and Whisper's
        own words for each (before any expected answer was scored against the audio)."""
        await self.line.say(pcm)
        sent = int(self.line.sent_s * self.rate)
        waited = 0.0
        while not self._settled(sent) and waited < ANSWER_LIMIT_S:
            await asyncio.sleep(0.02)
            waited += 0.02
        await asyncio.sleep(0.1)     # the last turn on its way from the listener to the sink
        return self.sink.take()

    def _settled(self, sent: int) -> bool:
        """All the audio sent has reached the listener, and no utterance is open or being transcribed
        (the listener's own state: it has no public word for this)."""
        listener = self.listener
        return listener._samples >= sent and listener._utt is None and listener._pending is None


def _turn_sink():
    from pipecat.processors.frame_processor import FrameProcessor

    from appliance.voice import CallerTurnFrame

    class TurnSink(FrameProcessor):
        """Where a call's engine would be: keeps the text of each caller turn."""

        def __init__(self):
            super().__init__()
            self.turns: list[str] = []
            self.written: list[str] = []   # Whisper's own words for each turn, before any expected answer was scored

        async def process_frame(self, frame, direction):
            await super().process_frame(frame, direction)
            if isinstance(frame, CallerTurnFrame):
                self.turns.append(frame.text)
                self.written.append(frame.text if frame.written is None else frame.written)
                return
            await self.push_frame(frame, direction)

        def take(self) -> tuple[list[str], list[str]]:
            taken, written, self.turns, self.written = self.turns, self.written, [], []
            return taken, written

    return TurnSink()


# ------------------------------------------------------------------ the run

@dataclass
class Heard:
    item: Item
    voice: str
    line: str
    heard: str
    right: bool
    took: str
    turns: int
    free: str = ""          # Whisper's own words, before any expected answer was scored against the audio
    right_free: bool = False
    took_free: str = ""

    def as_json(self) -> dict:
        return {"kind": self.item.kind, "voice": self.voice, "line": self.line, "said": self.item.say,
                "heard": self.heard, "turns": self.turns, "right": self.right, "understood": self.took,
                "free": self.free, "right_free": self.right_free, "understood_free": self.took_free}


@dataclass
class Run:
    results: list[Heard] = field(default_factory=list)
    text: dict[str, tuple[bool, str]] = field(default_factory=dict)    # item.where -> understood from its text
    seconds: dict[tuple[str, str], float] = field(default_factory=dict)


async def probe_voice(runtime: Any, probe: Probe, items: list[Item], voice_name: str, line_name: str, seed: int,
                      on_heard: Callable[[Heard], None], scoring: bool | None = None) -> list[Heard]:
    from appliance.simulate.caller_speech import CallerVoice
    from appliance.simulate.caller_voices import stable_seed

    rate = runtime.settings.voice.sample_rate
    loop = asyncio.get_running_loop()
    voice = await loop.run_in_executor(None, lambda: CallerVoice(runtime, rate, voice=voice_name, line=line_name,
                                                                 seed=stable_seed(seed, voice_name, line_name)))
    spoken = await loop.run_in_executor(None, lambda: [voice.audio(item.say) for item in items])
    background = voice.background()
    ears = Ears(runtime, rate, background)
    ears.listener.answer_scoring = runtime.settings.voice.stt_answer_scoring if scoring is None else scoring
    await ears.start()
    results = []
    try:
        for item, pcm in zip(items, spoken):
            meaning = ask(ears.listener, item, probe)
            turns, written = await ears.hear(_quiet(background, LEAD_IN_S, rate) + pcm
                                             + _quiet(background, TAIL_S, rate))
            heard, free = " ".join(t for t in turns if t), " ".join(t for t in written if t)
            right, took = understood(item, meaning(heard))
            right_free, took_free = (right, took) if free == heard else understood(item, meaning(free))
            result = Heard(item, voice_name, line_name, heard, right, took, len(turns), free, right_free, took_free)
            results.append(result)
            on_heard(result)
    finally:
        await ears.stop()
    return results


def _quiet(background: bytes | None, seconds: float, rate: int) -> bytes:
    """`seconds` of what the line carries between words: the room's noise where there is one."""
    size = int(seconds * rate) * 2
    if not background:
        return bytes(size)
    return (background * (size // len(background) + 1))[:size]


def text_baseline(probe: Probe, items: list[Item]) -> dict[str, tuple[bool, str]]:
    """Each answer understood from its own text, in its question's context: the ceiling for hearing it."""
    class _Ears:   # the listener's attributes `ask` sets, with nothing behind them
        question = None
        hotwords = turn_hotwords = ""
        expected = ()

    return {item.where: understood(item, ask(_Ears(), item, probe)(item.say)) for item in items}


# ------------------------------------------------------------------ the report

def body(run: Run, probe: Probe, items: list[Item], voices: list[str], lines: list[str], note: str) -> str:
    kinds = [k for k in KINDS if any(i.kind == k for i in items)]
    columns = [(v, ln) for ln in lines for v in voices]
    head = "| kind | answers | text | " + " | ".join(_column(v, ln, lines) for v, ln in columns) + " |"
    rows = [head, "|---|---|---|" + "---|" * len(columns)]
    by = {(r.voice, r.line, r.item.where): r for r in run.results}
    for kind in kinds + ["all"]:
        chosen = [i for i in items if kind in ("all", i.kind)]
        text_right = sum(run.text[i.where][0] for i in chosen)
        cells = [_share(sum(by[(v, ln, i.where)].right for i in chosen if (v, ln, i.where) in by),
                        sum((v, ln, i.where) in by for i in chosen)) for v, ln in columns]
        label = "**all**" if kind == "all" else KIND_NAMES[kind]
        rows.append(f"| {label} | {len(chosen)} | {_share(text_right, len(chosen))} | " + " | ".join(cells) + " |")
    total = sum(run.seconds.values())
    timing = ", ".join(f"{_column(v, ln, lines)} {run.seconds[(v, ln)]:.0f} s" for v, ln in columns
                       if (v, ln) in run.seconds)
    lines_out = [
        "## Hearing: one answer per question (`bench/hearing.py`)",
        "",
        note,
        "",
        f"Each answer in bench/hearing_items.yaml said by the caller voice over the line, heard through Silero VAD "
        f"and the CallerListener (Smart Turn, Whisper base int8 with the question's prompt) and understood with "
        f"the question's context; \"text\" is the same answers understood from their text. Answers understood "
        f"right, of those asked. {len(items)} answers, {len(columns)} voice and line pairs"
        + (f", {total / 60:.1f} min ({timing})." if total else "."),
        "",
        *rows,
        "",
        "Wrong from the text (understanding alone):",
        "",
    ]
    text_wrong = [i for i in items if not run.text[i.where][0]]
    lines_out += [f"- {KIND_NAMES[i.kind]}: \"{i.say}\" -> {run.text[i.where][1]}" for i in text_wrong] or ["- none"]
    lines_out += ["", "Heard wrong (said -> heard -> understood), where the text alone is understood right:", ""]
    for v, ln in columns:
        wrong = [r for r in run.results if (r.voice, r.line) == (v, ln) and not r.right and run.text[r.item.where][0]]
        if not wrong:
            continue
        lines_out += [f"<details><summary>{_column(v, ln, lines)}: {len(wrong)}</summary>", ""]
        lines_out += [f"- {KIND_NAMES[r.item.kind]}: \"{r.item.say}\" -> \"{r.heard}\" -> {r.took}"
                      + (f" ({r.turns} turns)" if r.turns > 1 else "") for r in wrong]
        lines_out += ["", "</details>", ""]
    return "\n".join(lines_out).rstrip()


def scoring_body(run: Run, items: list[Item], voices: list[str], lines: list[str], note: str) -> str:
    """What scoring the expected answers against the audio (voice/answer_scoring.py) changed in this run:
    per kind and voice, answers right from Whisper's own words and right as handed over, and every answer
    whose words it changed."""
    kinds = [k for k in KINDS if any(i.kind == k for i in items)]
    columns = [(v, ln) for ln in lines for v in voices]
    rows = ["| kind | " + " | ".join(_column(v, ln, lines) for v, ln in columns) + " |",
            "|---|" + "---|" * len(columns)]
    for kind in kinds + ["all"]:
        cells = []
        for v, ln in columns:
            chosen = [r for r in run.results if (r.voice, r.line) == (v, ln) and kind in ("all", r.item.kind)]
            cells.append(f"{sum(r.right_free for r in chosen)} → {sum(r.right for r in chosen)} of {len(chosen)}"
                         if chosen else "-")
        rows.append(f"| {'**all**' if kind == 'all' else KIND_NAMES[kind]} | " + " | ".join(cells) + " |")
    changed = [r for r in run.results if r.free != r.heard]
    out = ["### Hearing: scoring the expected answers against the audio (`bench/hearing.py`)", "", note, "",
           "The same run: answers understood right from Whisper's own words (what `[voice] stt_answer_scoring = "
           "false` hands over) → as handed over with the expected answers scored (`appliance/voice/"
           "answer_scoring.py`).", "", *rows, "", f"Answers whose words scoring changed: {len(changed)}", ""]
    out += [f"- {_column(r.voice, r.line, lines)}, {KIND_NAMES[r.item.kind]}: \"{r.item.say}\" -> \"{r.free}\" -> "
            f"\"{r.heard}\" -> {r.took} ({'right' if r.right else 'wrong'}, was {'right' if r.right_free else 'wrong'})"
            for r in changed] or ["- none"]
    return "\n".join(out)


def _column(voice: str, line: str, lines: list[str]) -> str:
    return voice if len(lines) == 1 else f"{voice} {line}"


def _share(right: int, total: int) -> str:
    return f"{right}/{total}" if total else "-"


def machine_note(args: argparse.Namespace) -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip() or "?"
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()
    cpu = next((line.split(":", 1)[1].strip() for line in _cpuinfo() if line.startswith("model name")),
               platform.processor() or platform.machine())
    options = " ".join(f"--{k} {v}" for k, v in (("voices", ",".join(args.voices)), ("lines", ",".join(args.lines)),
                                                 ("kinds", ",".join(args.kinds)), ("limit", args.limit),
                                                 ("whole", ",".join(args.whole)),
                                                 ("seed", args.seed), ("answer-scoring", args.answer_scoring))
                       if v not in (None, ""))
    return (f"Commit {commit}{' with local changes' if dirty else ''}; {cpu}, {os.cpu_count()} cores, "
            f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the start; `{options}`.")


def _on_off(value: str | None) -> bool | None:
    return None if value is None else value == "on"


def _cpuinfo() -> list[str]:
    try:
        return Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return []


def _names(text: str, choices: tuple[str, ...], what: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in choices]
    if unknown or not names:
        raise SystemExit(f"error: unknown {what} {', '.join(unknown) or '(none given)'}: choose from {', '.join(choices)}")
    return names


async def run_probe(args: argparse.Namespace, probe: Probe, items: list[Item], note: str) -> Run:
    """Hear every item in every voice and line; each answer goes to `args.keep` as it is heard, and the
    run's note and timings last."""
    from appliance.settings import load_settings
    from appliance.voice import VoiceRuntime, quiet_pipecat

    quiet_pipecat("ERROR")
    runtime = await asyncio.get_running_loop().run_in_executor(
        None, lambda: VoiceRuntime(load_settings(), load_llm=False))
    run = Run(text=text_baseline(probe, items))
    args.keep.parent.mkdir(parents=True, exist_ok=True)
    with args.keep.open("w", encoding="utf-8") as out:
        def on_heard(result: Heard) -> None:
            out.write(json.dumps(result.as_json()) + "\n")
            out.flush()
            mark = "  " if result.right else "✗ "
            print(f"{mark}{result.voice:13} {result.line:6} {result.item.kind:9} {result.item.say!r} -> "
                  f"{result.heard!r} -> {result.took}", flush=True)

        for line in args.lines:
            for voice in args.voices:
                started = time.perf_counter()
                run.results += await probe_voice(runtime, probe, items, voice, line, args.seed, on_heard,
                                                 _on_off(args.answer_scoring))
                run.seconds[(voice, line)] = time.perf_counter() - started
        out.write(json.dumps({"run": {"note": note, "voices": args.voices, "lines": args.lines,
                                      "seconds": [[v, ln, round(t, 1)] for (v, ln), t in run.seconds.items()]}}) + "\n")
    return run


def run_from(path: Path, probe: Probe) -> tuple[Run, list[Item], list[str], list[str], str]:
    """An earlier run's answers (`--keep`'s file) as they were heard then, for writing the section again."""
    by_said = {(item.kind, item.say): item for item in probe.items}
    run, note, voices, lines = Run(), "", [], []
    for record in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
        if "run" in record:
            note, voices, lines = record["run"]["note"], record["run"]["voices"], record["run"]["lines"]
            run.seconds = {(v, ln): t for v, ln, t in record["run"]["seconds"]}
            continue
        item = by_said.get((record["kind"], record["said"]))
        if item is None:
            raise BadItems(f"{path}: {record['kind']} answer {record['said']!r} is no longer in {ITEMS.name}")
        run.results.append(Heard(item, record["voice"], record["line"], record["heard"], record["right"],
                                 record["understood"], record["turns"], record.get("free", record["heard"]),
                                 record.get("right_free", record["right"]),
                                 record.get("understood_free", record["understood"])))
        voices += [record["voice"]] if record["voice"] not in voices else []
        lines += [record["line"]] if record["line"] not in lines else []
    asked = {r.item.where for r in run.results}
    items = [item for item in probe.items if item.where in asked]
    run.text = text_baseline(probe, items)
    return run, items, voices, lines, note


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voices", default=",".join(VOICES), help=f"comma-separated, of {', '.join(VOICES)}")
    parser.add_argument("--lines", default=DEFAULT_LINE, help=f"comma-separated, of {', '.join(LINES)}")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)}")
    parser.add_argument("--limit", type=int, default=None, help="the first N answers of each kind")
    parser.add_argument("--whole", default="", help="comma-separated kinds asked in full despite --limit")
    parser.add_argument("--seed", type=int, default=0, help="the caller voices' seed (pace, noise, lost packets)")
    parser.add_argument("--answer-scoring", choices=("on", "off"), default=None,
                        help="score expected answers against the audio (default: [voice] stt_answer_scoring)")
    parser.add_argument("--keep", type=Path, default=ROOT / "var" / "bench" / "hearing.jsonl",
                        help="where each answer's result goes (JSON lines)")
    parser.add_argument("--from", dest="source", type=Path, help="write the section from an earlier run's --keep file")
    parser.add_argument("--no-write", action="store_true", help="print the section, leave RESULTS.md alone")
    parser.add_argument("--scoring-only", action="store_true",
                        help="write only the sub-section on scoring expected answers, leave the hearing table alone")
    parser.add_argument("--note", default="", help="a line on how the run went (load, a crash), under the title")
    args = parser.parse_args()
    args.voices = _names(args.voices, VOICES, "voice")
    args.lines = _names(args.lines, LINES, "line")
    args.kinds = _names(args.kinds, KINDS, "kind")
    args.whole = _names(args.whole, KINDS, "kind") if args.whole else []

    from appliance.simulate.caller_voices import VoiceUnavailable, check_voice

    try:
        probe = load_probe()
        if args.source:
            run, items, voices, lines, note = run_from(args.source, probe)
        else:
            for voice in args.voices:
                check_voice(voice)
            items = chosen_items(probe, args.kinds, args.limit, args.whole)
            voices, lines, note = args.voices, args.lines, machine_note(args)
            run = asyncio.run(run_probe(args, probe, items, note))
    except (VoiceUnavailable, BadItems) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = body(run, probe, items, voices, lines, f"{note} {args.note}".strip())
    scoring = scoring_body(run, items, voices, lines, f"{note} {args.note}".strip())
    print("\n" + text + "\n\n" + scoring)
    if not args.no_write:
        if not args.scoring_only:
            write_section("hearing", text)
        print(f"\nwritten to {write_section('hearing_scoring', scoring)}")
    return 0


def chosen_items(probe: Probe, kinds: list[str], limit: int | None, whole: list[str] = ()) -> list[Item]:
    """The items of `kinds`, the first `limit` of each (all of those in `whole`)."""
    taken: dict[str, int] = {}
    items = []
    for item in probe.items:
        if item.kind in kinds and (limit is None or item.kind in whole or taken.get(item.kind, 0) < limit):
            taken[item.kind] = taken.get(item.kind, 0) + 1
            items.append(item)
    return items


if __name__ == "__main__":
    sys.exit(main())
