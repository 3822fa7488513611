"""The fact fence, without a model: a rewording keeps every fact and adds none, or it is rejected."""

import pytest

from appliance.language.fact_fence import check_rewording, facts, names

TEMPLATE = ("Just to confirm: physiotherapy with Dr Sarah Patel on Thursday the 26th at 12:15 pm. "
            "That's $85. Shall I book that?")
KEEP = ("Dr Sarah Patel", "physiotherapy", "massage", "Bondi Junction")
FAITHFUL = "So that's physiotherapy with Dr Sarah Patel on Thursday the 26th at 12:15pm, for $85. Shall I book it?"


def verdict(rewording, template=TEMPLATE, keep=KEEP):
    return check_rewording(template, rewording, keep)


def test_a_faithful_rewording_is_accepted():
    assert verdict(FAITHFUL).accepted
    assert verdict("Great! Physiotherapy with Dr Sarah Patel, Thursday the 26th at 12:15 p.m., $85.00. "
                   "Shall I book that in?").accepted


@pytest.mark.parametrize("rewording, reason", [
    ("So that's physiotherapy with Dr Sarah Patel on Thursday the 26th, for $85. Shall I book it?", "dropped a time"),
    ("So that's physiotherapy with Dr Sarah Patel on Thursday the 26th at 12:15 pm. Shall I book it?",
     "dropped a price"),
    ("So that's physiotherapy with Dr Sarah Patel on Thursday the 26th at 12:15 pm, for $58. Shall I book it?",
     "dropped a price"),
    ("So that's physiotherapy with Dr Sarah Patel on Thursday the 26th at 12:15 pm, $85, room 4. Shall I book it?",
     "added a number"),
    ("So that's physiotherapy with Dr Sarah Patel and Tom on Thursday the 26th at 12:15 pm, $85. Shall I book it?",
     "added a name"),
    ("So that's physiotherapy and massage with Dr Sarah Patel on Thursday the 26th at 12:15 pm, $85. Shall I book?",
     "added a name"),
    ("So that's physiotherapy with Dr Patel on Thursday the 26th at 12:15 pm, for $85. Shall I book it?",
     "dropped a name"),
    ("So that's physiotherapy with Dr Sarah Patel on Friday the 26th at 12:15 pm, for $85. Shall I book it?",
     "dropped a date"),
    ("So that's physiotherapy with Dr Sarah Patel on Thursday the 27th at 12:15 pm, for $85. Shall I book it?",
     "dropped a number"),
    ("So that's physiotherapy with Dr Sarah Patel on Thursday the 26th at 12:15 pm for $85.", "dropped the question"),
    ("", "empty"),
    ("   ", "empty"),
    (None, "empty"),
    (FAITHFUL + " " + "really " * 20, "too long"),
    ("So that's physiotherapy with Dr Sarah Patel\non Thursday the 26th at 12:15 pm, $85. Shall I?", "more than one line"),
])
def test_an_unfaithful_rewording_is_rejected(rewording, reason):
    result = verdict(rewording)
    assert (result.accepted, result.reason) == (False, reason)


def test_spacing_and_case_do_not_matter():
    assert check_rewording("We open at 9 am and close at 5:30 pm.", "We're open from 9AM until 5:30pm.").accepted
    assert check_rewording("We open at 9 am.", "We open at 9 a.m.").accepted
    assert not check_rewording("We open at 9 am.", "We open at 9.").accepted


def test_names_of_the_caller_and_ordinary_sentence_openers():
    assert check_rewording("Thanks, Maria. And your date of birth?", "Thank you, Maria! Could I have your date of birth?",
                           ["Maria"]).accepted
    assert verdict("Thank you, Mary! Could I have your date of birth?", "Thanks, Maria. And your date of birth?",
                   ["Maria"]).reason == "dropped a name"
    assert check_rewording("Sure. Can I have your full name, please?", "Of course! May I have your full name?").accepted
    assert check_rewording("Sure. Can I have your full name, please?",
                           "Of course, Jennifer! May I have your full name?").reason == "added a name"


def test_phone_numbers_dates_of_birth_and_months():
    assert check_rewording("We'll call you on 0412 345 678.", "We'll ring you on 0412 345 678.").accepted
    assert check_rewording("We'll call you on 0412 345 678.", "We'll ring you on 0412 345 679.").reason == (
        "dropped a phone number")
    assert check_rewording("You were born on the 4th of May 1985?", "Your birthday is May 4th, 1985?").accepted
    assert check_rewording("You were born on the 4th of May 1985?", "Your birthday is June 4th, 1985?").reason == (
        "dropped a date")


def test_a_relative_day_or_number_word_is_a_fact_too():
    assert check_rewording("I can see you on Thursday.", "I can see you tomorrow, Thursday.").reason == "added a date"
    assert check_rewording("I'll cancel both of them.", "I'll cancel all three of them.").reason == "added a number"


def test_facts_and_names_are_normalised():
    assert facts(TEMPLATE, ("dr sarah patel", "physiotherapy")) == {
        ("time", "12:15 pm"), ("price", "$85"), ("date", "thursday"), ("number", "26")}
    assert names(TEMPLATE, ("dr sarah patel", "physiotherapy")) == {"dr sarah patel", "physiotherapy"}
    assert facts("It's $85.00, or 85 dollars.") == {("price", "$85")}


def test_reasons_never_carry_the_words():
    result = verdict("So that's physiotherapy with Dr Sarah Patel and Tom on Thursday the 26th at 12:15 pm, $85. Ok?")
    assert "Tom" not in result.reason and "85" not in result.reason
