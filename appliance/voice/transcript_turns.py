"""Caller turns from any Pipecat STT service: the transcripts between Pipecat's user-turn start and stop, as one
CallerTurnFrame for the engine processor.

Used where `[voice] stt_service` names another Pipecat service (`service_choice.py`): that service transcribes,
Pipecat's UserTurnProcessor before this one decides where a turn ends (its default strategies: the VAD's start,
Smart Turn v3's stop), and this hands the turn over. The appliance's own STT service (`listener.py`) does all of
this itself, while the caller speaks.
"""

from __future__ import annotations

import time

from pipecat.frames.frames import (Frame, TranscriptionFrame, UserStartedSpeakingFrame, UserStoppedSpeakingFrame,
                                   VADUserStoppedSpeakingFrame)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from .frames import CallerTurnFrame


class TranscriptTurns(FrameProcessor):
    """Transcripts between Pipecat's user turn start and stop, handed to the engine as one caller turn."""

    def __init__(self, stop_secs: float, **kwargs):
        super().__init__(**kwargs)
        self.stop_secs = stop_secs   # the VAD's stop: its stop event comes this long after the last sound
        self._texts: list[str] = []
        self._started = 0.0
        self._speech_end = 0.0
        self._stopped_at: float | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, UserStartedSpeakingFrame):
            self._texts, self._started, self._stopped_at = [], time.time(), None
        elif isinstance(frame, VADUserStoppedSpeakingFrame):
            self._speech_end = time.time() - self.stop_secs
        elif isinstance(frame, TranscriptionFrame):
            self._texts.append(frame.text.strip())
            if self._stopped_at is not None:   # the turn stopped before the transcript came
                await self._hand_over()
            return
        elif isinstance(frame, UserStoppedSpeakingFrame):
            self._stopped_at = time.time()
            if self._texts:
                await self._hand_over()
        await self.push_frame(frame, direction)

    async def _hand_over(self) -> None:
        text = " ".join(t for t in self._texts if t)
        self._texts = []
        now = time.time()
        await self.push_frame(CallerTurnFrame(text=text, speech_start=self._started, speech_end=self._speech_end,
                                              turn_end=self._stopped_at or now, heard_at=now))
        self._stopped_at = None
