"""The agent's voice in the pipeline: AgentSpeechFrame in, audio out, sentence by sentence.

Cached phrases (greeting, fillers) play at once; anything else is made by
Piper on a worker thread, phrase by phrase (`tts.phrases`), each pushed the
moment it exists, so a reply's first phrase plays while the rest is made. A
phrase found in the cache (the fixed opening words of a reply template,
"Thanks." of "Thanks. {ask}") is not made again. Nor is the first phrase of a reply made ready (a
PrepareSpeechFrame: the reply the engine worked out ahead while the caller's quiet was waited out, made behind
every call's turns on the TTS lane) when that reply is the one then asked for.
The near silence a voice puts before its first sound is cut from an utterance's first
audio (`audio.trim_leading_quiet`): the caller would hear it as wait.
Around an utterance's audio go a start and an end SpeechMarkFrame, which the
PlaybackMonitor after the output transport turns into "the agent started /
finished saying it". A caller's barge-in (an InterruptionFrame) cancels the
synthesis under way and drops what was queued.

If the voice fails, the cached apology plays instead and the failure is
logged (call id and kind of utterance only, never the words); the call goes on.

The speaker is a Pipecat TTS service: the appliance's AgentSpeechFrame takes the path above, and Pipecat's own
text frames (TTSSpeakFrame, an LLM's TextFrames) are spoken by Pipecat's TTS machinery through `run_tts`, with the
same cache and the same phrases. Another Pipecat TTS service can stand in for it (`[voice] tts_service`,
`service_choice.py`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import AsyncGenerator, Callable

from pipecat.frames.frames import (
    AggregatedTextFrame,
    EndFrame,
    Frame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    SystemFrame,
    TextFrame,
    TTSAudioRawFrame,
    TTSSpeakFrame,
    TTSStartedFrame,
    TTSStoppedFrame,
    TTSUpdateSettingsFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.settings import TTSSettings
from pipecat.services.tts_service import TTSService

from .audio import trim_leading_quiet
from .frames import AgentSpeechFrame, PrepareSpeechFrame, SpeechMarkFrame
from .scheduler import BoxScheduler, Job, Priority, box_scheduler
from .speech_cache import TTS_FALLBACK, SpeechCache
from .tts import PiperSynthesizer, phrases

log = logging.getLogger("appliance.voice")

_DONE = object()


# what Pipecat's TTS machinery speaks or must see; everything else passes through as it comes
_PIPECAT_TTS_FRAMES = (SystemFrame, EndFrame, TextFrame, AggregatedTextFrame, TTSSpeakFrame, LLMFullResponseStartFrame,
                       LLMFullResponseEndFrame, TTSUpdateSettingsFrame)


class PiperSpeaker(TTSService):
    def __init__(self, synthesizer: PiperSynthesizer, cache: SpeechCache, rate: int, *, call_id: str = "-",
                 on_failure: Callable[[AgentSpeechFrame, str], None] | None = None,
                 scheduler: BoxScheduler | None = None, **kwargs):
        voice = getattr(synthesizer, "voice_path", None)
        super().__init__(sample_rate=rate, push_start_frame=True, push_stop_frames=True,
                         settings=TTSSettings(model=None, voice=voice.stem if voice else None, language="en"), **kwargs)
        self.synthesizer = synthesizer
        self.scheduler = scheduler or box_scheduler()   # Piper's lane, shared with every call on the box
        self.cache = cache
        self.rate = rate
        self.call_id = call_id
        self.on_failure = on_failure
        self.failures = 0
        # a reply made ready while the caller's quiet was waited out: (its text, its jobs, the making of its first
        # phrase); see PrepareSpeechFrame
        self._ready: tuple[str, list[Job], asyncio.Task] | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        if isinstance(frame, _PIPECAT_TTS_FRAMES):
            await super().process_frame(frame, direction)
            return
        # the appliance's own speech, and frames passing by, go straight on: Pipecat's TTS service would queue
        # them behind its audio contexts, which the appliance's speech does not use
        await super(TTSService, self).process_frame(frame, direction)
        if isinstance(frame, AgentSpeechFrame):
            await self._speak(frame)
        elif isinstance(frame, PrepareSpeechFrame):
            self._make_ready(frame.text)
        else:
            await self.push_frame(frame, direction)

    async def cleanup(self):
        if self._ready is not None:
            self._ready[2].cancel()
            self._ready = None
        await super().cleanup()

    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame | None, None]:
        """Pipecat's text to speech: phrase by phrase, the cached ones from the cache."""
        cached = self.cache.get(text, self.rate)
        if cached is not None:
            yield TTSAudioRawFrame(audio=cached, sample_rate=self.rate, num_channels=1, context_id=context_id)
            return
        async for pcm in self._synthesise(text):
            yield TTSAudioRawFrame(audio=pcm, sample_rate=self.rate, num_channels=1, context_id=context_id)

    async def _speak(self, frame: AgentSpeechFrame) -> None:
        started = time.perf_counter()
        first = True
        failed = False
        jobs: list[Job] = []

        async def emit(pcm: bytes) -> None:
            nonlocal first
            if first:
                pcm = trim_leading_quiet(pcm, self.rate)   # the voice's lead-in silence is no part of the wait
                first = False
                ms = (time.perf_counter() - started) * 1000
                waited = jobs[0].wait_ms if jobs else None
                await self.push_frame(SpeechMarkFrame(utterance_id=frame.utterance_id, edge="start", first_audio_ms=ms,
                                                      queue_ms=waited or 0.0))
                await self.push_frame(TTSStartedFrame())
            await self.push_frame(TTSAudioRawFrame(audio=pcm, sample_rate=self.rate, num_channels=1))

        cached = self.cache.get(frame.text, self.rate)
        ready = self._take_ready(frame.text) if cached is None else None
        if cached is not None:
            await emit(cached)
        else:
            try:
                made = await self._made_ready(ready, jobs)
                for pcm in made:
                    await emit(pcm)
                async for pcm in self._synthesise(frame.text, jobs, start=1 if made else 0):
                    await emit(pcm)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                failed = True
                self.failures += 1
                log.error("call %s: the voice failed on a %s (%s); %s", self.call_id, frame.kind,
                          type(exc).__name__, "the rest is skipped" if not first else "playing the apology")
                if self.on_failure is not None:
                    self.on_failure(frame, type(exc).__name__)
                fallback = self.cache.get(TTS_FALLBACK, self.rate)
                if first and fallback is not None:
                    await emit(fallback)
        if first:  # nothing at all could be said: still mark the utterance as over
            await self.push_frame(SpeechMarkFrame(utterance_id=frame.utterance_id, edge="start", first_audio_ms=None))
        else:
            await self.push_frame(TTSStoppedFrame())
        await self.push_frame(SpeechMarkFrame(utterance_id=frame.utterance_id, edge="end", failed=failed))

    def _make_ready(self, text: str) -> None:
        """Start making the first phrase of `text`, a reply the agent is likely to say next, behind every call's
        turns on the TTS lane; one such reply at a time (a newer one replaces it)."""
        first = next(iter(phrases(text)), None)
        if first is None or self.cache.get(first, self.rate) is not None:
            return   # nothing to make, or its opening is made already
        if self._ready is not None:
            self._ready[2].cancel()
        jobs: list[Job] = []

        async def make() -> list[bytes]:
            return [pcm async for pcm in self._synthesise(first, jobs, priority=Priority.SPECULATIVE)]

        self._ready = (text, jobs, asyncio.ensure_future(make()))

    def _take_ready(self, text: str) -> tuple[list[Job], asyncio.Task] | None:
        """The making of `text`'s first phrase, if that is the reply made ready; any other is dropped."""
        ready, self._ready = self._ready, None
        if ready is None:
            return None
        if ready[0] != text:
            ready[2].cancel()
            return None
        for job in ready[1]:
            self.scheduler.promote(job, Priority.TURN_ENDED)   # the caller now waits for it
        return ready[1], ready[2]

    async def _made_ready(self, ready: tuple[list[Job], asyncio.Task] | None, jobs: list[Job]) -> list[bytes]:
        """The first phrase made ahead (its job joins `jobs`, for the queue wait), or [] to make it now."""
        if ready is None:
            return []
        ready_jobs, task = ready
        try:
            made = await task
        except asyncio.CancelledError:
            if asyncio.current_task().cancelling():
                raise
            return []
        except Exception:   # made again below; a failing voice fails there, where it is handled
            return []
        jobs.extend(ready_jobs)
        return made

    async def _synthesise(self, text: str, jobs: list[Job] | None = None, *, priority: Priority = Priority.TURN_ENDED,
                          start: int = 0):
        """Sentences from Piper on the box's TTS lane, as they are made, from phrase `start` on; stops the work
        when cancelled. The scheduler's job is added to `jobs`, for its queue wait."""
        loop = asyncio.get_running_loop()
        out: asyncio.Queue = asyncio.Queue()
        stop = threading.Event()

        def work() -> None:
            try:
                for phrase in phrases(text)[start:]:
                    cached = self.cache.get(phrase, self.rate)   # a reply's fixed opening, made before the call
                    for pcm in [cached] if cached is not None else self.synthesizer.phrase(phrase, self.rate, stop):
                        if stop.is_set():
                            return
                        loop.call_soon_threadsafe(out.put_nowait, pcm)
            except BaseException as exc:
                loop.call_soon_threadsafe(out.put_nowait, exc)
            finally:
                loop.call_soon_threadsafe(out.put_nowait, _DONE)

        job = self.scheduler.submit("tts", work, priority=priority, size=len(text),
                                    label=f"call {self.call_id}")
        if jobs is not None:
            jobs.append(job)
        try:
            while True:
                item = await out.get()
                if item is _DONE:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            self.scheduler.cancel(job)   # not started yet: never will be
