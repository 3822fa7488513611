"""An in-memory phone line: caller audio in from a queue, agent audio out to a tape.

Like a real line, the input never stops: when the caller says nothing it
sends silence (or the caller's background noise, looped), one 20 ms frame
every 20 ms. Caller speech can be sent in
real time or, for tests, as fast as the pipeline takes it (`fast=True`); the
output can pace itself to real time (`realtime=True`, as a phone would play
it) or take audio as fast as it comes.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Callable

from pipecat.frames.frames import InputAudioRawFrame, OutputAudioRawFrame, StartFrame
from pipecat.processors.frame_processor import FrameProcessor
from pipecat.transports.base_output import BaseOutputTransport
from pipecat.transports.base_transport import BaseTransport, TransportParams

from ..audio import FRAME_MS, CallTape, frame_bytes, silence
from .pumped_input import PumpedInput

FRAME_S = FRAME_MS / 1000


class CallerLine:
    """What the caller sends down the line: queued speech, else silence (or `background`)."""

    def __init__(self, rate: int, *, fast: bool = False, tape: CallTape | None = None, background: bytes | None = None):
        self.rate = rate
        self.fast = fast
        self.tape = tape
        self._pending: deque[tuple[bytes, asyncio.Future]] = deque()
        self._frame = frame_bytes(rate)
        self.sent_s = 0.0            # line time: seconds of audio sent so far
        # what the line carries while the caller says nothing, looped (a room's noise); None: silence
        self.background = background
        self._background_at = 0

    def _quiet(self) -> bytes:
        loop = self.background
        if not loop:
            return silence(FRAME_S, self.rate)
        at = self._background_at
        frame = (loop[at: at + self._frame] + loop[: max(0, at + self._frame - len(loop))])[: self._frame]
        self._background_at = (at + self._frame) % len(loop)
        return frame

    def say(self, pcm: bytes) -> asyncio.Future:
        """Queue caller speech (PCM at the line's rate); the future resolves when it has all been sent."""
        done = asyncio.get_running_loop().create_future()
        pad = (-len(pcm)) % self._frame
        self._pending.append((pcm + bytes(pad), done))
        return done

    @property
    def speaking(self) -> bool:
        return bool(self._pending)

    async def frames(self):
        due = time.monotonic()
        while True:
            if self._pending:
                pcm, done = self._pending[0]
                if self.tape is not None:
                    self.tape.caller_line_starts(len(pcm) // 2)
                for offset in range(0, len(pcm), self._frame):
                    chunk = pcm[offset: offset + self._frame]
                    if self.fast:
                        await asyncio.sleep(0)
                        due = time.monotonic()
                    else:
                        due = await _wait_until(due)
                    yield chunk
                self._pending.popleft()
                if not done.done():
                    done.set_result(True)
                if self.fast:
                    # the silence that lets the VAD hear the end, sent at once too
                    for _ in range(int(1.0 / FRAME_S)):
                        await asyncio.sleep(0)
                        yield self._quiet()
                    due = time.monotonic()
                continue
            due = await _wait_until(due)
            yield self._quiet()

    def note_sent(self, pcm: bytes) -> None:
        self.sent_s += len(pcm) / 2 / self.rate
        if self.tape is not None:
            self.tape.caller(pcm)


async def _wait_until(due: float) -> float:
    delay = due - time.monotonic()
    if delay > 0:
        await asyncio.sleep(delay)
    elif delay < -0.5:  # fell far behind (a stalled loop): do not burst to catch up
        due = time.monotonic()
    return due + FRAME_S


class LineInput(PumpedInput):
    def __init__(self, params: TransportParams, line: CallerLine, **kwargs):
        super().__init__(params, **kwargs)
        self.line = line

    async def _pump(self):
        async for pcm in self.line.frames():
            self.line.note_sent(pcm)
            await self.push_audio_frame(InputAudioRawFrame(audio=pcm, sample_rate=self.line.rate, num_channels=1))


class LineOutput(BaseOutputTransport):
    def __init__(self, params: TransportParams, *, realtime: bool, tape: CallTape | None = None,
                 on_audio: Callable[[bytes], None] | None = None, **kwargs):
        super().__init__(params, **kwargs)
        self.realtime = realtime
        self.tape = tape
        self.on_audio = on_audio
        self._due = 0.0
        self.written_s = 0.0

    async def start(self, frame: StartFrame):
        await super().start(frame)
        await self.set_transport_ready(frame)

    async def write_audio_frame(self, frame: OutputAudioRawFrame) -> bool:
        if self.tape is not None:
            self.tape.agent(frame.audio)
        if self.on_audio is not None:
            self.on_audio(frame.audio)
        length = len(frame.audio) / 2 / frame.sample_rate / max(1, frame.num_channels)
        self.written_s += length
        if self.realtime:
            now = time.monotonic()
            self._due = max(self._due, now) + length
            # hand the frame over, then hold the next one until this one has nearly played
            lead = self._due - now - length
            if lead > 0:
                await asyncio.sleep(lead)
        return True


class LineTransport(BaseTransport):
    """Both ends of the in-memory line."""

    def __init__(self, line: CallerLine, *, realtime_output: bool, tape: CallTape | None = None):
        super().__init__()
        rate = line.rate
        self.params = TransportParams(
            audio_in_enabled=True, audio_in_sample_rate=rate, audio_in_passthrough=True,
            audio_out_enabled=True, audio_out_sample_rate=rate, audio_out_10ms_chunks=2,
            audio_out_end_silence_secs=0,
        )
        self.line = line
        self._input = LineInput(self.params, line)
        self._output = LineOutput(self.params, realtime=realtime_output, tape=tape)

    def input(self) -> FrameProcessor:
        return self._input

    def output(self) -> FrameProcessor:
        return self._output
