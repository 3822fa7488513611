"""The engine's speech for any Pipecat TTS service: each AgentSpeechFrame as Pipecat's TTSSpeakFrame, between the
start and end marks the engine processor waits on.

Used where `[voice] tts_service` names another Pipecat service (`service_choice.py`); the appliance's own TTS
service (`speaker.py`) takes AgentSpeechFrame itself. A Pipecat TTS service keeps other frames in order behind the
audio it is making, so the end mark reaches the playback monitor once the utterance has played (the start mark,
once what came before it has).
"""

from __future__ import annotations

from pipecat.frames.frames import Frame, TTSSpeakFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from .frames import AgentSpeechFrame, SpeechMarkFrame


class TTSHandoff(FrameProcessor):
    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, AgentSpeechFrame):
            await self.push_frame(SpeechMarkFrame(utterance_id=frame.utterance_id, edge="start", first_audio_ms=0.0))
            await self.push_frame(TTSSpeakFrame(text=frame.text), direction)
            await self.push_frame(SpeechMarkFrame(utterance_id=frame.utterance_id, edge="end"))
            return
        await self.push_frame(frame, direction)
