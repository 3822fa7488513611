"""Picking among the caller's own appointments (Tue 24 Nov 10:00 follow-up
with Dr Lee at City; Fri 27 Nov 14:00 massage with Raj at North Sydney)."""

from __future__ import annotations

import pytest

from .hearing import BOOKINGS, hear

PICKS = [
    ("the one tomorrow", (0,)), ("tomorrow's", (0,)), ("Tuesday's", (0,)), ("the Tuesday one", (0,)),
    ("the 24th", (0,)), ("the one on the 24th", (0,)), ("the follow-up", (0,)), ("the review", (0,)),
    ("the one with Dr Lee", (0,)), ("Dr Lee", (0,)), ("the 10 o'clock", (0,)), ("the ten am one", (0,)),
    ("the first one", (0,)), ("the earlier one", (0,)), ("the next one", (0,)), ("the city one", (0,)),
    ("the massage", (1,)), ("the massage on Friday", (1,)), ("the one with Raj", (1,)), ("Friday's", (1,)),
    ("the second one", (1,)), ("the last one", (1,)), ("the 2pm one", (1,)), ("the North Sydney one", (1,)),
    ("both", (0, 1)), ("all of them", (0, 1)), ("both of them please", (0, 1)), ("all my appointments", (0, 1)),
    ("everything", (0, 1)),
    # "one" written as a digit after what picks it
    ("The Tuesday 1.", (0,)), ("the massage 1, thanks", (1,)), ("the follow up 1, thank you", (0,)),
    ("the later 1", (1,)),
]


@pytest.mark.parametrize(("text", "picks"), PICKS)
def test_booking_pick(text: str, picks: tuple[int, ...]) -> None:
    assert hear(text, "booking_choice", bookings=BOOKINGS).booking_picks == picks


@pytest.mark.parametrize("text", [
    "the one on Thursday",       # no appointment then
    "the flu shot",              # no such appointment
    "the massage tomorrow",      # the massage is on Friday
    "I'm not sure", "yes", "the third one",
])
def test_no_booking_pick(text: str) -> None:
    assert hear(text, "booking_choice", bookings=BOOKINGS).booking_picks == ()


def test_singular_words_fitting_several_pick_none() -> None:
    two_followups = (BOOKINGS[0], BOOKINGS[0].__class__(**{**BOOKINGS[1].__dict__, "service_id": "followup"}))
    assert hear("the follow-up", "booking_choice", bookings=two_followups).booking_picks == ()
    assert hear("the follow-ups", "booking_choice", bookings=two_followups).booking_picks == (0, 1)


def test_picks_from_the_task_sentence() -> None:
    assert hear("Hi, I need to move my appointment tomorrow", bookings=BOOKINGS).booking_picks == (0,)
    assert hear("cancel my massage please", bookings=BOOKINGS).booking_picks == (1,)
    assert hear("cancel all of them", bookings=BOOKINGS).booking_picks == (0, 1)
    assert hear("I need to cancel my appointment on Friday", bookings=BOOKINGS).booking_picks == (1,)


def test_a_time_preference_is_not_a_pick() -> None:
    utterance = hear("Tuesday afternoon", "time_preference", bookings=BOOKINGS)
    assert utterance.booking_picks == ()
    assert utterance.window.label == "Tuesday afternoon"


def test_no_picks_without_bookings() -> None:
    assert hear("the one tomorrow", "booking_choice").booking_picks == ()


def test_closing_words_are_not_a_pick() -> None:
    assert hear("no that's everything thanks", "anything_else", bookings=BOOKINGS).booking_picks == ()
    assert hear("cancel everything", bookings=BOOKINGS).booking_picks == (0, 1)


@pytest.mark.parametrize(("text", "picks"), [("the one on the 27th", (1,)), ("the one on the 24th", (0,)),
                                             ("the one on the first", ()), ("on the second", ())])
def test_an_ordinal_after_on_is_a_day_of_the_month_not_a_position(text, picks) -> None:
    assert hear(text, "booking_choice", bookings=BOOKINGS).booking_picks == picks


@pytest.mark.parametrize(("heard", "pick"), [
    ("The 1000-1.", (0,)),          # "the 10:00 one" written as bare digits, "one" as 1
    ("The 1000 one.", (0,)),
    ("the 1400 one", (1,)),
    ("The 200-1.", (1,)),
])
def test_a_time_written_as_bare_digits_picks_the_appointment_at_that_time(heard, pick) -> None:
    assert hear(heard, "booking_choice", bookings=BOOKINGS).booking_picks == pick


@pytest.mark.parametrize("heard", ["the 1045 one", "I want to cancel 1000 things"])
def test_bare_digits_that_spell_no_appointments_time_pick_none(heard) -> None:
    assert hear(heard, "booking_choice", bookings=BOOKINGS).booking_picks == ()


@pytest.mark.parametrize("said, question", [
    ("I need to cancel the massage I've got booked. Not the follow-up tomorrow, I still need that one, just the "
     "massage.", "intent"),
    ("not the one tomorrow, the massage", "booking_choice"),
    ("cancel the massage, the follow-up one's fine, keep that one", "booking_choice"),
    ("keep the follow-up, cancel the other", "booking_choice"),
])
def test_a_booking_the_caller_keeps_is_not_the_one_meant(said, question):
    assert hear(said, question, bookings=BOOKINGS).booking_picks == (1,)
