"""Whether the caller says they are new to the clinic or have been before."""

from __future__ import annotations

import pytest

from .hearing import hear


@pytest.mark.parametrize("text", [
    "Hi, I'd like to book a first appointment, I'm a new patient",
    "Hi, I'd like to book a skin check. I haven't been to you before.",
    "Hi there, I'd like to make an appointment. I've never been to you before.",
    "I'm new here", "it's my first time with you", "I've not been there before", "I'm a brand new patient",
    "no, I've never been in",
])
def test_new(text: str) -> None:
    assert hear(text, "intent").patient_status == "new"


@pytest.mark.parametrize("text", [
    "Hi, it's my first time. I'd like to book in.", "This is my first visit, can I make an appointment?",
    "It'll be my first appointment with you", "I'd like to book my first appointment", "it's my very first visit",
    "this is going to be my first consultation",
])
def test_new_the_visit_being_arranged_is_the_first(text: str) -> None:
    assert hear(text, "intent").patient_status == "new"


@pytest.mark.parametrize("text", [
    "I've never been to a chiropractor before. Can I get in?", "it's my first time seeing a physio",
    "I've never been to a podiatrist", "we've never been to an optometrist",
    "I'm not a patient with ye yet, a friend of mine goes to you", "I'm not a patient here yet",
    "so I've never actually been in before", "I've never really been there", "we've never ever been to you",
    "I'd like to get registered with you and get a check-up", "can I register as a new patient",
])
def test_new_never_to_any_practice_of_the_kind(text: str) -> None:
    assert hear(text, "intent").patient_status == "new"


@pytest.mark.parametrize("text", [
    "I've never been to a concert", "I've never been to a hospital with this", "my first time at a gym was awful",
    "it's my first time back in ages", "it's my first time with this knee", "it's my first appointment on Tuesday "
    "I need to move", "this is my first time since the operation", "it was my first visit last week",
])
def test_neither_a_first_at_something_else(text: str) -> None:
    assert hear(text, "intent").patient_status is None


@pytest.mark.parametrize("text", [
    "I'm an existing patient", "I'm not a new patient", "I've been to you before", "yes, I have been there before",
    "I'm a regular patient of Dr Lee's",
])
def test_returning(text: str) -> None:
    assert hear(text, "intent").patient_status == "returning"


@pytest.mark.parametrize("text", [
    "Hi, I'd like to come in for a first visit, I've never had acupuncture before",
    "I haven't been in for a while", "I need a new appointment", "Olivia Bennett", "the first one",
])
def test_neither(text: str) -> None:
    assert hear(text, "full_name").patient_status is None


@pytest.mark.parametrize("said, status", [
    ("I've not been to you lot before", "new"),
    ("I haven't been to you guys before", "new"),
    ("I have been to your practice before", "returning"),
    ("I've been to the surgery before", "returning"),
])
def test_been_before_said_of_the_clinic_in_other_words(said, status):
    assert hear(said).patient_status == status


@pytest.mark.parametrize("said", ["I have never come to you before", "I've never been to yous before",
                                  "I have never visited you"])
def test_never_been_in_other_words(said):
    assert hear(said).patient_status == "new"
