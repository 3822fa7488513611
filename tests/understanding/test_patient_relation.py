"""Whom the caller is calling for, where it is someone of theirs."""

from __future__ import annotations

import pytest

from .hearing import hear


@pytest.mark.parametrize(("text", "relation"), [
    ("Hi, it's Jane Doe here, I'm looking to book my young lad in for a check-up", "son"),
    ("it's about my young lad, he hurt his wrist, I'd like a doctor to have a look at it", "son"),
    ("I need an appointment for my daughter", "daughter"),
    ("my husband needs a check-up", "husband"),
    ("can you fit my wee girl in today", "daughter"),
    ("I'd like to bring my mum in for her flu shot", "mum"),
    # a booking of theirs to cancel or move
    ("Hi, this is Jane Doe, I need to cancel my daughter's cleaning on Friday", "daughter"),
    ("can I move my son's appointment to next week", "son"),
    ("can I take my son in for a check-up", "son"),
    ("my wife's booking on Tuesday, she can't make it", "wife"),
])
def test_the_person_booked_for(text, relation):
    assert hear(text).patient_relation == relation


@pytest.mark.parametrize("text", [
    "my husband sees Dr Roe but I've never been",      # someone told of, not booked for
    "I'd like to book for me and my son",              # the caller too: whose details first is theirs to say
    "can I book myself in", "my son told me to ring", "I need a check-up for my job",
    "I'd like to cancel my appointment, my daughter's got a tournament",   # whose it is: the caller's own
    "I've to take my mum up to the hospital that day, can we move it",     # where the caller will be
])
def test_no_one_else_is_booked_for(text):
    assert hear(text).patient_relation is None


def test_only_where_the_call_is_opened():
    assert hear("it's for my son", "dob").patient_relation is None
