"""Numbers as callers say them."""

from __future__ import annotations

import pytest

from appliance.understanding.spoken_numbers import cardinal, day_ordinal, digit_runs, small_number, year


def toks(text: str) -> tuple[str, ...]:
    return tuple(text.split())


@pytest.mark.parametrize(("text", "value"), [
    ("seven", 7), ("twelve", 12), ("forty five", 45), ("twenty", 20), ("09", 9), ("30", 30),
])
def test_small_numbers(text: str, value: int) -> None:
    assert small_number(toks(text), 0) == (value, len(toks(text)))


@pytest.mark.parametrize(("text", "value"), [
    ("one hundred and five", 105), ("two thousand and one", 2001), ("four hundred", 400), ("1985", 1985),
    ("a hundred", 100), ("three thousand two hundred", 3200),
])
def test_cardinals(text: str, value: int) -> None:
    assert cardinal(toks(text), 0)[0] == value


@pytest.mark.parametrize(("text", "value"), [
    ("fourth", 4), ("twenty first", 21), ("thirty first", 31), ("4th", 4), ("22nd", 22), ("twelfth", 12),
    ("twentieth", 20),
])
def test_day_ordinals(text: str, value: int) -> None:
    assert day_ordinal(toks(text), 0) == (value, len(toks(text)))


def test_cardinal_days_only_when_allowed() -> None:
    assert day_ordinal(toks("twenty one"), 0) is None
    assert day_ordinal(toks("twenty one"), 0, allow_cardinal=True) == (21, 2)
    assert day_ordinal(toks("32nd"), 0) is None


@pytest.mark.parametrize(("text", "two_digit", "expected"), [
    ("1985", False, (1985, False)), ("nineteen eighty five", False, (1985, False)),
    ("nineteen oh five", False, (1905, False)), ("two thousand and one", False, (2001, False)),
    ("two thousand one", False, (2001, False)), ("twenty oh one", False, (2001, False)),
    ("twenty twenty six", False, (2026, False)), ("eighty five", True, (85, True)), ("85", True, (85, True)),
    ("'85", True, (85, True)), ("oh five", True, (5, True)), ("sixty", True, (60, True)),
])
def test_years(text: str, two_digit: bool, expected: tuple[int, bool]) -> None:
    got = year(toks(text), 0, two_digit)
    assert got is not None and got[:2] == expected


@pytest.mark.parametrize("text", ["eighty five", "85", "two", "seven"])
def test_short_years_need_permission(text: str) -> None:
    assert year(toks(text), 0, two_digit=False) is None


@pytest.mark.parametrize(("text", "digits"), [
    ("oh four one two three four five six seven eight", "0412345678"),
    ("zero four one two", "0412"),
    ("double seven", "77"),
    ("triple zero", "000"),
    ("plus six one four", "+614"),
    ("oh four hundred", "0400"),
    ("three forty five", "345"),
    ("0412-345-678", "0412345678"),
    ("nought nil", "00"),
])
def test_digit_runs(text: str, digits: str) -> None:
    assert digit_runs(toks(text))[0][0] == digits


def test_digit_runs_stop_at_words() -> None:
    runs = digit_runs(toks("call me on oh four one two or at home"))
    assert [r[0] for r in runs] == ["0412"]
