"""The phone line as a Pipecat transport: caller audio from pjsip in, agent audio out to pjsip.

Shaped like `appliance.voice.transports.line`: the input pushes one
InputAudioRawFrame per 20 ms frame the bridge hands over (the line never goes
quiet: pjsip sends silence when the caller does); the output queues PCM for
`CallAudioPort.onFrameRequested` and paces itself to real time, so the
pipeline's "played" moments match what the caller hears.
"""

from __future__ import annotations

import asyncio
import time

from pipecat.frames.frames import (InputAudioRawFrame, InterruptionFrame,
                                   OutputAudioRawFrame, StartFrame)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.transports.base_output import BaseOutputTransport
from pipecat.transports.base_transport import BaseTransport, TransportParams

from ..voice import FRAME_MS, CallTape, CallerTurnFrame, PumpedInput, frame_bytes
from .media import OutgoingAudio

FRAME_S = FRAME_MS / 1000
INBOX_FRAMES = 250          # 5 s of caller audio may wait for the pipeline; older frames are dropped
# No caller audio for this long (no RTP at all: a muted or silent-suppressing phone): send that much silence
# up the pipeline so the VAD hears the end of speech. Not shorter: on a busy box frames can reach the loop
# late, and silence filled in before they arrive would be spliced into the caller's words.
GAP_S = 1.0
LEAD_FRAMES = 3             # frames queued ahead of the bridge's clock, so it never runs dry


class SipInput(PumpedInput):
    def __init__(self, params: TransportParams, rate: int, tape: CallTape | None = None, **kwargs):
        super().__init__(params, **kwargs)
        self.rate = rate
        self.tape = tape
        self.frames_in = 0
        self._inbox: asyncio.Queue[bytes] = asyncio.Queue(INBOX_FRAMES)
        self._started = False

    def feed(self, pcm: bytes) -> None:
        """A frame of caller audio (called on the event loop, from the port's call_soon_threadsafe)."""
        if self._inbox.full():
            self._inbox.get_nowait()
        self._inbox.put_nowait(pcm)

    async def caller_keys(self, text: str) -> None:
        """Keypad digits, already turned into words: a caller turn like a transcript."""
        if not self._started:
            return
        now = time.time()
        await self.push_frame(CallerTurnFrame(text=text, speech_start=now, speech_end=now, turn_end=now,
                                              heard_at=now), FrameDirection.DOWNSTREAM)

    async def start(self, frame: StartFrame):
        self._started = True
        await super().start(frame)

    async def _pump(self):
        quiet = bytes(frame_bytes(self.rate))
        while True:
            try:
                frames = [await asyncio.wait_for(self._inbox.get(), GAP_S)]
            except asyncio.TimeoutError:
                # the bridge sent nothing (no RTP, media not flowing yet): the line never goes silent-less,
                # or the VAD would wait for an end of speech that never comes
                frames = [quiet] * int(GAP_S / FRAME_S)
            for pcm in frames:
                self.frames_in += 1
                if self.tape is not None:
                    self.tape.caller(pcm)
                await self.push_audio_frame(InputAudioRawFrame(audio=pcm, sample_rate=self.rate, num_channels=1))

    async def _stop_pump(self):
        self._started = False
        await super()._stop_pump()


class SipOutput(BaseOutputTransport):
    def __init__(self, params: TransportParams, outgoing: OutgoingAudio, tape: CallTape | None = None, **kwargs):
        super().__init__(params, **kwargs)
        self.outgoing = outgoing
        self.tape = tape
        self.line_down = False       # the caller hung up: take audio as fast as it comes, play nothing
        self._due = 0.0

    async def start(self, frame: StartFrame):
        await super().start(frame)
        await self.set_transport_ready(frame)

    async def process_frame(self, frame, direction):
        if isinstance(frame, InterruptionFrame):
            self.outgoing.clear()        # the caller barged in: stop what is queued for the bridge at once
        await super().process_frame(frame, direction)

    async def write_audio_frame(self, frame: OutputAudioRawFrame) -> bool:
        if self.line_down:
            return True
        if self.tape is not None:
            self.tape.agent(frame.audio)
        self.outgoing.push(frame.audio)
        length = len(frame.audio) / 2 / frame.sample_rate / max(1, frame.num_channels)
        now = time.monotonic()
        self._due = max(self._due, now) + length
        lead = self._due - now - LEAD_FRAMES * FRAME_S
        if lead > 0:
            await asyncio.sleep(lead)
        return True

    async def drained(self, timeout: float = 5.0) -> None:
        """Wait until everything queued has gone to the bridge (before a BYE)."""
        self.outgoing.flush()
        until = time.monotonic() + timeout
        while self.outgoing.pending and time.monotonic() < until:
            await asyncio.sleep(FRAME_S)


class SipTransport(BaseTransport):
    """Both directions of one SIP call's audio at the pipeline's rate."""

    def __init__(self, rate: int, *, tape: CallTape | None = None, outgoing: OutgoingAudio | None = None):
        super().__init__()
        self.rate = rate
        self.params = TransportParams(
            audio_in_enabled=True, audio_in_sample_rate=rate, audio_in_passthrough=True,
            audio_out_enabled=True, audio_out_sample_rate=rate, audio_out_10ms_chunks=2,
            audio_out_end_silence_secs=0,
        )
        self.outgoing = outgoing or OutgoingAudio(rate)
        self._input = SipInput(self.params, rate, tape=tape)
        self._output = SipOutput(self.params, self.outgoing, tape=tape)

    def feed(self, pcm: bytes) -> None:
        self._input.feed(pcm)

    async def caller_keys(self, text: str) -> None:
        await self._input.caller_keys(text)

    async def drained(self, timeout: float = 5.0) -> None:
        await self._output.drained(timeout)

    def line_dropped(self) -> None:
        """The caller hung up: nothing more is played."""
        self._output.line_down = True
        self.outgoing.clear()

    async def say(self, frame) -> None:
        """Something the line itself says (the shutdown goodbye): sent down the pipeline to the speaker."""
        await self._input.push_frame(frame, FrameDirection.DOWNSTREAM)

    def input(self) -> FrameProcessor:
        return self._input

    def output(self) -> FrameProcessor:
        return self._output
