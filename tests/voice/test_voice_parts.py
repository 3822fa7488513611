"""The voice layer's pure parts: transcript cleaning, hot words, phrasing for TTS, WER, the call tape."""

from __future__ import annotations

import stat
import wave

import numpy as np
import pytest

pytest.importorskip("pipecat")

from appliance.voice.audio import CallTape, silence  # noqa: E402
from appliance.voice.stt import clean_transcript, hotwords_for  # noqa: E402
from appliance.voice.tts import phrases  # noqa: E402
from appliance.simulate.word_error import word_errors  # noqa: E402


@pytest.mark.parametrize("heard, words", [
    ("Yes, please.", "Yes, please."),
    ("[cough]", ""),
    ("(coughing) ", ""),
    ("*sniff*", ""),
    (" you", ""),
    ("Thank you.", ""),
    ("Hmm.", ""),
    ("...", ""),
    ("[coughs] No, that's all.", "No, that's all."),
    ("0418 555 023.", "0418 555 023."),
])
def test_only_real_words_count(heard, words):
    assert clean_transcript(heard) == words


ALPHABET = ", ".join("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


@pytest.mark.parametrize("heard, hotwords, words", [
    # Whisper's loop on a short clip: the hot word it echoes is not the caller's
    ("The second one, 8 am, 8 am, 8 am, 8 am, 8 am, 8", "the first one, the second one, 8 am, 8:15 am",
     "The second one"),
    ("Monday, Monday, Monday, Monday, Monday", "", "Monday"),
    ("I said I said I said hello", "", "I said hello"),
    ("no no", "", "no no"),
    ("1 1 1 2", "", "1 1 1 2"),      # digits repeat in phone numbers
    ("0 4 0 0 0 0 0 0 1 1", "0 1 2 3 4 5 6 7 8 9", "0 4 0 0 0 0 0 0 1 1"),
    # a digit looping to the token cap: how many were said is lost, so none is kept (the number is asked again)
    ("0 4 7 8 8 8 8 8 8 8 8 8 8 8 8 8", "0 1 2 3 4 5 6 7 8 9", "0 4 7"),
    ("0 4 9 1 5 7 0 0 6 0 0 6 0 0 6 0 0 6 0 0 6", "0 1 2 3 4 5 6 7 8 9", "0 4 9 1 5 7"),
    # a group of digits written whole loops as words do: its count is inside it, so it is kept once
    ("11-0-1-59 11-0-1-59 11-0-1-59 11-0-1-59 11-0-1-59 11", "", "11-0-1-59"),
    ("12/22/51 12/22/51 12/22/51 12/22/51", "", "12/22/51"),
    ("11-0-1-59 11-0-1-59", "", "11-0-1-59 11-0-1-59"),
    # the prompt said back in a jumble: the first word only
    ("Wednesday, Thursday, Thursday, Wednesday, Thursday, Wednesday, Thursday",
     "Monday, Tuesday, Wednesday, Thursday, Friday, morning, afternoon", "Wednesday"),
    ("Wednesday afternoon", "Monday, Tuesday, Wednesday, Thursday, Friday, morning, afternoon", "Wednesday afternoon"),
    # letters spelled under the alphabet prompt repeat as names do: a spelling, never a jumble
    ("O apostrophe C O N N O R", ALPHABET, "O apostrophe C O N N O R"),
    ("H, A, N, N, A, H", ALPHABET, "H, A, N, N, A, H"),
    ("M C C A N N", ALPHABET, "M C C A N N"),
    ("B as in bravo, E, N, N, E, T, T", ALPHABET, "B as in bravo, E, N, N, E, T, T"),
    # a phrase longer than a loop is looked for in short ones, written twice over (and a bit): kept once
    ("K, O, W, A, L, S, K, I. K, O, W, A, L, S, K, I. K, O, W", ALPHABET, "K, O, W, A, L, S, K, I."),
    ("Oh, it's spelt D U P O N T. Oh, it's spelt D U P O N T.", ALPHABET, "Oh, it's spelt D U P O N T."),
    ("the eleventh of the third nineteen eighty the eleventh of the third nineteen eighty", "",
     "the eleventh of the third nineteen eighty"),
    ("0 4 1 2 3 4 5 6 7 0 4 1 2 3 4 5 6 7", "0 1 2 3 4 5 6 7 8 9",
     "0 4 1 2 3 4 5 6 7 0 4 1 2 3 4 5 6 7"),   # digits: how many were said counts, so they stay
])
def test_a_decoding_loop_is_kept_once_or_dropped_when_it_echoes_the_prompt(heard, hotwords, words):
    assert clean_transcript(heard, hotwords) == words


def test_hot_words_are_the_clinics_names(example_clinic_data):
    from appliance.clinic import clinic_from_mapping

    clinic = clinic_from_mapping(example_clinic_data)
    words = hotwords_for(clinic.catalog(), clinic.profile()).split(", ")
    catalog = clinic.catalog()
    for item in (*catalog.practitioners, *catalog.services, *catalog.locations):
        assert item.name in words
    assert len(words) == len({w.lower() for w in words})


def test_long_replies_are_spoken_in_phrases_and_short_ones_whole():
    hours = ("We're open Monday to Tuesday 7:30 am to 12:30 pm and 1:30 pm to 6 pm, Wednesday 8 am to 12 pm, "
             "and closed Sunday. What else can I help you with?")
    pieces = phrases(hours)
    assert len(pieces[0].split()) <= 10 and pieces[-1] == "What else can I help you with?"
    assert " ".join(pieces).replace(" ,", ",") == hours
    assert phrases("Sure. Can I have your full name, please?") == ["Sure.", "Can I have your full name, please?"]


def test_word_errors_count_words_not_spelling():
    assert word_errors("the fourth of March, nineteen eighty five", "the 4th of March 1985").errors == 0
    assert word_errors("Neutral Bay please", "Neutral Bay, please.").errors == 0
    result = word_errors("Sarah Johnson", "Sara Johnson")
    assert (result.errors, result.words) == (1, 2)


def test_the_tape_is_stereo_caller_left_agent_right_and_private(tmp_path):
    tape = CallTape(8000)
    tape.caller(silence(0.5, 8000))
    tape.agent((np.ones(800, dtype=np.int16) * 1000).tobytes())
    tape.caller((np.ones(800, dtype=np.int16) * 2000).tobytes())
    path = tape.write_wav(tmp_path / "call.wav")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with wave.open(str(path)) as wav:
        assert (wav.getnchannels(), wav.getframerate()) == (2, 8000)
        frames = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16).reshape(-1, 2)
    assert frames[4000, 1] == 1000 and frames[4000, 0] == 2000 and frames[0].tolist() == [0, 0]


def test_an_input_transport_without_a_frame_source_cannot_be_made():
    from pipecat.transports.base_transport import TransportParams

    from appliance.voice.transports.pumped_input import PumpedInput

    with pytest.raises(TypeError, match="_pump"):
        PumpedInput(TransportParams())
