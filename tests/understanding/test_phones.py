"""Phone numbers said as digits or words."""

from __future__ import annotations

from datetime import date

import pytest

from .hearing import hear

PHONES = [
    ("oh four one two, three four five, six seven eight", "AU", "+61412345678"),
    ("zero four one two three four five six seven eight", "AU", "+61412345678"),
    ("0412 345 678", "AU", "+61412345678"),
    ("0412-345-678", "AU", "+61412345678"),
    ("it's 0412345678", "AU", "+61412345678"),
    ("oh four one two, three forty five, six seven eight", "AU", "+61412345678"),
    ("oh four double one, two three four, five six seven", "AU", "+61411234567"),
    ("oh four one two, triple three, four five six", "AU", "+61412333456"),
    ("plus six one four one two three four five six seven eight", "AU", "+61412345678"),
    ("+61 412 345 678", "AU", "+61412345678"),
    ("oh four hundred, oh oh oh, oh one one", "AU", "+61400000011"),
    ("oh two nine one two three, four five six seven", "AU", "+61291234567"),
    ("six oh eight, five five five, oh one four two", "US", "+16085550142"),
    ("two one two, five five five, oh one eight seven", "US", "+12125550187"),
    ("oh two one, one two three, four five six seven", "NZ", "+64211234567"),
    ("oh seven seven oh oh, nine oh oh, eight nine oh", "GB", "+447700900890"),
    ("oh four one two, um, three four five, uh, six seven eight", "AU", "+61412345678"),
    # speech-to-text's letter O for a spoken "oh"
    ("O412 345 678", "AU", "+61412345678"),
    ("O7700 900 123", "GB", "+447700900123"),
    ("L770L, 90L 123", "GB", "+447700900123"),        # an "oh" with a glide, heard as L or W
    ("0770W 900 123", "GB", "+447700900123"),
    ("0 7 7 0 well 9 0 well 1 2 3", "GB", "+447700900123"),  # an "oh" with a glide, written as a word
]


@pytest.mark.parametrize(("text", "region", "e164"), PHONES)
def test_phone_when_asked(text: str, region: str, e164: str) -> None:
    assert hear(text, "phone", region=region).phone == e164


@pytest.mark.parametrize("text", [
    "oh four one two three four five",   # too short
    "triple zero",
    "one two three four five six seven eight nine",   # not a number in the region
    "same number as I'm calling from",
    "I don't have a mobile",
])
def test_no_phone(text: str) -> None:
    assert hear(text, "phone").phone is None


def test_phone_needs_to_be_asked_or_marked() -> None:
    assert hear("0412 345 678", "intent").phone is None
    assert hear("my number is 0412 345 678", "intent").phone == "+61412345678"
    assert hear("you can call me on oh four one two three four five six seven eight", "intent").phone \
        == "+61412345678"
    assert hear("reach me at 0412 345 678", "dob").phone == "+61412345678"


def test_phone_in_a_correction() -> None:
    assert hear("no, it's 0412 345 679", "confirm").phone == "+61412345679"


def test_a_date_of_birth_is_not_a_phone_number() -> None:
    utterance = hear("4 3 85", "dob")
    assert utterance.phone is None


@pytest.mark.parametrize(("text", "region", "e164"), [
    ("312, triple five, a 1 3 0.", "US", "+13125550130"),
    ("0 4 a 1 2 3 4 5 6 7", "AU", "+61401234567"),
    ("602 555 a 1 6 3", "US", "+16025550163"),
    ("0 4 1 2 3 though 5 6 7 8", "AU", "+61412305678"),
    ("3 1 2 5 5 5 0 1 3 though", "US", "+13125550130"),
])
def test_an_oh_written_as_a_word_among_the_digits_of_a_phone_number(text: str, region: str, e164: str) -> None:
    assert hear(text, "phone", region=region).phone == e164


def test_a_among_words_is_still_a_word() -> None:
    assert hear("it's a mobile, 0412 345 678", "phone").phone == "+61412345678"


def test_three_written_free_between_digits_is_three():
    assert hear("0 4 free 1 5 5 5 0 1 2", "phone").phone == "+61431555012"
    assert hear("I'm free after work, 0412 555 123", "phone").phone == "+61412555123"


@pytest.mark.parametrize("heard", ["Free 12, triple 5, a 128.", "free 1 2 5 5 5 0 1 2 8", "Free 1-2, 555, 0128"])
def test_three_written_free_as_the_numbers_first_word_is_three(heard):
    assert hear(heard, "phone", region="US").phone == "+13125550128"


@pytest.mark.parametrize(("said", "number"), [
    ("yeah my mobile is 312 555 a198", "+13125550198"),   # a reduced "oh" written as "a", joined to the digits
    ("312 555 a 1 8 5", "+13125550185"),                   # ... and apart from them
    ("it's 312 5a5 0198", "+13125050198"),
])
def test_an_oh_written_as_a_inside_or_between_digit_groups_is_a_zero(said, number):
    assert hear(said, "phone", region="US").phone == number


@pytest.mark.parametrize(("said", "number"), [
    ("L3 9 4 1 2, double 0 1 5.", "+61394120015"),    # the leading "oh" of an area code written as a letter
    ("o3 9412 0015", "+61394120015"),
])
def test_an_oh_written_as_a_letter_before_one_digit_is_a_zero(said, number):
    assert hear(said, "phone").phone == number


def test_the_phone_question_is_not_primed_with_digits_counting_up():
    """Shown "0 1 2 3 ...", Whisper counts on past what was said ("double two three" -> "2 3 4 5 6")."""
    from .hearing import QUESTIONS

    prompt = QUESTIONS["phone"].stt_prompt
    digits = [c for c in prompt if c.isdigit()]
    assert digits and not any(int(b) == int(a) + 1 == int(c) - 1 for a, b, c in zip(digits, digits[1:], digits[2:]))
    assert "double" in prompt


@pytest.mark.parametrize(("said", "number"), [
    ("600 to 555-0174", "+16025550174"),
    ("800-to 555 0174", "+18025550174"),
    ("800 for 555 0174", "+18045550174"),
    ("my number's 312 too, no, 312 555 0136", "+13125550136"),   # a 'too' after no hundred is left alone
])
def test_an_area_code_read_as_hundreds_with_its_last_digit_written_as_a_word_is_that_digit(said, number):
    assert hear(said, "phone", region="US").phone == number


@pytest.mark.parametrize(("said", "region", "number"), [
    ("0 4 double 2, for 4 4 1 2 1.", "AU", "+61422444121"),   # four written "for"
    ("0 4 1 2, for 5 6, 7 8 9", "AU", "+61412456789"),
    ("3 1 2, for 5 5, 0 1 9 8", "US", "+13124550198"),
    ("0 4 9 1 time 7 0 0 0 6", "AU", "+61491570006"),        # five written "time"
    ("3 1 2 time 5 5 0 1 9 8", "US", "+13125550198"),
    ("0 4 1 2 3 4 time 6 7 8", "AU", "+61412345678"),
    ("Nero 4 6 1, triple 3 1 9 2", "AU", "+61461333192"),     # zero heard with an n or m, before the digits
    ("Nero 4 1 2, 3 4 5, 6 7 8", "AU", "+61412345678"),
    ("mirror 4 1 2 3 4 5 6 7 8", "AU", "+61412345678"),
])
def test_a_digit_written_as_a_word_that_sounds_like_it_among_the_digits_is_that_digit(said, region, number):
    assert hear(said, "phone", region=region).phone == number


@pytest.mark.parametrize("said", ["0 4 1 2 3 4 5 6 7 8 for the afternoon", "0 4 1 2 3 4 5 6 7 8 any time"])
def test_those_words_after_the_number_are_left_as_words(said):
    assert hear(said, "phone", region="AU").phone == "+61412345678"


@pytest.mark.parametrize(("said", "region", "born"), [
    ("Sorry, I got that wrong. It's 13-0-3-51.", "AU", date(1951, 3, 13)),   # digit groups where they were heard
    ("sorry, I got that wrong, it's 13-03-51", "AU", date(1951, 3, 13)),
    ("no wait, it's 13 03 1951", "GB", date(1951, 3, 13)),
    ("sorry, I meant 03-13-51", "US", date(1951, 3, 13)),
])
def test_a_date_of_birth_corrected_while_the_number_is_asked_is_the_date_not_a_number(said, region, born):
    heard = hear(said, "phone", region=region)
    assert (heard.dob, heard.phone) == (born, None)


@pytest.mark.parametrize(("said", "region", "number"), [
    ("sorry, I got that wrong, it's 0491 573 065", "AU", "+61491573065"),   # no date in ten digits
    ("13-0-3-51", "AU", "+61130351"),                                       # no correction: the number said
    ("actually it's 0 4 9 1 5 7 3 0 6 5", "AU", "+61491573065"),
])
def test_digits_that_make_no_date_or_follow_no_correction_stay_a_number(said, region, number):
    assert hear(said, "phone", region=region).phone == number
