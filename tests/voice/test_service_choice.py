"""Another Pipecat STT or TTS service in place of the appliance's own: chosen in `[voice]`, checked when the
settings are read, and a whole call runs with it (Pipecat's own Whisper and Piper services, on the local models)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("pipecat")

from appliance.settings import ConfigError, settings_from_mapping  # noqa: E402
from appliance.simulate.spoken_call import play_spoken  # noqa: E402
from appliance.voice.call import VoiceCall  # noqa: E402

from .spoken import HOURS_CALL, voice_settings  # noqa: E402


@pytest.mark.parametrize("voice, key, words", [
    ({"stt_service": "deepgram please"}, "voice.stt_service", "dotted path of a Pipecat STT service class"),
    ({"stt_service": "pipecat.services.piper.tts.PiperTTSService"}, "voice.stt_service", "not a Pipecat STT service"),
    ({"tts_service": "no_such_package.Voice"}, "voice.tts_service", "cannot import"),
    ({"stt_service": "whisper", "stt_options": {"beam": 5}}, "voice.stt_options", "takes no option 'beam'"),
    ({"tts_service": "piper", "tts_options": {"settings": {"vioce": "x"}}}, "voice.tts_options", "'vioce'"),
    ({"tts_options": {"voice": "x"}}, "voice.tts_options", "the appliance's own TTS takes its settings from"),
])
def test_a_service_that_cannot_be_built_is_named_with_its_key(voice, key, words):
    with pytest.raises(ConfigError) as error:
        settings_from_mapping({"voice": voice})
    assert key in str(error.value) and words in str(error.value)


def test_pipecat_services_are_accepted_by_name_or_dotted_path():
    voice = settings_from_mapping({"voice": {
        "stt_service": "pipecat.services.whisper.stt.WhisperSTTService", "stt_options": {"no_speech_prob": 0.5},
        "tts_service": "piper", "tts_options": {"settings": {"voice": "en_US-joe-medium"}}}}).voice
    assert voice.stt_service.endswith("WhisperSTTService") and voice.tts_options["settings"]["voice"]


class NotedCall(VoiceCall):
    made: list[VoiceCall] = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        NotedCall.made.append(self)


def _twin(runtime, tmp_path, **voice):
    return runtime.with_settings(voice_settings(tmp_path, **voice))


def test_a_call_runs_with_pipecats_own_piper_service(runtime, flow, tmp_path):
    from pipecat.services.piper.tts import PiperTTSService

    twin = _twin(runtime, tmp_path, tts_service="piper")
    twin = _twin(runtime, tmp_path, tts_service="piper")
    result = asyncio.run(play_spoken(HOURS_CALL, flow, twin, fast=True, call_class=NotedCall))
    assert isinstance(NotedCall.made[-1].speaker, PiperTTSService)
    assert result.verdict.passed, result.verdict.failures
    replies = [t for t in result.summary.timings if t.kind == "reply"]
    assert replies and all(t.agent_start is not None for t in replies)   # every reply was heard on the line


def test_a_call_runs_with_pipecats_own_whisper_service(runtime, flow, tmp_path):
    from pipecat.services.whisper.stt import WhisperSTTService

    twin = _twin(runtime, tmp_path, stt_service="whisper")
    result = asyncio.run(play_spoken(HOURS_CALL, flow, twin, fast=True, call_class=NotedCall))
    call = NotedCall.made[-1]
    assert call.listener is None and any(isinstance(p, WhisperSTTService) for p in call.pipeline.processors)
    assert result.verdict.passed, result.verdict.failures
    assert any("hours" in text.lower() for text in result.heard), result.heard   # Pipecat's Whisper heard the caller
