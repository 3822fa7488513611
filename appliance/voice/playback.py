"""After the output transport: what the caller has actually been played, and when.

The output transport passes a frame on only once everything queued before it
has been written to the line, so a SpeechMarkFrame arriving here means the
audio before it has been played (for a transport that paces itself).
"""

from __future__ import annotations

import time
from typing import Callable

from pipecat.frames.frames import Frame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from .frames import SpeechMarkFrame


class PlaybackMonitor(FrameProcessor):
    def __init__(self, on_mark: Callable[[SpeechMarkFrame, float], None], **kwargs):
        super().__init__(**kwargs)
        self.on_mark = on_mark

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, SpeechMarkFrame):
            self.on_mark(frame, time.time())
        await self.push_frame(frame, direction)
