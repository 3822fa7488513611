"""`understand`: the whole utterance, in the context the agent listens in."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, time

import pytest

from appliance.domain import ANYONE, TimeWindow
from appliance.understanding import ListenContext, PersonName, Signal, Utterance, understand

from appliance.clinic.regions import region_for

from .hearing import BOOKINGS, CATALOG, CATALOG_EASTSIDE, NOW, QUESTIONS, SLOTS, hear, intent_names


# ------------------------------------------------------------ the SCENARIOS.md example call

def test_example_opening_is_a_reschedule() -> None:
    utterance = hear("Hi, I need to move my appointment tomorrow")
    assert intent_names(utterance) == ["reschedule"]
    assert utterance.signal("reschedule").confidence == "high"
    assert utterance.window is None  # "tomorrow" is the appointment being moved


def test_example_full_name() -> None:
    assert hear("Sarah Johnson", "full_name").name == PersonName("Sarah", "Johnson")


def test_example_dob() -> None:
    assert hear("fourth of March eighty five", "dob").dob == date(1985, 3, 4)


def test_example_booking_choice() -> None:
    assert hear("the one tomorrow", "booking_choice", bookings=BOOKINGS[:1]).booking_picks == (0,)


def test_example_time_preference() -> None:
    assert hear("Thursday afternoon", "time_preference").window == TimeWindow(
        "Thursday afternoon", datetime(2026, 11, 26), datetime(2026, 11, 27), time(12), time(17))


def test_example_slot_choice() -> None:
    assert hear("the second one", "slot_choice", slots=SLOTS).slot_pick == 1


def test_example_confirm() -> None:
    utterance = hear("yes that's right", "confirm", slots=SLOTS)
    assert intent_names(utterance) == ["yes"]
    assert utterance.slot_pick is None


def test_example_interjection() -> None:
    utterance = hear("sorry, how much is a follow-up again?", "slot_choice", slots=SLOTS)
    assert intent_names(utterance) == ["price"]
    assert utterance.service_ids == ("followup",)
    assert utterance.slot_pick is None and utterance.window is None


# ------------------------------------------------------------ everything at once

def test_a_caller_who_says_it_all() -> None:
    utterance = hear("book me a flu shot Friday at Eastside", catalog=CATALOG_EASTSIDE)
    assert intent_names(utterance) == ["book"]
    assert utterance.service_ids == ("flu",)
    assert utterance.location_id == "east"
    assert utterance.window == TimeWindow("Friday", datetime(2026, 11, 27), datetime(2026, 11, 28))


def test_name_task_service_and_time_in_one_breath() -> None:
    utterance = hear("hi, my name is Sarah Johnson and I'd like a review with Raj next Monday morning")
    assert utterance.name == PersonName("Sarah", "Johnson")
    assert utterance.has("book")
    assert utterance.service_ids == ("followup",)
    assert utterance.practitioner_id == "shah"
    assert utterance.window.label == "next Monday morning"


def test_details_given_with_a_correction() -> None:
    utterance = hear("no, actually, can we do Monday afternoon instead?", "confirm")
    assert utterance.has("no") and utterance.has("correction")
    # said on a Monday: "Monday" is today
    assert utterance.window == TimeWindow("this afternoon", datetime(2026, 11, 23), datetime(2026, 11, 24),
                                          time(12), time(17))


def test_anyone_for_the_practitioner() -> None:
    assert hear("anyone is fine", "practitioner").practitioner_id == ANYONE


# ------------------------------------------------------------ a whole call, turn by turn

CALL = [
    ("intent", "Hi, I'd like to book a follow-up with Raj please",
     {"intents": ["book"], "service_ids": ("followup",), "practitioner_id": "shah"}),
    ("full_name", "it's Oliver Grant", {"name": PersonName("Oliver", "Grant")}),
    ("dob", "2nd of June 1979", {"dob": date(1979, 6, 2)}),
    ("phone", "oh four one two, three four five, six seven eight", {"phone": "+61412345678"}),
    ("location", "the City one", {"location_id": "city"}),
    ("time_preference", "Wednesday morning", {"window": TimeWindow(
        "Wednesday morning", datetime(2026, 11, 25), datetime(2026, 11, 26), None, time(12)), "weekdays": (2,)}),
    ("slot_choice", "the first one", {"slot_pick": 0}),
    ("confirm", "yes, that's right", {"intents": ["yes"]}),
    ("anything_else", "no thanks, that's all", {"intents": ["no", "goodbye"]}),
]


@pytest.mark.parametrize(("waiting_for", "line", "expected"), CALL)
def test_a_booking_call(waiting_for: str, line: str, expected: dict) -> None:
    utterance = hear(line, waiting_for, slots=SLOTS if waiting_for in ("slot_choice", "confirm") else ())
    for field, value in expected.items():
        got = intent_names(utterance) if field == "intents" else getattr(utterance, field)
        assert got == value, (field, line)
    # nothing else is made up
    empty = {f.name for f in dataclasses.fields(Utterance)} - set(expected) - {"text", "intents"}
    for field in empty:
        assert getattr(utterance, field) in (None, (), {}), (field, line)


# ------------------------------------------------------------ the listening context

def test_identity_questions_keep_their_answers_apart() -> None:
    # a date long past said with the name asked for is the caller's birth date, never a window; a date to come
    # is neither
    utterance = hear("Sarah Johnson, fourth of March eighty five", "full_name")
    assert utterance.name == PersonName("Sarah", "Johnson")
    assert utterance.dob == date(1985, 3, 4) and utterance.window is None
    later = hear("Sarah Johnson, fourth of March", "full_name")
    assert later.dob is None and later.window is None
    # a name said while a date of birth is asked is not taken without a marker
    assert hear("Sarah Johnson", "dob").name is None


def test_region_sets_phone_and_date_order() -> None:
    us = understand("04/03/1985", ListenContext(QUESTIONS["dob"], NOW, CATALOG, region=region_for("US")))
    assert us.dob == date(1985, 4, 3)
    us_phone = understand("two one two, five five five, oh one eight seven", ListenContext(QUESTIONS["phone"], NOW, CATALOG, region_for("US")))
    assert us_phone.phone == "+12125550187"


def test_the_text_is_kept_as_heard() -> None:
    line = "Hi, I need to move my appointment tomorrow"
    assert hear(line).text == line


def test_types() -> None:
    utterance = hear("yes", "confirm")
    assert isinstance(utterance, Utterance)
    assert all(isinstance(s, Signal) for s in utterance.intents)
    with pytest.raises(dataclasses.FrozenInstanceError):
        utterance.text = "no"  # type: ignore[misc]


@pytest.mark.parametrize("line", ["", "?", "123", "the the the", "a" * 500, "0412 " * 40, "ünïcødé ☎ 📞",
                                  "S M Y T H " * 30, "Thursday " * 50, "yes no yes no maybe"])
def test_odd_input_never_raises(line: str) -> None:
    for waiting_for in ("intent", "full_name", "dob", "phone", "time_preference", "slot_choice",
                        "booking_choice", "confirm", "spelling", "none"):
        hear(line, waiting_for, slots=SLOTS, bookings=BOOKINGS)


def test_understanding_is_repeatable() -> None:
    first = hear("book me a review with Raj on Thursday at 2", slots=SLOTS, bookings=BOOKINGS)
    again = hear("book me a review with Raj on Thursday at 2", slots=SLOTS, bookings=BOOKINGS)
    assert first == again


def test_the_weekdays_named_for_an_hours_question() -> None:
    assert hear("are you open on Saturdays?").weekdays == (5,)
    assert hear("what are your hours on Monday and Thursday?").weekdays == (0, 3)
    assert hear("when are you open next month?").weekdays == ()


@pytest.mark.parametrize(("text", "weekdays"), [
    ("and what time do you shut on Tuesday?", (1,)),
    ("are you open on Saturdays?", (5,)),
    ("what are your hours on Monday and Thursday?", (0, 3)),
    ("when do you open?", ()),
])
def test_the_weekdays_of_an_hours_question_asked_while_a_date_of_birth_is_asked(text, weekdays):
    assert hear(text, "dob").weekdays == weekdays
