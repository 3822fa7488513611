"""The same call assembled the way a Pipecat user would, from Pipecat's own parts (for `latency.py --compare
stock`): the appliance's engine processor between them, nothing else of the appliance's.

    transport in -> VADProcessor(SileroVADAnalyzer()) -> WhisperSTTService (the same CTranslate2 folder)
        -> UserTurnProcessor (Pipecat's default turn strategies: VAD start, Smart Turn v3 stop)
        -> StockTurns -> EngineProcessor -> StockSpeech -> PiperTTSService (the same joe voice)
        -> transport out -> PlaybackMonitor

Every Pipecat part keeps its defaults, except where it would otherwise go to a hub: Whisper is given the
model's folder (and int8 on the CPU, as the appliance runs it) and Piper the folder its voice file is in, with
that file's name as the voice. StockTurns hands the transcripts of a user turn to the engine once Pipecat's
turn processor says the turn has stopped; StockSpeech turns the engine's speech into Pipecat's TTSSpeakFrame.
"""

from __future__ import annotations

import time

from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.frames.frames import (Frame, TranscriptionFrame, TTSSpeakFrame, UserStartedSpeakingFrame,
                                   UserStoppedSpeakingFrame, VADUserStoppedSpeakingFrame)
from pipecat.processors.audio.vad_processor import VADProcessor
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.piper.tts import PiperTTSService
from pipecat.services.whisper.stt import WhisperSTTService
from pipecat.turns.user_turn_processor import UserTurnProcessor

from appliance.voice.call import VoiceCall
from appliance.voice.conversation import EngineProcessor
from appliance.voice.frames import AgentSpeechFrame, CallerTurnFrame, SpeechMarkFrame


class StockTurns(FrameProcessor):
    """Transcripts between Pipecat's user turn start and stop, handed to the engine as one caller turn."""

    def __init__(self, stop_secs: float, **kwargs):
        super().__init__(**kwargs)
        self.stop_secs = stop_secs
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
            if self._stopped_at is not None:   # the turn stopped before Whisper had finished
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


class StockSpeech(FrameProcessor):
    """The engine's speech as Pipecat's TTSSpeakFrame, between the start and end marks the engine processor
    waits on. Pipecat's TTS service keeps other frames in order behind the audio it is making, so the end mark
    reaches the playback monitor once the utterance has played (the start mark, once what came before it has;
    the benchmark reads the agent's start off the recording, not from the mark)."""

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, AgentSpeechFrame):
            await self.push_frame(SpeechMarkFrame(utterance_id=frame.utterance_id, edge="start", first_audio_ms=0.0))
            await self.push_frame(TTSSpeakFrame(text=frame.text), direction)
            await self.push_frame(SpeechMarkFrame(utterance_id=frame.utterance_id, edge="end"))
            return
        await self.push_frame(frame, direction)


class StockCall(VoiceCall):
    """A VoiceCall whose ears and voice are Pipecat's own services with their defaults."""

    def __init__(self, runtime, *, transport, host, engine, rate, call_info=None, on_event=None, on_transfer=None,
                 call_id=None):
        from appliance.engine.types import CallInfo

        call_info = call_info or CallInfo()
        voice = runtime.settings.voice
        self.runtime, self.host, self.engine = runtime, host, engine
        self.call_id = call_id or call_info.call_id or "-"
        self.conversation = EngineProcessor(
            host=host, engine=engine, call_info=call_info, filler_after_ms=voice.filler_after_ms,
            silence_checkins_s=voice.silence_checkins_s, timezone=engine.profile.timezone, on_event=on_event,
            on_transfer=on_transfer, call_id=self.call_id)
        self.listener = None
        vad = SileroVADAnalyzer()
        stt = WhisperSTTService(settings=WhisperSTTService.Settings(model=str(runtime.transcriber.model_dir)),
                                device="cpu", compute_type="int8")
        voice_file = runtime.synthesizer.voice_path
        tts = PiperTTSService(settings=PiperTTSService.Settings(voice=voice_file.name.removesuffix(".onnx")),
                              download_dir=voice_file.parent)
        self._build([VADProcessor(vad_analyzer=vad), stt, UserTurnProcessor(), StockTurns(vad.params.stop_secs),
                     self.conversation, StockSpeech(), tts], transport, rate)
