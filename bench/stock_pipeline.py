"""The same call assembled the way a Pipecat user would, from Pipecat's own parts (for `latency.py --compare
stock`): the appliance's VoiceCall with `[voice] stt_service = "whisper"` and `tts_service = "piper"`, and
Pipecat's default Silero VAD.

    transport in -> VADProcessor(SileroVADAnalyzer()) -> WhisperSTTService (the same CTranslate2 folder)
        -> UserTurnProcessor (Pipecat's default turn strategies: VAD start, Smart Turn v3 stop)
        -> TranscriptTurns -> EngineProcessor -> TTSHandoff -> PiperTTSService (the same joe voice)
        -> transport out -> PlaybackMonitor

Everything else is the appliance's pipeline as it is (transport, engine processor, fillers, playback monitor),
so the two differ only in the parts that make the appliance faster: its VAD settings (the shared Silero session
with a quicker volume gate), its STT service (decoding while the caller speaks, the question's prompt, the
hand-over rules), its turn analyser (the question decides whether Smart Turn is asked) and its TTS service
(phrase by phrase, from the speech cache). Every Pipecat part keeps its defaults, except where it would otherwise
go to a hub: Whisper is given the model's folder (and the compute type the appliance runs it with) and Piper the
folder its voice file is in, with that file's name as the voice (`appliance/voice/service_choice.py`).
"""

from __future__ import annotations

from pipecat.audio.vad.silero import SileroVADAnalyzer

from appliance.voice.call import VoiceCall


def stock_settings(settings):
    """`settings` with Pipecat's own local Whisper and Piper services chosen."""
    voice = settings.voice.model_copy(update={"stt_service": "whisper", "stt_options": {},
                                              "tts_service": "piper", "tts_options": {}})
    return settings.model_copy(update={"voice": voice})


class StockCall(VoiceCall):
    """A VoiceCall whose ears and voice are Pipecat's own services with their defaults."""

    def __init__(self, runtime, **kwargs):
        super().__init__(runtime.with_settings(stock_settings(runtime.settings)), **kwargs)

    def vad_analyzer(self, stop_secs: float):
        return SileroVADAnalyzer()
