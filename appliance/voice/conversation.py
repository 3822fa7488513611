"""The EngineProcessor: caller turns in, the engine's answers out as speech.

For each CallerTurnFrame it asks the engine (on the call's EngineHost
thread), optionally lets the rephraser reword the reply within its budget,
and has the reply spoken. Around that it keeps the call from ever going
quiet:

- the greeting is spoken the moment the call is up (cached audio);
- a filler is spoken when the engine has not answered within `filler_after_ms`
  (a tool or the LLM being slow), one of several and never the one said last,
  then holding lines while it still works (a slow or locked database: the
  store retries within its budget), each HOLD_GAP_S after the last one ended;
- when the caller says nothing, `engine.check_in(n)` at each of
  `silence_checkins_s` (counted from the end of the agent's last prompt),
  then `engine.silence_goodbye()` once the quiet has lasted the last check-in
  time plus the first one (10, 20, 40 -> goodbye at 50 s);
- when STT fails the engine is given an empty turn, so it asks again; so
  it is when the caller spoke where a short answer was expected and no
  words could be made out (an "uh-huh" Whisper writes as nothing): the
  engine asks again rather than checking in about a silence; a
  failing LLM is the engine's and the rephraser's business (template reply);
  a failing voice plays the cached apology (see PiperSpeaker);
- an ended call speaks its goodbye fully, then hangs up or hands the caller
  to the transfer handler (`on_transfer(number) -> bool`; False means the
  transfer failed and `engine.transfer_failed()` takes over).

Every turn's timings go to the call record once its reply has been played
(or cut off by a barge-in); a reply played to its end that confirmed a
booking marks it heard (`reply_heard`). A call ended from outside the
conversation closes its record with why (`hang_up(cut=(outcome, reason,
user))`: staff, a shutdown); an engine that breaks outside its own guard ends
the call with an apology as `engine_error`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import random
import time
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, Awaitable, Callable
from zoneinfo import ZoneInfo

from pipecat.frames.frames import Frame, InterruptionFrame, StartFrame, VADUserStartedSpeakingFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from ..engine.types import CallInfo, TurnResult
from .engine_host import EngineHost
from .frames import (AgentSpeechFrame, CallerTurnFrame, PrepareSpeechFrame, ProvisionalTurnFrame, SpeakAheadFrame,
                     SpeechMarkFrame)
from .speech_cache import ENGINE_FAILED_LINE, FILLERS, HOLDING_LINES

log = logging.getLogger("appliance.voice")

TransferHandler = Callable[[str], Awaitable[bool]]
EventSink = Callable[["CallEvent"], None]
# why a call was ended from outside the conversation: (outcome, reason, staff user or None); engine.cut's arguments
Cut = tuple[str, str, "str | None"]

HOLD_GAP_S = 0.6        # the longest quiet between holding lines while a turn takes long
HOLD_LINE_WAIT_S = 10.0  # a holding line that never reports played is given up on after this
# how long a reply asked to play ahead of its turn's hand-over may take to be worked out; later, it waits for the turn
AHEAD_WAIT_S = 0.15


@dataclass
class TurnTiming:
    """One agent turn, as the caller lived it (wall-clock time.time() moments)."""

    seq: int
    kind: str                         # greeting | reply | checkin | goodbye | transfer_failed
    caller_text: str = ""
    agent_text: str = ""
    state: str = ""
    waiting_for: str = ""
    speech_start: float | None = None
    speech_end: float | None = None
    turn_end: float | None = None
    heard_at: float | None = None
    decoded_at: float | None = None   # the transcript ready (heard_at is later by the listener's hand-over hold)
    stt_ms: float | None = None
    queue_ms: float | None = None     # waited on the box's scheduler: the turn's decode, its LLM calls, the reply's first phrase
    stt_speculative: bool = False     # the transcript came from a decode started before the turn was over
    stt_audio_s: float | None = None
    engine_ms: float | None = None    # engine call as the pipeline saw it (thread hop and record write included)
    llm_ms: float | None = None
    rephrase: str | None = None       # the rephraser's verdict when it ran
    reply_ready: float | None = None
    tts_first_audio_ms: float | None = None
    agent_start: float | None = None
    agent_end: float | None = None
    cut: bool = False
    barge_in: bool = False
    tts_failed: bool = False
    stt_failed: bool = False
    unheard: bool = False             # the caller spoke and no words were made out
    filler: bool = False
    spoken_ahead: bool = False        # the reply started playing before the turn was handed over (SpeakAheadFrame)
    result: TurnResult | None = None

    @property
    def latency_ms(self) -> float | None:
        """End of the caller's speech to the first audio of the agent's answer."""
        if self.speech_end is None or self.agent_start is None:
            return None
        return (self.agent_start - self.speech_end) * 1000


@dataclass
class CallEvent:
    kind: str                         # heard | speaking | turn | filler | barge_in | failure | ended
    timing: TurnTiming | None = None
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Speech:
    utterance_id: int
    kind: str
    started: asyncio.Event = field(default_factory=asyncio.Event)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    first_audio_ms: float | None = None
    queue_ms: float = 0.0
    agent_start: float | None = None
    agent_end: float | None = None
    cut: bool = False
    failed: bool = False


@dataclass
class _Ahead:
    """The reply worked out for a caller's words before their turn was handed over (ProvisionalTurnFrame), and,
    once the listener says so (SpeakAheadFrame), its speech, playing ahead of the hand-over."""
    words: str                   # the caller's words it answers
    turns_in: int                # the caller turns taken before them
    reply: asyncio.Future        # the engine's reply to them (None: none to be had)
    said: str | None = None      # the reply playing ahead
    speech: _Speech | None = None


class EngineProcessor(FrameProcessor):
    def __init__(self, *, host: EngineHost, engine: Any, call_info: CallInfo = CallInfo(),
                 filler_after_ms: float = 400, silence_checkins_s: tuple[float, ...] = (10, 20, 40),
                 rephraser: Any = None, timezone: str | None = None, on_event: EventSink | None = None,
                 on_transfer: TransferHandler | None = None, call_id: str = "-", **kwargs):
        super().__init__(**kwargs)
        self.host = host
        self.engine = engine
        self.call_info = call_info
        self.filler_after_ms = filler_after_ms
        self.silence_checkins_s = tuple(silence_checkins_s)
        self.rephraser = rephraser
        self.zone = ZoneInfo(timezone) if timezone else None
        self.on_event = on_event
        self.on_transfer = on_transfer
        self.call_id = call_id
        self.timings: list[TurnTiming] = []
        self.results: list[TurnResult] = []
        self.heard: list[str] = []          # what the engine was given, per result ("" for greeting/check-ins)
        self.outcome: str | None = None
        self.finished = asyncio.Event()
        self.failures: dict[str, int] = {"stt": 0, "tts": 0, "llm": 0, "engine": 0, "record": 0}
        self.call_started_at: float | None = None
        self.greeting_delay_ms: float | None = None
        self.listener: Any = None            # the CallerListener, told when the call stops listening
        self._inbox: asyncio.Queue = asyncio.Queue()
        self._speeches: dict[int, _Speech] = {}
        self._ahead: _Ahead | None = None
        self._ids = itertools.count(1)
        self._main: asyncio.Task | None = None
        self._answering: asyncio.Future | None = None   # the engine's greeting, asked for as the call is run
        self._silence: asyncio.Task | None = None
        self._silence_attempts = 0
        self._hung_up = False
        self._turns_in = 0   # caller turns received: a reply made ready for words since taken is not sent
        self._cut: Cut | None = None
        self._keep = self._names_to_keep()
        self._fillers = random.Random(call_id)   # seeded by the call: a rerun says the same ones
        self._last_filler: str | None = None

    # ------------------------------------------------------------ pipeline side

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            await self.push_frame(frame, direction)
            if self._main is None:
                self._main = self.create_task(self._run())
            return
        if isinstance(frame, CallerTurnFrame):
            self._turns_in += 1
            self._inbox.put_nowait(("turn", frame))
            return
        if isinstance(frame, ProvisionalTurnFrame):
            self.create_task(self._prepare_reply(frame, self._turns_in))
            return
        if isinstance(frame, SpeakAheadFrame):
            self.create_task(self._speak_ahead(frame.text, self._turns_in))
            return
        if isinstance(frame, VADUserStartedSpeakingFrame):
            self._stop_silence_timer()
        elif isinstance(frame, InterruptionFrame):
            self._cut_speech()
        await self.push_frame(frame, direction)

    def on_mark(self, mark: SpeechMarkFrame, at: float) -> None:
        """Called by the PlaybackMonitor as the agent's audio is played."""
        speech = self._speeches.get(mark.utterance_id)
        if speech is None:
            return
        if mark.edge == "start":
            speech.first_audio_ms = mark.first_audio_ms
            speech.queue_ms = mark.queue_ms
            speech.agent_start = at if mark.first_audio_ms is not None else None
            speech.started.set()
            self._emit(CallEvent("speaking", data={"kind": speech.kind, "at": at}))
        else:
            speech.agent_end = at
            speech.failed = mark.failed
            speech.finished.set()
            self._speeches.pop(mark.utterance_id, None)

    def on_tts_failure(self, frame: AgentSpeechFrame, reason: str) -> None:
        self.failures["tts"] += 1
        self._emit(CallEvent("failure", text="tts", data={"kind": frame.kind, "error": reason}))

    def _cut_speech(self) -> None:
        self._ahead = None
        now = time.time()
        for speech in list(self._speeches.values()):
            speech.cut = True
            if speech.agent_start is not None and speech.agent_end is None:
                speech.agent_end = now
            speech.started.set()
            speech.finished.set()
        self._speeches.clear()

    async def hang_up(self, cut: Cut | None = None) -> None:
        """The caller hung up (or the line dropped), or `cut` says who ended the call and why: stop waiting on
        playback and close the call."""
        if cut is not None and self._cut is None:
            self._cut = cut
        self._hung_up = True
        self._stop_silence_timer()
        self._cut_speech()
        self._inbox.put_nowait(("hangup", None))

    # ------------------------------------------------------------ the call

    async def _run(self) -> None:
        try:
            await self._greet()
            while not self.finished.is_set():
                kind, item = await self._inbox.get()
                if kind == "turn":
                    await self._caller_turn(item)
                elif kind == "silence":
                    await self._silence_turn(item)
                elif kind == "hangup":
                    await self._caller_hung_up()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("call %s: the voice conversation broke; closing the call record", self.call_id)
            await self._close_record(("engine_error", f"the voice conversation broke ({type(exc).__name__})", None))

    def answer_call(self) -> None:
        """Start answering now, on the engine's thread: the engine's greeting and the names on the caller's number,
        in one hop, while the pipeline is still starting (VoiceCall.run calls it first; `_greet` awaits it)."""
        if self._answering is None:
            self._answering = asyncio.ensure_future(self.host.call(self._start_engine))
            # a call torn down before its greeting: the engine's failure is the record's business, not the loop's log
            self._answering.add_done_callback(lambda done: done.cancelled() or done.exception())

    def _start_engine(self) -> tuple[TurnResult, list[str]]:
        """On the engine's thread: the greeting (the engine's, or a call started already) and the patients' names
        on the caller's number (never fails for the names: they only help STT)."""
        result = self.engine.greeting if self.engine.greeting is not None else self.engine.start(self.call_info)
        try:
            names = [f"{p.first_name} {p.last_name}" for p in getattr(self.engine.ctx, "phone_candidates", ())]
        except Exception:
            names = []
        return result, names

    async def _greet(self) -> None:
        """The greeting, the moment the engine has it: a cached phrase plays without any model work (it never
        waits on the box's scheduler), so under load it waits only for the engine's one hop."""
        started = time.time()
        self.answer_call()
        result, names = await self._answering
        timing = TurnTiming(seq=result.seq, kind="greeting", engine_ms=(time.time() - started) * 1000,
                            reply_ready=time.time())
        self._hear_known_names(names)
        await self._answer(result, timing, caller_text="")
        if timing.agent_start is not None and self.call_started_at is not None:
            self.greeting_delay_ms = (timing.agent_start - self.call_started_at) * 1000

    def _hear_known_names(self, names: list[str]) -> None:
        """The names of the patients on the caller's number join Whisper's hot words for this call.

        Caller ID only narrows (the engine still asks for the name and date of
        birth); here it just helps STT hear a name it is likely to be told.
        """
        if self.listener is None or not self.listener.hotwords or not names:
            return
        self.listener.hotwords = ", ".join(dict.fromkeys(names)) + ", " + self.listener.hotwords

    async def _caller_turn(self, frame: CallerTurnFrame) -> None:
        self._stop_silence_timer()
        if self.finished.is_set() or self._hung_up:
            return
        self._emit(CallEvent("heard", text=frame.text, data={"stt_failed": frame.stt_failed, "unheard": frame.unheard}))
        if not frame.text and not frame.stt_failed and not frame.unheard:  # noise, no words: keep waiting
            self._start_silence_timer(keep_attempts=True)
            return
        if frame.stt_failed:
            self.failures["stt"] += 1
        self._silence_attempts = 0
        timing = TurnTiming(seq=-1, kind="reply", caller_text=frame.text, speech_start=frame.speech_start,
                            speech_end=frame.speech_end, turn_end=frame.turn_end, heard_at=frame.heard_at,
                            stt_ms=round(frame.stt_ms, 1), decoded_at=frame.decoded_at or None,
                            queue_ms=round(frame.stt_wait_ms, 1), stt_speculative=frame.stt_speculative,
                            stt_audio_s=frame.audio_s, stt_failed=frame.stt_failed, unheard=frame.unheard,
                            barge_in=frame.barged_in)
        result = await self._ask_engine(timing, partial(self.engine.turn, doubtful=frame.doubtful), frame.text)
        if result is None:
            return
        await self._answer(result, timing, caller_text=frame.text, ahead=await self._reply_ahead(result.reply))

    async def _ask_engine(self, timing: TurnTiming, method, *args) -> TurnResult | None:
        delay = self.filler_after_ms / 1000
        if timing.turn_end is not None and self._write_may_follow():
            # after a read-back the answer may start a write, and the caller has already waited through the
            # transcription: the filler comes `filler_after_ms` after their turn ended, not after the engine began
            delay = max(0.0, delay - (time.time() - timing.turn_end))
        filler = self.create_task(self._filler_after(delay, timing))
        started = time.time()
        try:
            result, llm_ms, llm_wait_ms = await self.host.call(_with_llm_ms, self.engine, method, *args)
        except Exception as exc:
            self.failures["engine"] += 1
            log.error("call %s: the engine failed outside its own guard (%s)", self.call_id, type(exc).__name__)
            await self.cancel_task(filler)
            await self._stop_ahead()   # a reply the engine never gave is not said before the apology
            await self._say(ENGINE_FAILED_LINE, seq=-1, kind="fallback")      # played before the line is closed
            await self._close_record(("engine_error", f"the engine failed outside its own guard "
                                                      f"({type(exc).__name__})", None))
            return None
        timing.engine_ms = round((time.time() - started) * 1000, 1)
        timing.llm_ms = llm_ms
        timing.queue_ms = round((timing.queue_ms or 0.0) + llm_wait_ms, 1) if llm_wait_ms else timing.queue_ms
        if self.rephraser is not None and result.reply and not result.ended:
            result = await self._rephrase(result, timing)
        await self.cancel_task(filler)
        timing.reply_ready = time.time()
        return result

    async def _rephrase(self, result: TurnResult, timing: TurnTiming) -> TurnResult:
        loop = asyncio.get_running_loop()
        try:
            attempt = await loop.run_in_executor(None, self.rephraser.attempt, result.reply, self._keep)
        except Exception as exc:  # the rephraser never raises; belt and braces
            self.failures["llm"] += 1
            log.warning("call %s: rephraser failed (%s); the template is spoken", self.call_id, type(exc).__name__)
            return result
        timing.rephrase = attempt.reason
        timing.llm_ms = round((timing.llm_ms or 0) + attempt.ms, 1)
        if attempt.queue_ms:
            timing.queue_ms = round((timing.queue_ms or 0.0) + attempt.queue_ms, 1)
        if attempt.reason in ("failed",):
            self.failures["llm"] += 1
        if attempt.used:
            return dataclasses.replace(result, reply=attempt.text)
        return result

    async def _prepare_reply(self, frame: ProvisionalTurnFrame, turns_in: int) -> None:
        """While the listener waits out the quiet after `frame`'s words: the reply the engine would give them, worked
        out on a copy of the call that changes nothing, goes to the speaker to be made ready. Not where the LLM
        rewords replies (the words would differ), nor once the turn has been taken."""
        preview = getattr(self.engine, "preview", None)
        if preview is None or self.rephraser is not None or self.finished.is_set() or self._hung_up:
            return
        ahead = self._ahead = _Ahead(frame.text, turns_in, asyncio.get_running_loop().create_future())
        reply = None
        try:
            reply = await self.host.call(preview, frame.text, doubtful=frame.doubtful)
        except Exception as exc:   # only a head start lost: the turn itself is taken as ever
            log.debug("call %s: no reply made ready (%s)", self.call_id, type(exc).__name__)
        finally:
            ahead.reply.set_result(reply)
        if reply and self._turns_in == turns_in and not self.finished.is_set():
            await self.push_frame(PrepareSpeechFrame(text=reply))

    async def _speak_ahead(self, words: str, turns_in: int) -> None:
        """The listener has heard enough quiet after `words` to start their reply before the turn is handed over:
        the reply worked out for them plays now, if it is ready within AHEAD_WAIT_S and nothing else is said."""
        ahead = self._ahead
        if ahead is None or ahead.words != words or ahead.turns_in != turns_in:
            return
        try:
            reply = await asyncio.wait_for(asyncio.shield(ahead.reply), AHEAD_WAIT_S)
        except asyncio.TimeoutError:
            return
        if (not reply or self._ahead is not ahead or self._turns_in != turns_in or self._speeches
                or self.finished.is_set() or self._hung_up):
            return
        ahead.said = reply
        ahead.speech = self._new_speech("reply")
        await self.push_frame(AgentSpeechFrame(text=reply, seq=-1, kind="reply",
                                               utterance_id=ahead.speech.utterance_id))

    async def _reply_ahead(self, reply: str) -> _Speech | None:
        """The speech already playing `reply`, started ahead of the turn's hand-over; a reply playing ahead that is
        not this one stops (the engine answered otherwise than its preview)."""
        ahead = self._ahead
        if ahead is not None and ahead.speech is not None and not ahead.speech.cut and ahead.said == reply:
            self._ahead = None
            return ahead.speech
        if await self._stop_ahead():
            log.info("call %s: the reply started ahead is not the engine's; it stops", self.call_id)
        return None

    async def _stop_ahead(self) -> bool:
        """Stop a reply playing ahead of the turn's hand-over, if one is: the turn came to say something else (or
        nothing it could say). Whether one was playing."""
        ahead, self._ahead = self._ahead, None
        if ahead is None or ahead.speech is None or ahead.speech.cut:
            return False
        await self.broadcast_interruption()
        self._cut_speech()
        return True

    def _write_may_follow(self) -> bool:
        """The last question was a read-back: a yes now runs a write (a store that is slow or locked)."""
        question = self.results[-1].question if self.results else None
        return question is not None and question.read_back

    async def _filler_after(self, delay: float, timing: TurnTiming) -> None:
        """A filler after `delay`; then, while the engine still works, a holding line HOLD_GAP_S after each one
        has played (cancelled the moment the answer is ready)."""
        await asyncio.sleep(delay)
        timing.filler = True
        self._emit(CallEvent("filler"))
        line = self._next_filler()
        for held in itertools.count():
            speech = await self._say(line, seq=-1, kind="filler")
            try:
                await asyncio.wait_for(speech.finished.wait(), HOLD_LINE_WAIT_S)
            except asyncio.TimeoutError:
                pass
            await asyncio.sleep(HOLD_GAP_S)
            line = HOLDING_LINES[held % len(HOLDING_LINES)]
            self._emit(CallEvent("holding", data={"n": held + 1}))

    def _next_filler(self) -> str:
        """A filler other than the last one said (a caller hears the same words twice in a row as a machine)."""
        choices = [line for line in FILLERS if line != self._last_filler] or list(FILLERS)
        self._last_filler = self._fillers.choice(choices)
        return self._last_filler

    async def _answer(self, result: TurnResult, timing: TurnTiming, *, caller_text: str,
                      ahead: _Speech | None = None) -> None:
        """Speak a TurnResult (`ahead`: it is playing already), wait until it has been played (or cut), record it,
        then act on the ending."""
        timing.seq = result.seq
        timing.agent_text = result.reply
        timing.state = result.state
        timing.waiting_for = result.waiting_for
        timing.result = result
        self.results.append(result)
        self.heard.append(caller_text)
        if self.listener is not None:
            question = result.question
            self.listener.question = question
            # what the next answer is likely to hold (none when hot words are off in the settings)
            prompt = question.stt_prompt if question is not None else None
            self.listener.turn_hotwords = (prompt or "") if self.listener.hotwords else ""
            self.listener.expected = result.expected
            if hasattr(self.engine, "understand_answer"):
                self.listener.understand = lambda text: self.host.run(self.engine.understand_answer, text)
        speech = ahead or await self._say(result.reply, seq=result.seq, kind=timing.kind)
        timing.spoken_ahead = ahead is not None
        await speech.finished.wait()
        timing.tts_first_audio_ms = round(speech.first_audio_ms, 1) if speech.first_audio_ms is not None else None
        timing.queue_ms = round((timing.queue_ms or 0.0) + speech.queue_ms, 1)
        timing.agent_start = speech.agent_start
        timing.agent_end = speech.agent_end or time.time()
        timing.cut = speech.cut
        timing.tts_failed = speech.failed
        self.timings.append(timing)
        await self._record_timing(timing)
        if not speech.cut and not speech.failed and _confirms_a_booking(result):
            await self._record_heard(result.seq)
        self._emit(CallEvent("turn", timing=timing))
        if self._hung_up:
            return
        if result.ended:
            await self._ended(result)
        elif timing.kind != "checkin":
            self._start_silence_timer()

    async def _say(self, text: str, *, seq: int, kind: str) -> _Speech:
        speech = self._new_speech(kind)
        await self.push_frame(AgentSpeechFrame(text=text, seq=seq, kind=kind, utterance_id=speech.utterance_id))
        return speech

    def _new_speech(self, kind: str) -> _Speech:
        speech = _Speech(next(self._ids), kind)
        self._speeches[speech.utterance_id] = speech
        return speech

    async def _ended(self, result: TurnResult) -> None:
        if result.transfer:
            ok = True
            if self.on_transfer is not None:
                # what the caller says while the line puts them through (on hold, for a warm transfer) is not
                # an answer to anything: not heard, and dropped if it was already
                self._listening(False)
                try:
                    ok = await self.on_transfer(result.transfer_to or "")
                except Exception as exc:
                    log.error("call %s: the transfer handler failed (%s)", self.call_id, type(exc).__name__)
                    ok = False
                self._drop_queued_turns()
                self._listening(not ok)
            if not ok:
                timing = TurnTiming(seq=-1, kind="transfer_failed")
                again = await self._ask_engine(timing, self.engine.transfer_failed)
                if again is not None:
                    await self._answer(again, timing, caller_text="")
                return
        self._finish(result.outcome)

    def _listening(self, on: bool) -> None:
        if self.listener is not None:
            self.listener.accepting = on

    def _drop_queued_turns(self) -> None:
        kept = []
        while not self._inbox.empty():
            item = self._inbox.get_nowait()
            if item[0] != "turn":
                kept.append(item)
        for item in kept:
            self._inbox.put_nowait(item)

    def _finish(self, outcome: str | None) -> None:
        self.outcome = outcome
        if self.listener is not None:
            self.listener.accepting = False
        self._stop_silence_timer()
        self._emit(CallEvent("ended", data={"outcome": outcome}))
        self.finished.set()

    async def _caller_hung_up(self) -> None:
        if self.finished.is_set():
            return
        try:
            if self._cut is not None:
                outcome, reason, user = self._cut
                outcome = await self.host.call(lambda: self.engine.cut(outcome, reason, by=user))
            else:
                outcome = await self.host.call(self.engine.hangup)
        except Exception as exc:
            self.failures["record"] += 1
            log.error("call %s: could not close the call record (%s)", self.call_id, type(exc).__name__)
            outcome = None
        self._finish(outcome)

    async def _close_record(self, cut: Cut | None = None) -> None:
        """Something outside the engine broke: make sure the call record still ends (as `cut` says, when given)."""
        try:
            if not await self.host.call(lambda: self.engine.ended):
                if cut is not None and hasattr(self.engine, "cut"):
                    outcome = await self.host.call(lambda: self.engine.cut(cut[0], cut[1], by=cut[2]))
                else:
                    outcome = await self.host.call(self.engine.hangup)
            else:
                outcome = await self.host.call(self.engine.outcome)
        except Exception:
            outcome = None
        self._finish(outcome)

    # ------------------------------------------------------------ silence

    def _start_silence_timer(self, *, keep_attempts: bool = False) -> None:
        self._stop_silence_timer()
        if self.finished.is_set() or not self.silence_checkins_s:
            return
        if not keep_attempts:
            self._silence_attempts = 0
        self._silence = self.create_task(self._silence_clock(self._silence_attempts))

    def _stop_silence_timer(self) -> None:
        if self._silence is not None and not self._silence.done():
            self._silence.cancel()
        self._silence = None

    async def _silence_clock(self, done_attempts: int) -> None:
        """Put a "silence" item in the inbox at each check-in moment, then at the goodbye moment."""
        marks = list(self.silence_checkins_s) + [self.silence_checkins_s[-1] + self.silence_checkins_s[0]]
        started = time.monotonic()
        offset = marks[done_attempts - 1] if done_attempts else 0.0
        for attempt in range(done_attempts + 1, len(marks) + 1):
            await asyncio.sleep(max(0.0, started + marks[attempt - 1] - offset - time.monotonic()))
            self._inbox.put_nowait(("silence", attempt))

    async def _silence_turn(self, attempt: int) -> None:
        if self.finished.is_set() or self._hung_up:
            return
        self._silence_attempts = attempt
        if attempt <= len(self.silence_checkins_s):
            timing = TurnTiming(seq=-1, kind="checkin")
            result = await self._ask_engine(timing, self.engine.check_in, attempt)
        else:
            self._stop_silence_timer()
            timing = TurnTiming(seq=-1, kind="goodbye")
            result = await self._ask_engine(timing, self.engine.silence_goodbye)
        if result is not None:
            await self._answer(result, timing, caller_text="")

    # ------------------------------------------------------------ records and events

    def _moment(self, at: float | None) -> datetime | None:
        if at is None:
            return None
        moment = datetime.fromtimestamp(at, self.zone) if self.zone else datetime.fromtimestamp(at)
        return moment.replace(tzinfo=None)

    async def _record_timing(self, timing: TurnTiming) -> None:
        recorder = getattr(self.engine, "recorder", None)
        if recorder is None or timing.seq < 0:
            return
        fields: dict[str, Any] = {
            "speech_start": self._moment(timing.speech_start), "speech_end": self._moment(timing.speech_end),
            "stt_ms": timing.stt_ms, "tts_first_audio_ms": timing.tts_first_audio_ms,
            "agent_speech_start": self._moment(timing.agent_start), "agent_speech_end": self._moment(timing.agent_end),
        }
        if timing.rephrase is not None:
            fields["llm_ms"] = timing.llm_ms
        fields = {name: value for name, value in fields.items() if value is not None}
        try:
            await self.host.call(recorder.turn_timing, call_id=self.engine.ctx.call_id, seq=timing.seq, **fields)
        except Exception as exc:
            self.failures["record"] += 1
            log.error("call %s: turn %d timings not recorded (%s)", self.call_id, timing.seq, type(exc).__name__)

    async def _record_heard(self, seq: int) -> None:
        recorder = getattr(self.engine, "recorder", None)
        if recorder is None or not hasattr(recorder, "reply_heard"):
            return
        try:
            await self.host.call(recorder.reply_heard, call_id=self.engine.ctx.call_id, seq=seq)
        except Exception as exc:
            self.failures["record"] += 1
            log.error("call %s: turn %d not recorded as heard (%s)", self.call_id, seq, type(exc).__name__)

    def _emit(self, event: CallEvent) -> None:
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:
                log.exception("call %s: event handler failed", self.call_id)

    def _names_to_keep(self) -> tuple[str, ...]:
        catalog = getattr(self.engine, "catalog", None)
        if catalog is None:
            return ()
        names: list[str] = []
        for group in (catalog.practitioners, catalog.services, catalog.locations):
            for item in group:
                names.append(item.name)
        return tuple(names)


def _confirms_a_booking(result: TurnResult) -> bool:
    """The reply tells the caller about an appointment a write of this turn made."""
    return any(tool.ok and "appointment" in tool.result for tool in result.tools)


def _with_llm_ms(engine: Any, method, *args) -> tuple[TurnResult, float | None, float]:
    """Run an engine method on the host thread; also return the LLM time the engine measured and how long its
    LLM calls waited on the box's scheduler (the classifier runs on this thread)."""
    from ..language.time_budget import take_wait_ms

    take_wait_ms()
    result = method(*args)
    return result, getattr(engine, "llm_ms", None), take_wait_ms()
