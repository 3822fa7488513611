"""Scenario files played as audio through the whole voice pipeline.

The simulated caller is the text simulator's (`SimulatedCaller`): it answers
whatever the engine is waiting for. Its lines are spoken by one of the caller
voices (`caller_voices.py`: Piper's joe by default, espeak-ng or flite), put
through a line (`line_conditions.py`: G.711 by default, or clean, noisy or
lossy) and sent down an in-memory line into the pipeline, either in real time
(the demo, the benchmark) or as fast as the pipeline takes them (`fast=True`,
tests). The engine only ever gets what
Whisper heard. Afterwards the same checks as the text simulator run against
the database and the call record, and the caller's lines are scored against
what was heard (word error rate).

    result = await play_spoken(path, flow, runtime, fast=True, caller=CallerSetup("flite-slt", "noisy"))
    print(result.verdict.line(), result.word_errors.rate)
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..engine.flow import Flow
from ..engine.types import CallInfo
from ..voice import (CallEvent, CallerLine, CallSummary, CallTape, EngineHost, LineTransport, TurnTiming, VoiceCall,
                     VoiceRuntime, current_rss_mb, clinic_lines_for)
from .caller import SimulatedCaller
from .caller_speech import CallerSetup, CallerVoice
from .runner import PlayedCall, ScenarioResult, judge, set_up_scenario
from .scenario import InvalidScenario, Scenario, load_scenario
from .word_error import WordErrors, word_errors

log = logging.getLogger("appliance.simulate")

CALLER_PAUSE_S = 0.4       # a caller's breath before answering (real-time runs only)
CALL_LIMIT_S = 600.0


@dataclass
class SpokenResult:
    verdict: ScenarioResult
    summary: CallSummary | None = None
    said: list[str] = field(default_factory=list)      # the caller's lines, as spoken
    word_errors: WordErrors = WordErrors(0, 0)
    tape: CallTape | None = None
    call_record: dict[str, Any] | None = None
    warm_s: float = 0.0
    voice: str = ""                                     # the caller voice that spoke (its engine's name)

    @property
    def heard(self) -> list[str]:
        return [text for text in (self.summary.heard if self.summary else []) if text]


def caller_phrases(scenario: Scenario) -> list[str]:
    """Every line the simulated caller might say."""
    script = scenario.caller
    lines = [script.opening, script.default]
    for answer in script.answers.values():
        lines.extend(answer if isinstance(answer, list) else [answer])
    lines.extend(item.say for item in script.interjections)
    return list(dict.fromkeys(line for line in lines if line))


class ScenarioCall:
    """A scenario's clinic, engine and in-memory line, ready for a spoken call (tests drive it too).

        rig = await ScenarioCall.prepare(scenario, clinic, flow, runtime, fast=True)
        summary = await rig.run(driver)          # driver(rig) speaks for the caller
        verdict = await rig.judge(path)
    """

    def __init__(self, scenario: Scenario, clinic: Any, flow: Flow, runtime: VoiceRuntime, host: EngineHost, *,
                 rate: int, fast: bool, realtime_output: bool):
        self.scenario, self.clinic, self.flow, self.runtime, self.host = scenario, clinic, flow, runtime, host
        self.rate = rate
        self.fast = fast
        self.tape = CallTape(rate)
        self.line = CallerLine(rate, fast=fast, tape=self.tape)
        self.transport = LineTransport(self.line, realtime_output=realtime_output, tape=self.tape)
        self.voice: CallerVoice | None = None   # made in prepare()
        self.turns: asyncio.Queue = asyncio.Queue()    # TurnTiming of each agent turn once played
        self.speaking: asyncio.Queue = asyncio.Queue() # the kind of each agent utterance as it starts playing
        self.events: list[CallEvent] = []
        self.call: VoiceCall | None = None
        self.summary: CallSummary | None = None
        self.warm_s = 0.0
        self.caller_mb: float | None = None   # memory the simulated caller's voice took (not the appliance's)
        self.said: list[str] = []

    @classmethod
    async def prepare(cls, scenario: Scenario, clinic: Any, flow: Flow, runtime: VoiceRuntime, *,
                      fast: bool = False, realtime_output: bool | None = None, db_path: str | Path = ":memory:",
                      on_event: Callable[[CallEvent], None] | None = None, publisher: Any = None,
                      caller: CallerSetup = CallerSetup(), call_class: Any = VoiceCall) -> ScenarioCall:
        """`call_class`: the call's pipeline (VoiceCall; a benchmark may bring another built the same way)."""
        rate = runtime.settings.voice.sample_rate
        host = EngineHost(name=scenario.name[:20])
        rig = cls(scenario, clinic, flow, runtime, host, rate=rate, fast=fast,
                  realtime_output=(not fast) if realtime_output is None else realtime_output)

        def build():
            setup = set_up_scenario(scenario, clinic, flow, db_path=db_path, classifier=runtime.classifier)
            return (setup.store, setup.recorder, setup.before, setup.engine,
                    clinic_lines_for(flow, setup.store, setup.clock))

        try:
            rig.store, rig.recorder, rig.before, rig.engine, clinic_lines = await host.call(build)
            if publisher is not None:  # monitors see this call live (the engine's records become events)
                await host.call(publisher.watch, rig.engine)
            loop = asyncio.get_running_loop()
            started = time.perf_counter()
            await loop.run_in_executor(None, runtime.warm_clinic, clinic_lines, rate, flow)
            before = current_rss_mb()
            rig.voice = await loop.run_in_executor(None, caller.voice_for, runtime, rate, scenario.name)
            await loop.run_in_executor(None, rig.voice.prepare, caller_phrases(scenario))
            after = current_rss_mb()
            rig.caller_mb = after - before if before is not None and after is not None else None
            rig.line.background = rig.voice.background()
            rig.warm_s = time.perf_counter() - started
        except Exception:
            host.close()
            raise

        def events(event: CallEvent) -> None:
            rig.events.append(event)
            if event.kind == "turn":
                rig.turns.put_nowait(event.timing)
            elif event.kind == "speaking":
                rig.speaking.put_nowait(event.data["kind"])
            if on_event is not None:
                on_event(event)

        rig.call = call_class(runtime, transport=rig.transport, host=host, engine=rig.engine, rate=rate,
                             call_info=CallInfo(caller_id=scenario.caller_id), on_event=events,
                             call_id=scenario.name[:40])
        return rig

    async def agent_quiet(self, limit_s: float = 3.0) -> None:
        """Return once the agent is not speaking (or after `limit_s`)."""
        listener = self.call.listener if self.call is not None else None
        waited = 0.0
        while listener is not None and listener.agent_speaking and waited < limit_s:
            await asyncio.sleep(0.02)
            waited += 0.02

    async def latest_answer(self, timing: TurnTiming, answered: int, limit_s: float = 30.0) -> tuple[TurnTiming, int]:
        """Fast runs: once the caller's line has all been sent and heard, the agent's turn that answers the
        last of it (a pause mid-line can make two caller turns of one line, and a real caller would not
        speak again before hearing the answer to the whole of it)."""
        listener = self.call.listener
        waited = 0.0
        while (self.line.speaking or (listener is not None and (listener._utt is not None
                                                                 or listener._pending is not None))) and waited < limit_s:
            await asyncio.sleep(0.05)
            waited += 0.05
        heard = sum(1 for e in self.events if e.kind == "heard" and (e.text or e.data.get("stt_failed")
                                                                     or e.data.get("unheard")))
        while answered < heard and not (timing.result is not None and timing.result.ended):
            try:
                timing = await asyncio.wait_for(self.turns.get(), limit_s)
            except asyncio.TimeoutError:
                break
            answered += timing.kind == "reply"
        return timing, answered

    async def say(self, text: str) -> None:
        """The caller says `text` (returns once the audio has been sent down the line)."""
        await self.line.say(await self.voice.next_audio(text))

    async def run(self, driver: Callable[[ScenarioCall], Any] | None = None, *,
                  limit_s: float = CALL_LIMIT_S) -> CallSummary:
        task = asyncio.create_task(driver(self)) if driver is not None else None
        try:
            self.summary = await asyncio.wait_for(self.call.run(), limit_s)
        finally:
            if task is not None:
                task.cancel()
        return self.summary

    async def judge(self, path: str | Path) -> tuple[ScenarioResult, dict]:
        summary = self.summary
        engine, store, recorder = self.engine, self.store, self.recorder

        def finish():
            if not engine.ended:
                engine.hangup()
            return judge_spoken(path, self.scenario, self.clinic, self.flow, store, recorder, self.before,
                                engine.ctx.call_id, summary)

        return await self.host.call(finish)

    def close(self) -> None:
        self.host.close()


@dataclass(frozen=True)
class CallerMove:
    say: str = ""             # the line the caller speaks next
    hang_up: bool = False     # the caller's script is done: the caller hangs up
    over: bool = False        # the agent ended the call


def caller_move(caller: SimulatedCaller, timing: TurnTiming) -> CallerMove | None:
    """What the simulated caller does once an agent turn has been played (None: keeps listening)."""
    result = timing.result
    if result is None or result.ended:
        return CallerMove(over=True)
    if timing.kind == "reply" and timing.cut:
        return None  # cut off by the caller: the caller is already talking
    if caller.done:
        return CallerMove(hang_up=True)
    return CallerMove(say=caller.answer(result))


def judge_spoken(path: str | Path, scenario: Scenario, clinic: Any, flow: Flow, store: Any, recorder: Any,
                 before: dict, call_id: str, summary: CallSummary) -> tuple[ScenarioResult, dict]:
    """The text simulator's checks on a spoken call, and its call record (run where `store` may be used)."""
    played = PlayedCall(scenario, clinic, store, recorder, call_id, summary.results, summary.heard, before,
                        bool(summary.results and summary.results[-1].ended), by_ear=True)
    return judge(Path(path), played, flow), recorder.call_record(call_id)


def source_scenario(source: str | Path | tuple[Scenario, Any], label: str | None
                    ) -> tuple[Path, tuple[Scenario, Any] | None, SpokenResult | None]:
    """The scenario file's path (or label), the scenario and its clinic, or the failure for a broken file."""
    path = Path(label or (source if not isinstance(source, tuple) else "scenario"))
    try:
        return path, (source if isinstance(source, tuple) else load_scenario(source)), None
    except InvalidScenario as exc:
        return path, None, SpokenResult(ScenarioResult(file=str(path), name=path.stem, passed=False,
                                                       failures=[f"invalid scenario: {exc}"]))


def spoken_result(verdict: ScenarioResult, record: dict, summary: CallSummary, said: list[str], *,
                  tape: CallTape | None = None, warm_s: float = 0.0, voice: str = "") -> SpokenResult:
    """The verdict with what the caller said scored against what was heard."""
    errors = word_errors(" ".join(said), " ".join(text for text in summary.heard if text))
    return SpokenResult(verdict, summary, said, errors, tape, record, warm_s, voice)


def crashed(path: Path, scenario: Scenario, exc: BaseException) -> SpokenResult:
    if isinstance(exc, InvalidScenario):   # the script answers a question this flow never asks
        return SpokenResult(ScenarioResult(file=str(path), name=scenario.name, passed=False,
                                           failures=[f"invalid scenario: {exc}"]))
    log.exception("spoken scenario %s crashed", scenario.name)
    return SpokenResult(ScenarioResult(file=str(path), name=scenario.name, passed=False,
                                       failures=[f"crashed: {type(exc).__name__}: {exc}"]))


def scripted_caller(on_said: Callable[[str], None] | None = None):
    """The text simulator's caller, speaking: answers each agent turn from the scenario's script."""

    async def drive(rig: ScenarioCall) -> None:
        caller = SimulatedCaller.of(rig.scenario)
        answered = 0
        while True:
            timing = await rig.turns.get()
            answered += timing.kind == "reply"
            if rig.fast:   # the agent may have answered half the line: wait for the answer to all of it
                timing, answered = await rig.latest_answer(timing, answered)
            move = caller_move(caller, timing)
            if move is None:
                continue
            if move.over:
                return
            if move.hang_up:
                await rig.call.hang_up()
                return
            text = move.say
            rig.said.append(text)
            if on_said is not None:
                on_said(text)
            if not rig.fast:
                await asyncio.sleep(CALLER_PAUSE_S)
            else:  # a caller answers once the agent has finished, not over its last syllable
                await rig.agent_quiet()
            await rig.say(text)

    return drive


async def prepare_spoken(source: str | Path | tuple[Scenario, Any], flow: Flow, runtime: VoiceRuntime, *,
                         label: str | None = None, **options: Any) -> tuple[Path, ScenarioCall | SpokenResult]:
    """A scenario's call made ready (its caller's lines already synthesised), or the failure that stopped it;
    `options` are `ScenarioCall.prepare`'s. A benchmark prepares a wave of calls this way before any of them
    starts, so no call's own work overlaps another caller's synthesis."""
    path, loaded, invalid = source_scenario(source, label)
    if invalid is not None:
        return path, invalid
    scenario, clinic = loaded
    try:
        return path, await ScenarioCall.prepare(scenario, clinic, flow, runtime, **options)
    except Exception as exc:  # one broken call is that scenario's failure
        return path, crashed(path, scenario, exc)


async def play_prepared(path: Path, rig: ScenarioCall, *, on_said: Callable[[str], None] | None = None,
                        keep_tape: bool = False) -> SpokenResult:
    """Play a prepared call to its end and judge it; never raises (a crash is the scenario's failure)."""
    try:
        summary = await rig.run(scripted_caller(on_said))
        verdict, record = await rig.judge(path)
        return spoken_result(verdict, record, summary, rig.said, tape=rig.tape if keep_tape else None,
                             warm_s=rig.warm_s, voice=rig.voice.voice_name)
    except Exception as exc:
        return crashed(path, rig.scenario, exc)
    finally:
        rig.close()


async def play_spoken(source: str | Path | tuple[Scenario, Any], flow: Flow, runtime: VoiceRuntime, *,
                      fast: bool = False, realtime_output: bool | None = None, db_path: str | Path = ":memory:",
                      on_event: Callable[[CallEvent], None] | None = None, on_said: Callable[[str], None] | None = None,
                      label: str | None = None, keep_tape: bool = False, publisher: Any = None,
                      caller: CallerSetup = CallerSetup(), call_class: Any = VoiceCall) -> SpokenResult:
    """Play one scenario as a spoken call by `caller`; never raises for a broken scenario or call (it fails
    instead)."""
    path, rig = await prepare_spoken(source, flow, runtime, label=label, fast=fast, realtime_output=realtime_output,
                                     db_path=db_path, on_event=on_event, publisher=publisher, caller=caller,
                                     call_class=call_class)
    if isinstance(rig, SpokenResult):
        return rig
    return await play_prepared(path, rig, on_said=on_said, keep_tape=keep_tape)
