"""Declared short answers scored against the audio: taken only for a near miss, never invented."""

import numpy as np
import pytest

from appliance.voice.answer_scoring import GAP, MARGIN, SCORED_MAX_WORDS, Reading, as_whisper_writes, choose, plain


def readings(**scores):
    """yes_yep=-2.0 -> Reading("yes", "yep", -2.0, 2)"""
    out = []
    for key, score in scores.items():
        meaning, text = key.split("_", 1)
        out.append(Reading(meaning, text.replace("_", " "), score, 2))
    return out


def test_a_near_miss_of_a_declared_answer_is_taken():
    # Whisper wrote "Yet." (-1.0); "yep" reads almost as well and far better than any no
    assert choose("Yet.", -1.0, readings(yes_yep=-1.5, no_nope=-9.0)).text == "yep"


def test_other_words_that_read_far_better_than_any_answer_stand():
    assert choose("How much is it?", -1.0, readings(yes_yes=-1.0 - MARGIN - 0.5, no_no=-20.0)) is None


def test_an_answer_that_wins_over_the_other_meaning_by_a_hair_is_not_taken():
    assert choose("Yet.", -1.0, readings(yes_yep=-1.2, no_nope=-1.2 - GAP + 0.5)) is None


def test_where_whisper_wrote_nothing_no_answer_is_taken_however_well_it_reads():
    # a caller's "Uh." read as "yeah" far above any no: nothing is never made an answer
    assert choose("", None, readings(yes_yeah=-0.5, no_nope=-20.0)) is None


def test_phrases_are_put_as_whisper_writes_a_short_answer():
    assert as_whisper_writes("yep") == " Yep."
    assert plain("Uh-huh.") == "uh huh"


@pytest.fixture(scope="module")
def voice_parts():
    from appliance.engine.flow import load_flow
    from appliance.models import resolve
    from appliance.settings import load_settings
    from appliance.voice.stt import WhisperTranscriber
    from appliance.voice.tts import PiperSynthesizer

    settings = load_settings()
    try:
        stt = WhisperTranscriber(resolve("stt", settings).path, cpu_threads=2, workers=1)
        tts = PiperSynthesizer(resolve("tts", settings).path)
    except Exception as exc:
        pytest.skip(f"voice models not installed: {exc}")
    return stt, tts, load_flow("config/flows/clinic.yaml").questions["confirm"]


def heard_at_a_read_back(voice_parts, said):
    from appliance.simulate.line_conditions import mu_law_round_trip
    from appliance.understanding.normalise import normalise
    from appliance.voice.audio import resample

    stt, tts, question = voice_parts
    audio, rate = tts.speak_float(said)
    pad = np.zeros(2400, np.float32)
    line = np.concatenate([pad, mu_law_round_trip(resample(audio, rate, 8000)), pad])
    pcm = (np.clip(line, -1, 1) * 32767).astype(np.int16).tobytes()
    return stt.transcribe(pcm, 8000, hotwords=question.stt_prompt, expected=question.short_answer_phrases,
                          settled=lambda t: len(t.split()) > SCORED_MAX_WORDS or question.short_answer(normalise(t).text) is not None)


@pytest.mark.parametrize("said", ["How much is it?", "Sorry?", "hang on", "What time was that?", "Tuesday", "Uh.",
                                  "Um...", "Hmm.", "Ahem."])
def test_spoken_non_answers_at_a_read_back_are_never_made_an_answer(voice_parts, said):
    heard = heard_at_a_read_back(voice_parts, said)
    assert heard.written is None, f"{said!r} was taken as {heard.text!r}"


@pytest.mark.parametrize("said, meaning", [("nah", "no"), ("yep", "yes"), ("nope", "no"), ("correct", "yes")])
def test_spoken_short_answers_at_a_read_back_settle_it(voice_parts, said, meaning):
    from appliance.understanding.normalise import normalise

    _, _, question = voice_parts
    heard = heard_at_a_read_back(voice_parts, said)
    assert question.short_answer(normalise(heard.text).text) == meaning, heard


@pytest.mark.parametrize("said", ["Yes, that's great.", "Yep, all good.", "Perfect, thank you."])
def test_a_longer_answer_is_never_cut_to_the_declared_answer_it_begins_with(voice_parts, said):
    heard = heard_at_a_read_back(voice_parts, said)
    assert heard.written is None and len(heard.text.split()) > 1, heard
