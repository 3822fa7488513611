"""Which words of a name the transcriber was unsure of: real speech (Piper's joe over G.711) through Whisper and a
forced reading of its own words over the same audio. A name heard in doubtful words is spelled by the caller
before a new patient's record is made (engine: first_name_unusual, last_name_unusual)."""

from __future__ import annotations

import pytest

pytest.importorskip("pipecat")

RATE = 8000


@pytest.fixture(scope="module")
def joe(runtime):
    from appliance.simulate.caller_speech import CallerVoice

    return CallerVoice(runtime, RATE, voice="piper-joe", line="g711", seed=3)


def transcribed(runtime, voice, said: str, *, doubt: bool = True):
    quiet = bytes(int(0.3 * RATE) * 2)
    return runtime.transcriber.transcribe(quiet + voice.audio(said) + quiet, RATE, doubt=doubt)


@pytest.mark.parametrize("said", ["Sarah Johnson", "Mark Smith"])
def test_a_common_name_heard_right_is_not_doubted(runtime, joe, said):
    heard = transcribed(runtime, joe, said)
    assert said.split()[-1] in heard.text, f"Whisper now hears {said!r} as {heard.text!r}: choose another example"
    assert heard.doubtful == ()


@pytest.mark.parametrize("said", ["Jürgen Schröder", "Priya Reddy"])
def test_a_name_heard_as_other_words_is_doubted(runtime, joe, said):
    heard = transcribed(runtime, joe, said)
    assert heard.doubtful, f"{said!r} heard as {heard.text!r} with no doubt"
    assert set(heard.doubtful) <= set(heard.text.split())


def test_doubt_is_read_only_when_asked_for(runtime, joe):
    assert transcribed(runtime, joe, "Jürgen Schröder", doubt=False).doubtful == ()
