from datetime import date, datetime, time

import pytest

from appliance.clinic.regions import region_for
from appliance.engine.speech import (join_words, say_letters, ordinal, say_date_of_birth, say_day, say_phone, say_price,
                                     say_time, say_when)

NOW = datetime(2026, 11, 23, 9, 5)


@pytest.mark.parametrize("n, text", [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"),
                                     (13, "13th"), (21, "21st"), (22, "22nd"), (23, "23rd"), (26, "26th"), (31, "31st")])
def test_ordinal(n, text):
    assert ordinal(n) == text


@pytest.mark.parametrize("t, text", [(time(12, 15), "12:15 pm"), (time(10, 0), "10 am"), (time(12, 0), "12 pm"),
                                     (time(0, 30), "12:30 am"), (time(17, 45), "5:45 pm")])
def test_say_time(t, text):
    assert say_time(t) == text


def test_say_when_like_a_person():
    assert say_when(datetime(2026, 11, 26, 12, 15), NOW) == "Thursday the 26th at 12:15 pm"
    assert say_day(date(2026, 12, 3), NOW) == "Thursday the 3rd of December"


def test_prices_and_dates_of_birth():
    assert say_price(85) == "$85"
    assert say_price(85.5) == "$85.50"
    assert say_price(30, "£") == "£30"
    assert say_date_of_birth(date(1985, 3, 4), region_for("AU")) == "the 4th of March 1985"
    assert say_date_of_birth(date(1985, 3, 4), region_for("US")) == "March 4th, 1985"


def test_phone_numbers_read_nationally():
    assert say_phone("+61412345678", region_for("AU")) == "0412 345 678"
    assert say_phone("+12125550123", region_for("US")) == "(212) 555-0123"


def test_join_words():
    assert join_words(["a"]) == "a"
    assert join_words(["a", "b"], "or") == "a or b"
    assert join_words(["a", "b", "c"]) == "a, b and c"


def test_a_reply_apologises_once():
    from appliance.engine.engine import _one_apology
    said = ["I'm sorry, that time has just been taken."]
    assert _one_apology(said, "I'm sorry, there's nothing available this afternoon.") == \
        "There's nothing available this afternoon."
    assert _one_apology(said, "Sorry, which would suit: 9 am or 9:15 am?") == "Which would suit: 9 am or 9:15 am?"
    assert _one_apology([], "I'm sorry, there's nothing available.") == "I'm sorry, there's nothing available."
    assert _one_apology(["Thanks."], "I'm sorry, there's nothing available.") == "I'm sorry, there's nothing available."


@pytest.mark.parametrize(("name", "said"), [
    ("Smyth", "S, M, Y, T, H"),
    ("O'Brien-Núñez", "O, apostrophe, B, R, I, E, N, hyphen, N, Ú, Ñ, E, Z"),
    ("Van der Berg", "V, A, N, space, D, E, R, space, B, E, R, G"),
])
def test_a_name_spelled_back_says_its_marks_and_gaps(name, said):
    assert say_letters(name) == said
