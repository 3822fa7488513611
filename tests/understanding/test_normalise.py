"""The word stream every rule reads."""

from __future__ import annotations

import pytest

from appliance.understanding.normalise import normalise


@pytest.mark.parametrize(("raw", "text"), [
    ("Hi, I need to move my appointment tomorrow", "hi i need to move my appointment tomorrow"),
    ("I don't know", "i do not know"),
    ("I dont know", "i do not know"),
    ("I can't make it", "i can not make it"),
    ("I won't be able to come", "i will not be able to come"),
    ("it's Sarah", "it is sarah"),
    ("What's the address?", "what is the address"),
    ("I'd like to book", "i would like to book"),
    ("I'm Sarah", "i am sarah"),
    ("Tuesday's", "tuesday 's"),
    ("at 2pm", "at 2 pm"),
    ("3:30 p.m.", "3:30 pm"),
    ("8 o'clock", "8 oclock"),
    ("S-M-Y-T-H", "s m y t h"),
    ("um, uh, Sarah", "sarah"),
    ("uh huh", "mhm"),
    ("mm-hmm", "mhm"),
    ("call me on +61 412 345 678", "call me on plus 61 412 345 678"),
    ("Dr. Lee", "dr lee"),
    ("11/30/1972", "11/30/1972"),
    ("1985-03-04", "1985-03-04"),
    ("9.30", "9.30"),
    ("O\u2019Brien", "o'brien"),
    ("Smith & Jones", "smith and jones"),
    ("", ""),
])
def test_text(raw: str, text: str) -> None:
    assert normalise(raw).text == text


def test_clauses_follow_the_callers_pauses() -> None:
    ct = normalise("Johnson, Sarah. Yes")
    assert ct.tokens == ("johnson", "sarah", "yes")
    assert ct.clause_starts == frozenset({0, 1, 2})
    assert ct.clause_of(1) == (1, 2)


def test_hyphenated_words_are_remembered() -> None:
    ct = normalise("Mary Smith-Jones")
    assert ct.tokens == ("mary", "smith", "jones")
    assert ct.hyphen_joined == frozenset({2})


def test_token_positions() -> None:
    ct = normalise("book a flu shot")
    assert ct.offsets == (0, 5, 7, 11)
    assert ct.token_index(8) == 2
    assert ct.span(7, 15) == (2, 4)


@pytest.mark.parametrize("said, word", [("in the mornin'", "morning"), ("somethin' later", "something"),
                                        ("nothin' on", "nothing")])
def test_a_dropped_g_written_out_is_read_as_the_word(said, word):
    assert word in normalise(said).tokens
