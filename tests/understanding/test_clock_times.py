"""Times of day as callers say them."""

from __future__ import annotations

from datetime import time

import pytest

from appliance.understanding.clock_times import find_times
from appliance.understanding.normalise import normalise


def first(text: str):
    found = find_times(normalise(text).tokens)
    return found[0] if found else None


@pytest.mark.parametrize(("text", "resolved", "strong"), [
    ("8 o'clock", time(8), True), ("eight", time(8), False), ("845, please.", time(8, 45), False),
    ("the 1215", time(12, 15), False), ("230 pm", time(14, 30), True), ("half six", time(18, 30), True),
    ("831", time(8, 30), False), ("8,31", time(8, 30), False), ("10,45", time(10, 45), False),
    ("the 12:15", time(12, 15), True), ("the 5-15", time(17, 15), False),
    ("twelve fifteen", time(12, 15), True), ("quarter past twelve", time(12, 15), True),
    ("half past nine", time(9, 30), True), ("9:30", time(9, 30), True), ("9.30", time(9, 30), True),
    ("three", time(15), False), ("2 pm", time(14), True), ("2pm", time(14), True), ("ten am", time(10), True),
    ("quarter to three", time(14, 45), True), ("nine oh five", time(9, 5), True), ("noon", time(12), True),
    ("midday", time(12), True), ("three forty five", time(15, 45), True), ("ten past two", time(14, 10), True),
    ("at 3 in the afternoon", time(15), True), ("at 9 in the morning", time(9), True), ("14:30", time(14, 30), True),
    ("5:15", time(17, 15), True), ("twelve", time(12), False), ("seven", time(7), False),
])
def test_times(text: str, resolved: time, strong: bool) -> None:
    clock = first(text)
    assert clock is not None
    assert clock.resolved() == resolved
    assert clock.strong is strong


@pytest.mark.parametrize("text", ["the one with Raj", "the 26th", "that one", "24", "yes", "1966", "100 dollars",
                                  "1275"])
def test_not_times(text: str) -> None:
    assert first(text) is None


def test_part_of_day_settles_the_half() -> None:
    assert first("three").resolved("morning") == time(3)
    assert first("eight").resolved("evening") == time(20)


def test_matches_either_half_when_unsaid() -> None:
    clock = first("eight")
    assert clock.matches(time(8)) and clock.matches(time(20)) and not clock.matches(time(8, 30))
    assert not first("8 am").matches(time(20))


def test_labels() -> None:
    assert first("2 pm").label() == "2pm"
    assert first("half past nine").label() == "9:30am"
    assert first("noon").label() == "noon"
