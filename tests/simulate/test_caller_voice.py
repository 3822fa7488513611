"""The simulated caller says a spelling as a caller does: the letter A by its name, not as the article."""

from __future__ import annotations

import pytest

from appliance.simulate.spoken_call import letters_said_as_letters


@pytest.mark.parametrize("line, said", [
    ("A R O H A, N G A T A", "[[ ˈeɪ ]] R O H [[ ˈeɪ ]], N G [[ ˈeɪ ]] T [[ ˈeɪ ]]"),
    ("M A C, capital L, E O D", "M [[ ˈeɪ ]] C, capital L, E O D"),
    ("A skin check please", "A skin check please"),          # the article stays the article
    ("Plan A is fine", "Plan A is fine"),
    ("K R I S", "K R I S"),
])
def test_the_letter_a_in_a_spelling_is_said_by_its_name(line, said):
    assert letters_said_as_letters(line) == said


def test_piper_says_the_letter_not_the_article(runtime):
    voice = runtime.synthesizer.voice
    first = lambda text: "".join(voice.phonemize(text)[0]).split()[0]   # noqa: E731
    assert first("A R O H A") == "ɐ"                                # as Piper reads it unaided: "uh"
    assert first(letters_said_as_letters("A R O H A")) == "ˈeɪ"      # as a caller spells it
