"""How intents are combined and ordered."""

from __future__ import annotations

import pytest

from appliance.understanding import INTENTS

from .hearing import hear, intent_names


def test_the_intent_vocabulary() -> None:
    assert INTENTS == ("book", "reschedule", "cancel", "cancel_all", "query", "price", "hours", "address",
                       "service_info", "human", "callback", "emergency", "crisis", "medical_advice", "non_service",
                       "yes", "no", "correction", "goodbye", "withdraw", "offer_check")


def test_red_flags_then_tasks_then_acts() -> None:
    names = intent_names(hear("yes and how much is it, actually I can't breathe"))
    assert names[0] == "emergency"
    assert names.index("price") < names.index("yes") < names.index("correction")


def test_surer_task_first() -> None:
    names = intent_names(hear("do you have anything Thursday, and how much is a follow-up"))
    assert names[:2] == ["price", "book"]


def test_every_signal_is_well_formed() -> None:
    lines = ["I'd like to book", "yes", "no that's all, thanks bye", "I have chest pain", "what time do you close",
             "sorry, how much is a follow-up again?", "I want to kill myself", "0", "a flu shot"]
    for line in lines:
        for signal in hear(line).intents:
            assert signal.name in INTENTS
            assert signal.confidence in ("high", "medium", "low")
            assert signal.evidence and " " not in signal.evidence


def test_nothing_said() -> None:
    assert hear("").intents == ()
    assert hear("   ").intents == ()
    assert hear("um, uh").intents == ()
    assert hear("...").intents == ()


def test_has_and_signal() -> None:
    utterance = hear("no that's all, thanks bye", "anything_else")
    assert utterance.has("no") and utterance.has("goodbye") and not utterance.has("yes")
    assert utterance.signal("goodbye").name == "goodbye"
    assert utterance.signal("book") is None


def test_a_question_about_a_service_is_not_a_booking() -> None:
    utterance = hear("what is a remedial massage")
    assert intent_names(utterance) == ["service_info"]
    assert utterance.service_ids == ("massage",)


def test_book_one_is_a_booking_at_an_open_question_and_a_pick_at_a_slot_choice() -> None:
    assert "book" in intent_names(hear("great, I'd like to book one please", "anything_else"))
    assert "book" in intent_names(hear("can I book it?", "intent"))
    assert "book" not in intent_names(hear("I don't want to book one", "anything_else"))
    assert "book" not in intent_names(hear("I'll book that one", "slot_choice"))


@pytest.mark.parametrize("line", ["Is there a person I can talk to?", "is there anyone I could speak to?",
                                  "someone we can speak with please", "I'd rather speak to a human",
                                  "I would rather talk to someone at the desk"])
def test_asking_for_a_person_with_the_person_first_or_as_a_preference(line) -> None:
    assert intent_names(hear(line))[:1] == ["human"]


@pytest.mark.parametrize(("line", "task"), [("I'd rather book for Friday", "book"), ("we'd rather cancel", "cancel"),
                                            ("rather than cancel, can I move it", "reschedule")])
def test_would_rather_states_a_preference_and_rather_than_sets_one_aside(line, task) -> None:
    assert intent_names(hear(line)) == [task]


def test_would_rather_not_still_negates() -> None:
    assert "cancel" not in intent_names(hear("I'd rather not cancel"))


@pytest.mark.parametrize("line", ["How do I find your Clapham clinic?", "how would we get to the North Sydney site?",
                                  "how can I reach your city clinic"])
def test_asking_how_to_find_a_site_is_an_address_question(line) -> None:
    assert intent_names(hear(line)) == ["address"]


@pytest.mark.parametrize("line", ["how do I get the forms", "how do I get a refund"])
def test_how_do_i_get_something_else_is_no_address_question(line) -> None:
    assert "address" not in intent_names(hear(line))
