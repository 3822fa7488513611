"""The simulated caller's voices: each one speaks, its pace varies with the seed, and the same seed says a
line the same way again; a spelling's letter A is said by its name."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from appliance.simulate.caller_choices import VOICES
from appliance.simulate.caller_voices import (PACE_SPREAD, UnknownVoice, VoiceUnavailable, caller_voice_engine,
                                              check_voice, letters_said_as_letters, speaking_pace)
from appliance.simulate.caller_speech import CallerVoice

RATE = 16000
SENTENCE = "Yes, that's right."
PIPER_A, ESPEAK_A = "[[ ˈeɪ ]]", "[['eI]]"


@pytest.fixture(scope="session")
def voice_models():
    """What a caller voice needs of the runtime: the Piper voice file (no other model is loaded)."""
    from appliance.models import resolve
    from appliance.settings import load_settings

    return SimpleNamespace(synthesizer=SimpleNamespace(voice_path=resolve("tts", load_settings()).path))


def _voice(models, name: str, **kwargs) -> CallerVoice:
    try:
        return CallerVoice(models, RATE, voice=name, **kwargs)
    except VoiceUnavailable as exc:   # only where the Debian package is truly missing
        pytest.skip(str(exc))


@pytest.mark.parametrize("name", VOICES)
def test_each_voice_says_a_short_sentence_at_the_line_rate(voice_models, name):
    pcm = _voice(voice_models, name).audio(SENTENCE)
    seconds = len(pcm) / 2 / RATE
    assert 0.6 <= seconds <= 4.0, seconds
    samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float32)
    assert np.sqrt(np.mean(samples ** 2)) > 1000        # speech, not a whisper or silence
    assert np.max(np.abs(samples)) < 32767 * 0.95        # and not clipped


def test_a_missing_synthesiser_names_its_package_and_the_setup_script(monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: None)
    with pytest.raises(VoiceUnavailable, match=r"apt-get install flite .*installer/dev-setup.sh"):
        check_voice("flite-slt")
    with pytest.raises(VoiceUnavailable, match=r"apt-get install espeak-ng"):
        caller_voice_engine("espeak-en-gb", runtime=None)


def test_an_unknown_voice_is_refused_with_the_choices():
    with pytest.raises(UnknownVoice, match="piper-joe, espeak-en-us, .*flite-awb"):
        check_voice("espeak-en-nz")


def test_the_pace_varies_a_little_from_line_to_line_and_with_the_seed():
    paces = [speaking_pace(seed, line, turn) for seed in range(5) for line in ("yes", "no") for turn in range(3)]
    assert all(1 - PACE_SPREAD <= p <= 1 + PACE_SPREAD for p in paces)
    assert len(set(paces)) == len(paces)
    assert speaking_pace(3, "yes", 1) == speaking_pace(3, "yes", 1)


@pytest.mark.parametrize("name", ["piper-joe", "flite-rms"])
def test_the_same_seed_says_a_line_the_same_way_and_another_seed_does_not(voice_models, name):
    first = _voice(voice_models, name, seed=11)
    again = _voice(voice_models, name, seed=11)
    other = _voice(voice_models, name, seed=12)
    said = [first.audio(SENTENCE), first.audio(SENTENCE)]
    assert said == [again.audio(SENTENCE), again.audio(SENTENCE)]
    assert said[0] != said[1]                      # said again: a new rendition
    assert other.audio(SENTENCE) != said[0]


def test_the_pace_changes_how_long_a_line_takes():
    taken = []

    def speak(text, pace):
        taken.append(pace)
        return np.sin(np.arange(int(16000 / pace)) / 5).astype(np.float32), 16000

    voice = CallerVoice(None, RATE, engine=SimpleNamespace(name="stub", text_for=str, speak=speak), seed=4)
    lengths = {len(voice.audio("Olivia Bennett")) for _ in range(3)}
    assert len(lengths) == 3 and len(set(taken)) == 3


def test_a_repeated_line_is_synthesised_afresh_and_the_prepared_rendition_is_said_first():
    takes = iter(range(1, 100))

    def speak(text, pace):   # a counter stands in for a synthesiser's own variation
        return np.sin(np.arange(2205 + 100 * next(takes)) / 7).astype(np.float32), 22050

    engine = SimpleNamespace(name="stub", text_for=str, speak=speak)
    voice = CallerVoice(None, 8000, engine=engine)
    voice.prepare(["Olivia Bennett"])
    first, again, third = (voice.audio("Olivia Bennett") for _ in range(3))
    assert len({first, again, third}) == 3                      # a re-asked name is not the same audio
    other = CallerVoice(None, 8000, engine=engine)
    other.prepare(["yes"])
    assert other._renditions["yes"][0] == other.audio("yes")


@pytest.mark.parametrize("line, said", [
    ("A R O H A, N G A T A", "{A} R O H {A}, N G {A} T {A}"),
    ("M A C, capital L, E O D", "M {A} C, capital L, E O D"),
    ("A skin check please", "A skin check please"),          # the article stays the article
    ("Plan A is fine", "Plan A is fine"),
    ("K R I S", "K R I S"),
])
@pytest.mark.parametrize("letter", [PIPER_A, ESPEAK_A])
def test_the_letter_a_in_a_spelling_is_said_by_its_name(line, said, letter):
    assert letters_said_as_letters(line, letter) == said.replace("{A}", letter)


def test_piper_says_the_letter_not_the_article(voice_models):
    voice = caller_voice_engine("piper-joe", voice_models).synthesizer.voice
    first = lambda text: "".join(voice.phonemize(text)[0]).split()[0]   # noqa: E731
    assert first("A R O H A") == "ɐ"                                # as Piper reads it unaided: "uh"
    assert first(letters_said_as_letters("A R O H A", PIPER_A)) == "ˈeɪ"   # as a caller spells it


def test_letters_beyond_latin_1_are_said_as_the_plain_letters_they_sound_like():
    from appliance.simulate.caller_speech import sayable

    assert sayable("Thu Hà Đặng") == "Thu Hà Dang"
    assert sayable("Nguyễn Văn An") == "Nguyen Van An"
    assert sayable("José García, Søren Ødegaard, Zoë Müller") == "José García, Søren Ødegaard, Zoë Müller"


@pytest.mark.parametrize(("line", "said"), [
    ("0491 577 127", "0 4 9 1, 5 7 7, 1 2 7"),
    ("my mobile is +61 491 570 631, thanks", "my mobile is plus 6 1, 4 9 1, 5 7 0, 6 3 1, thanks"),
    ("call me on 07700 900123.", "call me on 0 7 7 0 0, 9 0 0 1 2 3."),
    ("(602) 555-0174", "6 0 2, 5 5 5, 0 1 7 4"),
    ("it's (312)555-0136, thanks", "it's 3 1 2, 5 5 5, 0 1 3 6, thanks"),
])
def test_a_phone_number_is_said_digit_by_digit_as_callers_give_one(line, said):
    from appliance.simulate.caller_speech import sayable

    assert sayable(line) == said


@pytest.mark.parametrize("line", ["31/7/1958", "at 8:45", "it costs 12.50", "the 25th, 2027", "105 dollars", "(2) 1958"])
def test_dates_times_and_prices_are_left_to_the_voice(line):
    from appliance.simulate.caller_speech import sayable

    assert sayable(line) == line


@pytest.mark.parametrize(("line", "text"), [("uh-huh", "uh huh"), ("Uh-huh, that's right", "Uh huh, that's right"),
                                            ("uh-uh", "uh-uh"), ("mm-hmm", "mm-hmm")])
def test_piper_is_given_uh_huh_as_two_words_which_it_says_as_people_do(line, text):
    from appliance.simulate.caller_voices import PiperCallerVoice

    assert PiperCallerVoice.text_for(None, line) == text
