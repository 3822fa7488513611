"""One phone call through one Pipecat pipeline.

    transport.input -> VADProcessor (Silero) -> CallerListener (Pipecat STT service: Whisper, turn ends by
        a QuestionTurnAnalyzer on Smart Turn) -> EngineProcessor (the engine, on the call's EngineHost thread)
        -> PiperSpeaker (Pipecat TTS service: Piper and the speech cache) -> transport.output -> PlaybackMonitor

With another Pipecat STT service named in `[voice] stt_service` the ears are that service, Pipecat's
UserTurnProcessor (its default turn strategies) and TranscriptTurns; with another TTS service, TTSHandoff and
that service (see service_choice.py).

    call = VoiceCall(runtime, transport=LineTransport(...), host=host, engine=engine,
                     call_info=CallInfo(caller_id="+61..."))
    summary = await call.run()       # returns when the call is over; call.hang_up() ends it from outside

The models come from the shared VoiceRuntime; a call only builds its
processors (its own VAD stream state on the shared Silero session), so it
starts in a few milliseconds.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from pipecat.audio.vad.vad_analyzer import VAD_STOP_SECS
from pipecat.frames.frames import EndFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.audio.vad_processor import VADProcessor
from pipecat.transports.base_transport import BaseTransport
from pipecat.turns.user_turn_processor import UserTurnProcessor
from pipecat.workers.runner import WorkerRunner

from ..engine.types import CallInfo, TurnResult
from .conversation import EngineProcessor, EventSink, TransferHandler, TurnTiming
from .engine_host import EngineHost
from .listener import CallerListener
from .playback import PlaybackMonitor
from .runtime import VoiceRuntime
from .service_choice import APPLIANCE, build_service, local_model_options
from .speaker import PiperSpeaker
from .stt import hotwords_for
from .transcript_turns import TranscriptTurns
from .tts_handoff import TTSHandoff

log = logging.getLogger("appliance.voice")

END_TIMEOUT_S = 10.0


@dataclass
class CallSummary:
    call_id: str
    outcome: str | None
    timings: list[TurnTiming]
    results: list[TurnResult]
    heard: list[str]
    greeting_delay_ms: float | None
    pipeline_start_ms: float | None
    failures: dict[str, int] = field(default_factory=dict)
    taken_back: int = 0   # replies started ahead of the hand-over and stopped because the caller went on


class VoiceCall:
    def __init__(self, runtime: VoiceRuntime, *, transport: BaseTransport, host: EngineHost, engine: Any,
                 rate: int, call_info: CallInfo = CallInfo(), on_event: EventSink | None = None,
                 on_transfer: TransferHandler | None = None, call_id: str | None = None):
        settings = runtime.settings
        voice = settings.voice
        self.runtime = runtime
        self.host = host
        self.engine = engine
        self.call_id = call_id or call_info.call_id or "-"
        self.conversation = EngineProcessor(
            host=host, engine=engine, call_info=call_info, filler_after_ms=voice.filler_after_ms,
            silence_checkins_s=voice.silence_checkins_s, rephraser=runtime.rephraser,
            timezone=engine.profile.timezone, on_event=on_event, on_transfer=on_transfer, call_id=self.call_id)
        ears = self._ears(runtime, engine, rate, on_event)
        self._build([*ears, self.conversation, *self._voice(runtime, rate)], transport, rate)

    def _ears(self, runtime: VoiceRuntime, engine: Any, rate: int, on_event: EventSink | None) -> list:
        """VAD, STT service and turn ends: the appliance's own listener, or the Pipecat service `[voice]` names
        with Pipecat's own turn handling."""
        voice = runtime.settings.voice
        if voice.stt_service != APPLIANCE:
            self.listener = None
            stt = build_service("stt", voice.stt_service, voice.stt_options,
                                local_model_options("stt", voice.stt_service, runtime))
            analyzer = self.vad_analyzer(VAD_STOP_SECS)
            self.vad = VADProcessor(vad_analyzer=analyzer)
            return [self.vad, stt, UserTurnProcessor(), TranscriptTurns(analyzer.params.stop_secs)]
        hotwords = hotwords_for(engine.catalog, engine.profile) if voice.stt_hotwords else ""
        self.listener = CallerListener(
            transcriber=runtime.transcriber, rate=rate, vad_start_secs=voice.vad_start_secs,
            vad_stop_secs=voice.vad_stop_secs, smart_turn=runtime.smart_turn, barge_in_min_s=voice.barge_in_min_s,
            hotwords=hotwords, call_id=self.call_id, answer_scoring=voice.stt_answer_scoring,
            speak_ahead_s=voice.speak_ahead_s,
            on_barge_in=lambda at: on_event and on_event(_barge_in_event(at)))
        self.conversation.listener = self.listener
        self.vad = VADProcessor(vad_analyzer=self.vad_analyzer(self.listener.vad_pause_secs))
        return [self.vad, self.listener]

    def _voice(self, runtime: VoiceRuntime, rate: int) -> list:
        """The TTS service: the appliance's own speaker, or the Pipecat service `[voice]` names."""
        voice = runtime.settings.voice
        if voice.tts_service != APPLIANCE:
            self.speaker = build_service("tts", voice.tts_service, voice.tts_options,
                                         local_model_options("tts", voice.tts_service, runtime))
            return [TTSHandoff(), self.speaker]
        self.speaker = PiperSpeaker(runtime.synthesizer, runtime.speech_cache, rate, call_id=self.call_id,
                                    on_failure=self.conversation.on_tts_failure)
        return [self.speaker]

    def vad_analyzer(self, stop_secs: float):
        """The call's VAD (its own stream state on the shared Silero session)."""
        return self.runtime.vad_analyzer(stop_secs=stop_secs)

    def _build(self, processors: list, transport: BaseTransport, rate: int) -> None:
        """The pipeline: the transport's input, `processors`, its output, then the playback monitor."""
        self.monitor = PlaybackMonitor(self.conversation.on_mark)
        self.pipeline = Pipeline([transport.input(), *processors, transport.output(), self.monitor])
        self.worker = PipelineWorker(
            self.pipeline, params=PipelineParams(audio_in_sample_rate=rate, audio_out_sample_rate=rate),
            enable_rtvi=False, enable_turn_tracking=False, idle_timeout_secs=None, cancel_on_idle_timeout=False,
            check_dangling_tasks=False)
        self._started_at: float | None = None
        self._pipeline_started_ms: float | None = None

        @self.worker.event_handler("on_pipeline_started")
        async def _started(_worker, _frame):
            self._pipeline_started_ms = (time.time() - self._started_at) * 1000 if self._started_at else None

    async def run(self) -> CallSummary:
        """Answer the call and run it to its end."""
        self._started_at = time.time()
        self.conversation.call_started_at = self._started_at
        self.conversation.answer_call()   # the engine greets while the pipeline starts, not after it
        runner = WorkerRunner(handle_sigint=False, check_dangling_tasks=False)
        await runner.add_workers(self.worker)
        running = asyncio.create_task(runner.run())
        finished = asyncio.create_task(self.conversation.finished.wait())
        try:
            done, _ = await asyncio.wait({running, finished}, return_when=asyncio.FIRST_COMPLETED)
            if finished in done and not running.done():
                await self.worker.queue_frame(EndFrame())
                try:
                    await asyncio.wait_for(asyncio.shield(running), END_TIMEOUT_S)
                except asyncio.TimeoutError:
                    log.warning("call %s: the pipeline did not end in %.0f s; cancelling it", self.call_id,
                                END_TIMEOUT_S)
                    await self.worker.cancel()
                    await running
        finally:
            finished.cancel()
            if not running.done():
                await self.worker.cancel()
                await running
        if not self.conversation.finished.is_set():
            await self._close_record()
        c = self.conversation
        failures = dict(c.failures)
        failures["stt"] = max(failures.get("stt", 0), getattr(self.listener, "stt_failures", 0))
        return CallSummary(
            call_id=self.call_id, outcome=c.outcome, timings=list(c.timings), results=list(c.results),
            heard=list(c.heard), greeting_delay_ms=c.greeting_delay_ms, pipeline_start_ms=self._pipeline_started_ms,
            failures=failures, taken_back=getattr(self.listener, "taken_back", 0))

    async def _close_record(self) -> None:
        """The pipeline ended without the conversation ending the call (cancelled): close the record."""
        try:
            ended = await self.host.call(lambda: self.engine.ended)
            self.conversation.outcome = await self.host.call(self.engine.outcome if ended else self.engine.hangup)
        except Exception as exc:
            log.error("call %s: could not close the call record (%s)", self.call_id, type(exc).__name__)

    async def hang_up(self, cut: tuple | None = None) -> None:
        """The caller hung up (or `cut`: (outcome, reason, staff user) says who ended the call and why): close the
        record and end the pipeline."""
        await self.conversation.hang_up(cut)


def _barge_in_event(at: float):
    from .conversation import CallEvent

    return CallEvent("barge_in", data={"at": at})


def clinic_lines_for(flow, store, clock) -> list[str]:
    """The greeting a call from a withheld number would get, then every reply whose only facts are the clinic's
    own (its name, phone number, the emergency number: "Thank you for calling {clinic}. Goodbye."), worded as a
    call would word them, without recording anything.

    Run it where `store` may be used (its database's thread); the runtime then
    synthesises them before the phone rings (`VoiceRuntime.warm_clinic`), so a call's last words wait on no model.
    """
    from ..engine.engine import Engine
    from ..engine.replies import CLINIC_FACTS, Facts, placeholders, render

    engine = Engine(flow=flow, store=store, clock=clock, recorder=None)
    lines = [engine.start(CallInfo()).reply]
    facts = Facts(engine.ctx, engine.env, clock.now())
    for texts in flow.templates.values():
        for text in texts if isinstance(texts, (list, tuple)) else [texts]:
            if placeholders(str(text)) <= CLINIC_FACTS:
                lines.append(render(str(text), facts))
    return list(dict.fromkeys(lines))
