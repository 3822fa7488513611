"""Voice tests run the real models (Whisper base, Piper joe, Silero, Smart Turn), loaded once per session.

Caller audio is fed faster than real time wherever timing is not the point.
The LLM is left out (rules only) unless a test brings its own classifier.
"""

from __future__ import annotations

import pytest

from .spoken import voice_settings


@pytest.fixture(scope="session")
def voice_data(tmp_path_factory):
    return tmp_path_factory.mktemp("voice-data")


@pytest.fixture(scope="session")
def runtime(voice_data):
    pytest.importorskip("pipecat")
    from appliance.voice.runtime import VoiceRuntime, quiet_pipecat

    quiet_pipecat("ERROR")
    return VoiceRuntime(voice_settings(voice_data), load_llm=False)
