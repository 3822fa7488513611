"""Dates and days, before they become a birth date, a window or a pick."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from appliance.clinic.regions import region_for
from appliance.understanding.calendar_phrases import day_first, find_dates, find_days
from appliance.understanding.normalise import normalise

NOW = datetime(2026, 11, 23, 9, 5)


def dates(text: str, region: str = "AU", dob: bool = False):
    return [(d.day, d.month, d.year) for d in find_dates(normalise(text).tokens, region_for(region), dob)]


@pytest.mark.parametrize(("text", "expected"), [
    ("fourth of March eighty five", [(4, 3, 85)]),
    ("March fourth nineteen eighty five", [(4, 3, 1985)]),
    ("the 26th", [(26, None, None)]),
    ("26/11", [(26, 11, None)]),
    ("2 June 79", [(2, 6, 79)]),
    ("on the first", [(1, None, None)]),
])
def test_dates(text: str, expected) -> None:
    assert dates(text, dob=True) == expected


@pytest.mark.parametrize("text", ["the first one", "the second", "first available", "may I", "march on",
                                  "the third option", "2 people"])
def test_not_dates(text: str) -> None:
    assert dates(text) == []


def test_short_years_only_for_birth_dates() -> None:
    assert dates("the 26th of November at two") == [(26, 11, None)]
    assert dates("fourth of March eighty five") == [(4, 3, None)]


def test_numeric_order() -> None:
    assert day_first(region_for("AU")) and day_first(region_for("GB")) and not day_first(region_for("US"))
    assert dates("04/03/1985") == [(4, 3, 1985)]
    assert dates("04/03/1985", "US") == [(3, 4, 1985)]
    assert dates("11/30/1972") == [(30, 11, 1972)]
    assert dates("30/11/1972", "US") == [(30, 11, 1972)]


def days(text: str):
    return [(d.first, d.end, d.label) for d in find_days(normalise(text).tokens, NOW, region_for("AU"))]


def test_days() -> None:
    assert days("tomorrow") == [(date(2026, 11, 24), date(2026, 11, 25), "tomorrow")]
    assert days("Thursday") == [(date(2026, 11, 26), date(2026, 11, 27), "Thursday")]
    assert days("next week") == [(date(2026, 11, 30), date(2026, 12, 7), "next week")]
    assert days("the day after tomorrow")[0][0] == date(2026, 11, 25)
    assert days("the weekend")[0][:2] == (date(2026, 11, 28), date(2026, 11, 30))
    assert days("end of the week")[0][:2] == (date(2026, 11, 26), date(2026, 11, 28))
    assert days("next month")[0][:2] == (date(2026, 12, 1), date(2027, 1, 1))
    assert days("in 3 days")[0][:2] == (date(2026, 11, 26), date(2026, 11, 27))
    assert days("a week from today")[0][0] == date(2026, 11, 30)


def test_a_past_day_of_this_month_is_next_month() -> None:
    assert days("the 5th")[0][0] == date(2026, 12, 5)
    assert days("the 23rd")[0][0] == date(2026, 11, 23)


def test_impossible_dates_are_skipped() -> None:
    assert days("the 31st of November") == []
