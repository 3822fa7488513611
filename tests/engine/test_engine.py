"""The engine end to end on the example clinic: routing, pre-emption, side trips,
corrections, reprompts, the LLM hook, failures and the call record."""

import copy

import pytest

from appliance.clinic import clinic_from_mapping
from appliance.engine.clock import CountingIds
from appliance.engine.engine import CallEnded, Engine
from appliance.engine.types import ROUTES, CallInfo
from appliance.store.clinic_store import ClinicStore
from appliance.store.records import RecordError
from appliance.understanding import INTENTS, Signal

SARAH = "+61400000001"


@pytest.fixture
def make_engine(flow, store, clock, recorder):
    def make(**kw):
        return Engine(flow=flow, store=store, clock=clock, new_id=CountingIds(), recorder=recorder, **kw)
    return make


@pytest.fixture
def engine(make_engine):
    return make_engine()


def say(engine, *lines):
    result = None
    for line in lines:
        result = engine.turn(line)
    return result


def test_greeting_and_record(engine, db):
    result = engine.start(CallInfo(caller_id=SARAH))
    assert "Harbour Physio" in result.reply
    assert result.state == "greeting" and result.waiting_for == "intent"
    assert [t.name for t in result.tools] == ["GetPatientDetails"]
    call = list(db["calls"].rows)[0]
    assert call["caller_id"] == SARAH and call["ended_at"] is None
    assert [t["seq"] for t in db["turns"].rows] == [0]


def test_the_example_call_step_by_step(engine, db):
    engine.start(CallInfo(caller_id=SARAH))
    steps = [
        ("Hi, I need to move my appointment tomorrow", "full_name"),
        ("Sarah Johnson", "dob"),
        ("fourth of March eighty five", "time_preference"),
        ("Thursday afternoon", "slot_choice"),
        ("sorry, how much is a follow-up again?", "slot_choice"),
        ("the second one", "confirm"),
        ("yes that's right", "anything_else"),
    ]
    for line, waiting in steps:
        result = engine.turn(line)
        assert result.waiting_for == waiting, (line, result.reply, result.state)
    assert "12:15 pm" in result.reply
    result = engine.turn("no thanks, that's all")
    assert result.ended and result.outcome == "rescheduled" and result.hangup
    rows = {r["id"]: r for r in db["appointments"].rows}
    assert rows["a1"]["status"] == "cancelled"
    new = [r for r in rows.values() if r["rescheduled_from"] == "a1"]
    assert len(new) == 1 and new[0]["start"].startswith("2026-11-26T12:15")
    call = list(db["calls"].rows)[0]
    assert call["outcome"] == "rescheduled" and call["final_state"] == "goodbye"


def test_price_side_trip_answers_and_returns(engine):
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, "I'd like to book a follow-up at the City clinic", "Sarah Johnson", "4th of March 1985", "Thursday afternoon")
    assert engine.current.name == "offer_slots"
    result = engine.turn("how much is that?")
    assert "$85" in result.reply
    assert result.waiting_for == "slot_choice" and result.state == "offer_slots"
    assert [(t.from_state, t.to_state) for t in result.transitions] == [
        ("offer_slots", "answer_price"), ("answer_price", "offer_slots")]


def test_the_same_question_asked_again_and_again_instead_of_an_answer_ends_in_a_call_back_not_a_loop(engine):
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, "I'd like to book a follow-up at the City clinic", "Sarah Johnson", "4th of March 1985",
        "Thursday afternoon")
    states = [engine.turn("how much is that?").state for _ in range(12) if engine.current.waits]
    assert len(states) < 12 and engine.current.name.startswith("callback")


def test_a_day_said_with_a_question_about_it_when_asked_when_is_both_answered_and_searched(engine):
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, "I'd like to book a follow-up at the City clinic", "Sarah Johnson", "4th of March 1985")
    assert engine.current.name == "ask_time_preference"
    result = engine.turn("Thursday afternoon, are you open Thursdays?")
    assert result.state == "offer_slots" and "open" in result.reply


def test_a_caller_taken_into_a_task_they_never_meant_is_let_go_of_it(engine, db):
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, how much is a follow-up? I'd like to book")
    assert engine.current.name == "ask_full_name"
    result = engine.turn("oh I'm not booking yet, just asking")
    assert result.state == "anything_else" and engine.ctx.task is None
    assert engine.turn("no, that's all, thanks").state == "goodbye"
    assert not list(db["callbacks"].rows) if "callbacks" in db.table_names() else True


def test_different_questions_in_a_row_are_all_answered(engine):
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, "I'd like to book a follow-up at the City clinic", "Sarah Johnson", "4th of March 1985",
        "Thursday afternoon")
    for asked in ("how much is that?", "where is the City clinic?", "what time do you close on Friday?",
                  "how much is a massage?", "where is North Sydney?"):
        assert engine.turn(asked).state == "offer_slots"


def test_a_question_before_any_task_is_answered_then_anything_else_not_the_opening_again(engine):
    engine.start(CallInfo(caller_id=SARAH))
    result = engine.turn("what are your opening hours?")
    assert "Monday" in result.reply and result.reply.endswith("Is there anything else I can help you with?")
    assert result.waiting_for == "anything_else" and result.state == "anything_else"
    result = engine.turn("no, that's all, thanks")
    assert result.ended and result.outcome == "info" and result.hangup


def test_a_caller_not_understood_after_only_an_answer_is_offered_a_call_back_not_a_goodbye(engine):
    # the first line misheard as a question ("Acupuncture" for "uh, the, hmm"): the caller still wants something
    engine.start(CallInfo(caller_id=SARAH))
    engine.turn("what are your opening hours?")
    result = say(engine, "the blue thing from before", "with the um", "the other one")
    assert result.ended and result.outcome == "callback", (result.reply, result.state)
    assert [t.to_state for t in result.transitions][:2] == ["anything_else_unclear", "callback_unclear"]
    assert "call you back" in result.reply


def test_a_caller_not_understood_after_a_booking_is_said_goodbye_to(engine):
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, "book a follow-up at the City clinic", "Sarah Johnson", "4 March 1985", "Thursday afternoon",
        "the first one", "yes")
    result = say(engine, "the blue thing from before", "with the um", "the other one")
    assert result.ended and result.outcome == "booked", (result.reply, result.state)


def test_a_task_after_a_question_is_still_taken_up(engine):
    engine.start(CallInfo(caller_id=SARAH))
    engine.turn("how much is a follow-up?")
    result = engine.turn("great, I'd like to book one please")
    assert engine.ctx.task == "book" and engine.ctx.service_id == "followup", (result.reply, result.state)
    assert result.waiting_for != "service", result.reply


@pytest.mark.parametrize("line, said, unsaid", [
    ("are you open on Fridays?", ["On Friday we're open 8 am to 3 pm."], ["Monday", "Tuesday"]),
    ("are you open on Saturday?", ["On Saturday we're closed."], ["Friday"]),
    ("what are your hours on Monday and Thursday?", ["Monday", "12 pm", "Thursday"], ["Friday"]),
    ("when are you open?", ["Monday", "Friday"], []),
])
def test_the_hours_of_the_days_asked_about_else_the_week(engine, line, said, unsaid):
    engine.start(CallInfo(caller_id=SARAH))
    reply = engine.turn(line).reply
    assert all(part in reply for part in said), reply
    assert not any(part in reply for part in unsaid), reply


@pytest.mark.parametrize("lines", [
    [],
    ["I want to book a follow-up"],
    ["I want to book a follow-up", "Sarah Johnson"],
    ["I want to book a follow-up", "Sarah Johnson", "4/3/1985", "Thursday afternoon"],
    ["I want to book a follow-up", "Sarah Johnson", "4/3/1985", "Thursday afternoon", "the first one"],
])
def test_emergency_pre_empts_every_state(engine, db, lines):
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, *lines)
    result = engine.turn("my husband has crushing chest pain and can't breathe")
    assert result.ended and result.outcome == "emergency"
    assert "000" in result.reply
    assert not [r for r in db["appointments"].rows if r["id"] not in ("a1", "a2")]


def test_crisis_goes_to_a_human(engine):
    engine.start(CallInfo(caller_id=SARAH))
    result = engine.turn("honestly I just want to end my life")
    assert result.ended and result.transfer and result.transfer_to == "+61290000001"
    assert result.outcome == "transferred"


def test_caller_who_answers_more_than_asked(engine):
    engine.start(CallInfo(caller_id=""))
    result = engine.turn("Hi this is Sarah Johnson, born 4 March 1985, can I book a follow-up at City on Thursday afternoon")
    assert result.state == "offer_slots", result.reply
    assert "12 pm" in result.reply and "12:15 pm" in result.reply


def test_correction_updates_without_restarting(engine):
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, "book a follow-up please", "Sarah Johnsen")
    result = engine.turn("actually my last name is Johnson")
    assert engine.ctx.last_name == "Johnson"
    assert result.waiting_for == "dob"
    result = engine.turn("4th of March 1985")
    assert engine.ctx.patient is not None and engine.ctx.patient.id == "p1"


def test_half_a_name_asks_for_the_full_name_once_more_then_for_the_missing_part(engine):
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I need to move my appointment tomorrow")
    again = engine.turn("Johnson")            # half a name: more often misheard than meant
    assert again.state == "ask_full_name" and again.waiting_for == "full_name"
    assert engine.turn("Sarah Johnson").waiting_for == "dob"

    other = Engine(flow=engine.flow, store=engine.store, clock=engine.clock, new_id=CountingIds())
    other.start(CallInfo(caller_id=""))
    say(other, "Hi, I need to move my appointment tomorrow", "Johnson")
    assert other.turn("Johnson").waiting_for in ("first_name", "last_name")   # asked twice: ask for the other part


def test_a_booking_caller_nobody_was_found_for_is_asked_whether_they_have_been_before_then_for_the_name(engine, db):
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up", "Sally Jones")
    asked = engine.turn("fourth of March eighty five")      # no Sally Jones: misheard, or new?
    assert asked.state == "ask_been_before" and "been to us before" in asked.reply
    again = engine.turn("yep")
    assert again.state == "ask_returning_name" and again.waiting_for == "full_name"
    found = engine.turn("Sarah Johnson")                     # the date of birth is kept
    assert found.waiting_for != "dob" and found.state != "confirm_new_patient"
    assert engine.ctx.patient is not None and engine.ctx.patient.id == "p1"
    assert not any(t["name"] == "CreatePatient" for t in db["tool_calls"].rows)


@pytest.mark.parametrize("answer", ["No, I haven't", "nope, first time", "no, never", "I'm new actually"])
def test_a_booking_caller_who_has_not_been_before_goes_on_as_new_without_the_name_and_date_asked_again(engine, answer):
    engine.start(CallInfo(caller_id="+61400000099"))
    say(engine, "Hi, I'd like to book a follow-up", "Sally Jones", "fourth of March eighty five")
    new = engine.turn(answer)
    assert engine.ctx.patient_status == "new"
    assert new.waiting_for not in ("full_name", "dob") and engine.ctx.asked.isdisjoint({"ask_name_again"})
    assert engine.ctx.dob_mismatches == 0 and engine.ctx.not_found == 1


def test_an_exact_date_of_birth_and_a_heard_surname_are_put_to_the_caller_by_name(engine, db):
    """Whisper bends first names far more than surnames: "I'll love you Bennett" for Olivia Bennett."""
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up", "I'll love you Johnson")
    asked = engine.turn("fourth of March eighty five")
    assert asked.state == "confirm_identity" and asked.waiting_for == "confirm"
    assert "am I speaking with Sarah Johnson?" in asked.reply
    assert engine.ctx.patient is None and engine.ledger.identified_patient is None   # asked, not identified
    found = engine.turn("yes, that's me")
    assert engine.ctx.patient is not None and engine.ctx.patient.id == "p1"
    assert found.state != "confirm_new_patient"
    lookups = [t for t in db["tool_calls"].rows if t["name"] == "GetPatientDetails"]
    assert '"first_name": "Sarah"' in lookups[-1]["arguments"] and '"status": "matched"' in lookups[-1]["result"]
    assert not any(t["name"] == "CreatePatient" for t in db["tool_calls"].rows)


def test_a_first_name_bent_into_ordinary_words_still_leads_to_the_date_of_birth_not_a_last_name_question(engine):
    """"I love you Bennett" for "Olivia Bennett" (a whole SIP run): the caller, asked for a last name on its
    own, would only repeat the full name; with the surname read, the date of birth can find her."""
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up")
    assert engine.turn("I love you Johnson").waiting_for == "dob"
    assert engine.turn("fourth of March eighty five").state == "confirm_identity"


def test_the_callers_own_number_the_exact_birthday_and_a_surname_that_sounds_right_identify_her(engine, db):
    """"Ali Marie" for Eilidh Murray over SIP: the first name bent past recognition, the surname only in sound.
    With the caller's number on her record and her exact date of birth, no question is put."""
    engine.start(CallInfo(caller_id="+61400000001"))
    say(engine, "Hi, I'd like to book a follow-up", "Ali Jonsen")
    engine.turn("fourth of March eighty five")
    assert engine.ctx.patient is not None and engine.ctx.patient.id == "p1"
    assert engine.ctx.state != "confirm_identity"


@pytest.mark.parametrize("said", ["Park, Clow", "Tara Gibbs", "This is Ilyul Solarbin"])
def test_the_one_patient_on_the_callers_number_born_that_day_is_put_to_the_caller_whatever_the_name(make_engine,
                                                                                                   said):
    """A name bent past any likeness (said surname first, or unlike any English word): the caller's number and
    the exact date of birth agree on one patient, who is asked about by name, never identified unasked."""
    engine = make_engine()
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, "Hi, I'd like to book a follow-up", said)
    asked = engine.turn("fourth of March eighty five")
    assert asked.state == "confirm_identity" and "am I speaking with Sarah Johnson?" in asked.reply
    assert engine.ctx.patient is None
    engine.turn("yes")
    assert engine.ctx.patient is not None and engine.ctx.patient.id == "p1"


@pytest.mark.parametrize("spelled", ["J O N H S O N", "J O H S O N", "J, O, H, N, S, O, M"])
def test_a_spelled_surname_a_letter_or_two_off_with_the_exact_birthday_puts_that_patient_to_the_caller(engine,
                                                                                                      spelled):
    """A first name bent past likeness, the surname spelled with a letter heard wrong or lost: with the exact
    date of birth, the one patient of that day whose surname is that near is asked about, never identified
    unasked."""
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up", "Zed Jxqvon", "fourth of March eighty five", "Zed Jaxqvin",
        "oh four one two, three four five, six seven eight")
    asked = engine.turn(spelled)
    assert asked.state == "confirm_identity" and "am I speaking with Sarah Johnson?" in asked.reply
    assert engine.ctx.patient is None
    engine.turn("yes")
    assert engine.ctx.patient is not None and engine.ctx.patient.id == "p1"


@pytest.mark.parametrize("task", ["I need to cancel my appointment", "I'd like to move my appointment",
                                  "when is my next appointment?"])
def test_a_task_on_a_record_whose_name_is_never_heard_right_asks_the_surname_spelled_before_a_callback(engine,
                                                                                                        task):
    """A cancel, a move or a query needs a record, and nobody is found under the name as heard, twice: the surname
    is asked for spelled, looked up with the date of birth, and the one patient that finds is put to the caller."""
    engine.start(CallInfo(caller_id=""))
    asked = say(engine, task, "Zed Jxqvon", "fourth of March eighty five", "Zed Jaxqvin")
    assert asked.waiting_for == "spelling" and engine.ctx.patient is None
    put = engine.turn("J, O, H, N, S, O, N")
    assert put.state == "confirm_identity" and "am I speaking with Sarah Johnson?" in put.reply
    engine.turn("yes, that's me")
    assert engine.ctx.patient is not None and engine.ctx.patient.id == "p1"


@pytest.mark.parametrize("task, before_the_spelling", [
    ("Hi, I'd like to book a follow-up", ["oh four one two, three four five, six seven eight"]),
    ("I need to cancel my appointment", []),
    ("I'd like to move my appointment", []),
])
def test_a_surname_spelled_after_two_misheard_names_that_is_on_file_under_another_date_asks_the_date_again(
        engine, task, before_the_spelling):
    """The name heard wrong twice and a date of birth misspoken: once the spelled surname finds the caller's
    name on file under another date, the date is asked once more (as where the name was heard right at
    first), not whether they have been before, and the date said right identifies them."""
    engine.start(CallInfo(caller_id=""))
    say(engine, task, "Sarah Jxqvon", "fourth of March ninety five", "Sarah Jaxqvin", *before_the_spelling)
    asked = engine.turn("J, O, H, N, S, O, N")
    assert asked.waiting_for == "dob" and engine.ctx.patient is None, (asked.state, asked.reply)
    engine.turn("sorry, it's the fourth of March eighty five")
    assert engine.ctx.patient is not None and engine.ctx.patient.id == "p1"


def test_a_spelled_surname_that_finds_nobody_still_ends_in_a_callback_and_is_asked_only_once(engine):
    engine.start(CallInfo(caller_id=""))
    say(engine, "I need to cancel my appointment", "Zed Jxqvon", "fourth of March eighty five", "Zed Jaxqvin")
    after = engine.turn("Q, X, V, O, N, Z")
    assert engine.ctx.patient is None and after.waiting_for != "spelling"
    assert after.state.startswith("callback")


def test_a_no_to_the_patient_on_the_callers_number_leaves_the_caller_unidentified(make_engine):
    engine = make_engine()
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, "Hi, I'd like to book a follow-up", "Tara Gibbs", "fourth of March eighty five")
    after = engine.turn("no, that's my mum")
    assert engine.ctx.patient is None and after.state != "confirm_identity"


def test_a_name_unlike_the_record_without_the_callers_number_is_not_put_to_the_caller(make_engine):
    engine = make_engine()
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up", "Tara Gibbs")
    assert engine.turn("fourth of March eighty five").state != "confirm_identity"


def test_a_sounding_surname_without_the_callers_number_or_the_exact_birthday_identifies_nobody(make_engine):
    withheld = make_engine()
    withheld.start(CallInfo(caller_id=""))
    say(withheld, "Hi, I'd like to book a follow-up", "Ali Jonsen")
    assert withheld.turn("fourth of March eighty five").state == "confirm_identity"   # asked, by name
    assert withheld.ctx.patient is None

    other_day = make_engine()
    other_day.start(CallInfo(caller_id="+61400000001"))
    say(other_day, "Hi, I'd like to book a follow-up", "Ali Jonsen")
    other_day.turn("fifth of March eighty five")
    assert other_day.ctx.patient is None


def test_a_no_to_the_name_put_to_the_caller_goes_on_as_before_and_it_is_not_asked_again(engine):
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up", "Kate Johnson", "fourth of March eighty five")
    assert engine.ctx.identity_candidate is not None
    again = engine.turn("no, I'm Kate")
    assert again.state == "ask_name_again" and engine.ctx.patient is None
    assert engine.turn("Kate Johnson").state != "confirm_identity"   # Sarah is not put to her twice


def test_no_name_is_put_to_a_caller_without_the_exact_date_of_birth_or_who_says_they_are_new(make_engine):
    other_dob = make_engine()
    other_dob.start(CallInfo(caller_id=""))
    say(other_dob, "Hi, I'd like to book a follow-up", "I'll love you Johnson")
    assert other_dob.turn("fifth of March eighty five").state != "confirm_identity"

    new = make_engine()
    new.start(CallInfo(caller_id=""))
    say(new, "Hi, I'd like to book a follow-up, I'm a new patient", "Kate Johnson")
    assert new.turn("fourth of March eighty five").state != "confirm_identity"


def test_twins_sharing_a_surname_and_a_birthday_are_never_guessed_between():
    from datetime import date

    from appliance.domain import PatientRecord
    from appliance.engine.tools.name_matching import surname_heard as _surname_heard

    olivia = PatientRecord("p1", "Olivia", "Bennett", date(1990, 7, 21), None)
    emma = PatientRecord("p2", "Emma", "Bennett", date(1990, 7, 21), None)
    assert _surname_heard([olivia], ("I'll love you Bennett.",)) == olivia
    assert _surname_heard([olivia, emma], ("I'll love you Bennett.",)) is None
    assert _surname_heard([olivia], ("I'll let you bend it.",)) == olivia      # "bend" sounds as "Bennett" does
    assert _surname_heard([olivia, emma], ("I'll let you bend it.",)) is None
    assert _surname_heard([olivia], ("I'll let you go.",)) is None


def test_a_caller_found_nowhere_who_has_not_been_before_or_says_they_are_new_is_set_up_as_new(make_engine, store,
                                                                                              clock):
    unfound = make_engine()
    unfound.start(CallInfo(caller_id=""))
    asked = say(unfound, "Hi, I'd like to book a follow-up", "Mia Wong", "fourth of March eighty five")
    # nobody by that name and date: asked whether they have been before, not for the name and the date again
    assert asked.waiting_for == "been_before"
    assert unfound.turn("no").waiting_for == "phone"

    said_new = make_engine()
    said_new.start(CallInfo(caller_id=""))
    say(said_new, "Hi, I'd like to book a follow-up, I'm a new patient", "Mia Wong")
    assert said_new.turn("fourth of March eighty five").waiting_for == "phone"   # not asked again

    new_when_asked = make_engine()
    new_when_asked.start(CallInfo(caller_id=""))
    say(new_when_asked, "Hi, I'd like to book a follow-up", "Mia Wong", "fourth of March eighty five")
    assert new_when_asked.turn("oh, I haven't been to you before").waiting_for == "phone"

    cancel = make_engine()
    cancel.start(CallInfo(caller_id=""))
    say(cancel, "I need to cancel my appointment", "Mia Wong", "fourth of March eighty five", "Mia Wong")
    # a cancel needs a record: the surname spelled is looked up once before the team is asked to call back
    assert cancel.turn("fourth of March eighty five").waiting_for == "spelling"
    result = cancel.turn("W, O, N, G")
    assert cancel.ctx.callback_reason == "patient_not_found" and not result.ended


def test_a_new_patient_whose_number_cannot_be_made_out_is_still_booked(engine, db):
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up, I'm a new patient", "Mia Wong", "fourth of March eighty five")
    result = say(engine, "three two three", "three two three", "three two three")   # never a whole number
    assert result.waiting_for == "confirm" and "no phone number" in result.reply
    assert engine.turn("yes, that's right").waiting_for != "confirm"
    created = [p for p in db["patients"].rows if p["last_name"] == "Wong"]
    assert len(created) == 1 and created[0]["phone"] is None


def test_wrong_dob_never_writes(engine, db):
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, "I want to cancel my appointment", "Sarah Johnson")
    result = say(engine, "1st of January 1990", "1st of January 1990")
    assert result.ended and result.outcome == "callback"
    assert {r["id"]: r["status"] for r in db["appointments"].rows}["a1"] == "booked"
    assert not any(t["name"] in ("CancelAppt", "GetCurrentlyBookedAppts") and t["result_kind"] == "ok"
                   for t in db["tool_calls"].rows)


def test_reprompts_in_other_words_then_callback(engine):
    engine.start(CallInfo(caller_id=SARAH))
    first = engine.turn("blorp")
    second = engine.turn("zzzt")
    assert first.waiting_for == second.waiting_for == "intent"
    assert first.reply != second.reply
    assert first.trigger.route == "unknown" and first.trigger.evidence == "no_rule_matched"
    third = engine.turn("wibble")
    assert third.ended and third.outcome == "callback"


def test_llm_fallback_only_within_the_states_intents(make_engine):
    seen = {}

    def classifier(text, allowed):
        seen["allowed"] = allowed
        return Signal("book", "medium", "llm")

    engine = make_engine(classifier=classifier)
    engine.start(CallInfo(caller_id=SARAH))
    result = engine.turn("mmm yes the thing for my shoulder")
    assert "book" in seen["allowed"] and "yes" not in seen["allowed"]
    assert result.trigger.route == "llm" and result.trigger.confidence == "medium"
    assert result.waiting_for == "full_name"


def test_the_llm_cannot_end_the_call_while_the_caller_gives_their_details(make_engine):
    """A surname Whisper wrote as "and got it", labelled goodbye by the model, must not hang up on the caller."""
    engine = make_engine(classifier=lambda text, allowed: Signal("goodbye", "medium", "llm") if "goodbye" in allowed
                         else None)
    engine.start(CallInfo(caller_id=SARAH))
    result = engine.turn("I'd like to book a follow-up")
    assert result.waiting_for == "full_name"
    result = engine.turn("and got it")
    assert not result.ended and result.waiting_for in ("full_name", "first_name", "last_name", "spelling")
    engine = make_engine(classifier=lambda text, allowed: Signal("goodbye", "medium", "llm") if "goodbye" in allowed
                         else None)
    engine.start(CallInfo(caller_id=SARAH))
    assert engine.turn("mmm, grand then").ended     # where the agent asked how it can help, it may


def test_the_llm_cannot_send_a_caller_naming_a_service_to_the_crisis_line(make_engine):
    """Whisper's "and Doctors visit." labelled crisis by the model: only rules may pre-empt a call that way."""
    seen = []

    def alarmist(text, allowed):
        seen.append(allowed)
        return Signal("crisis", "low", "llm")

    engine = make_engine(classifier=alarmist)
    engine.start(CallInfo(caller_id=SARAH))
    engine.turn("I'd like to book")
    result = engine.turn("mmm the thing")
    assert not result.ended and result.state != "crisis"
    assert all(not {"crisis", "emergency", "human", "goodbye"} & set(allowed) for allowed in seen)
    assert "crisis" in engine.turn("I want to end my life").state     # the rules still catch a real one


def test_llm_label_outside_the_state_is_ignored_and_failure_is_harmless(make_engine):
    engine = make_engine(classifier=lambda text, allowed: Signal("yes", "high", "llm"))
    engine.start(CallInfo(caller_id=SARAH))
    assert engine.turn("mmm").trigger.route == "unknown"

    def broken(text, allowed):
        raise RuntimeError("model fell over")
    engine = make_engine(classifier=broken)
    engine.start(CallInfo(caller_id=SARAH))
    result = engine.turn("mmm")
    assert result.reply and result.waiting_for == "intent"


def test_engine_error_becomes_a_callback_not_silence(engine, monkeypatch):
    from appliance.engine import conditions

    engine.start(CallInfo(caller_id=SARAH))

    def explode(ctx, env):
        raise ZeroDivisionError("bug")
    monkeypatch.setitem(conditions.CONDITIONS, "has_task", explode)
    result = engine.turn("I'd like to book")
    assert result.reply.startswith("I'm sorry, something went wrong")
    assert result.state in ("callback_name", "callback") or result.ended


def test_each_turn_is_committed_before_the_reply(engine, db):
    engine.start(CallInfo(caller_id=SARAH))
    engine.turn("I'd like to book a follow-up")
    turns = list(db["turns"].rows)
    assert [t["seq"] for t in turns] == [0, 1]
    assert turns[1]["caller_text"] == "I'd like to book a follow-up"
    assert turns[1]["trigger_route"] == "booking_request"
    assert turns[1]["engine_ms"] is not None


def test_record_failure_loses_nothing(make_engine, recorder, db, monkeypatch):
    engine = make_engine()
    engine.start(CallInfo(caller_id=SARAH))
    real = recorder.turn

    def disk_full(**kw):
        raise RecordError("database or disk is full: test.db")
    monkeypatch.setattr(recorder, "turn", disk_full)
    result = engine.turn("what are your opening hours?")
    assert "Monday" in result.reply            # the caller still got an answer
    assert engine.unsaved_records > 0
    monkeypatch.setattr(recorder, "turn", real)
    engine.turn("I'd like to book")
    assert engine.unsaved_records == 0
    assert [t["seq"] for t in db["turns"].rows] == [0, 1, 2]


def test_transfer_failure_falls_back_to_callback(engine, store):
    engine.start(CallInfo(caller_id=SARAH))
    result = engine.turn("can I talk to a real person please")
    assert result.ended and result.transfer
    result = engine.transfer_failed()
    assert "couldn't put you through" in result.reply or result.waiting_for != "none"
    while not result.ended:
        result = engine.turn("just call me back please about my knee")
    assert result.outcome == "callback"
    assert store.callback_requests()[-1]["reason"].startswith("transfer_failed")


def test_a_warm_transfer_the_desk_did_not_take_leaves_a_callback_with_the_brief_and_goes_on(engine, store, db):
    engine.start(CallInfo(caller_id=SARAH))
    result = engine.turn("can I talk to a real person please")
    assert result.ended and result.transfer
    engine.desk_leg(purpose="warm_transfer", desk="sip:desk@pbx", connected=False, answer="no answer",
                    waited_s=25.04, brief="Sarah Johnson asked for a person.")
    result = engine.transfer_failed()
    assert "no one from the team could pick up" in result.reply and "on" in result.reply
    assert result.reply.endswith("Is there anything else I can help you with?")
    assert not result.ended and result.waiting_for == "anything_else"
    callback = store.callback_requests()[-1]
    assert callback["reason"] == "desk_unanswered: Sarah Johnson asked for a person." and callback["phone"] == SARAH
    leg = [row for row in db["tool_calls"].rows if row["name"] == "DeskLeg"]
    assert len(leg) == 1 and leg[0]["result_kind"] == "ok"
    assert '"connected": false' in leg[0]["result"] and '"waited_s": 25.0' in leg[0]["result"]
    assert engine.turn("no thanks, bye").ended


def test_a_warm_transfer_without_the_callers_number_asks_for_it_as_a_failed_transfer_does(engine, store):
    engine.start(CallInfo())
    engine.turn("can I talk to a real person please")
    engine.desk_leg(purpose="warm_transfer", desk="sip:desk@pbx", connected=False, answer="rejected 486",
                    waited_s=1.0, brief="A caller asked for a person.")
    result = engine.transfer_failed()
    assert result.waiting_for != "anything_else" and not store.callback_requests()


def test_a_take_over_from_the_desk_is_recorded_as_taken_over_by_them(engine, db):
    engine.start(CallInfo(caller_id=SARAH))
    engine.turn("Hi, I need to move my appointment tomorrow")
    assert engine.staff_took_call(by="frontdesk", taken_over=True) == "taken_over"
    call = list(db["calls"].rows)[0]
    assert (call["outcome"], call["ended_by"], call["end_action"]) == ("taken_over", "frontdesk", "transfer")


def test_staff_taking_the_call_over_is_recorded_as_a_transfer_by_them(engine, db):
    engine.start(CallInfo(caller_id=SARAH))
    engine.turn("Hi, I need to move my appointment tomorrow")
    assert engine.staff_took_call(by="frontdesk") == "transferred_by_staff"
    assert engine.ended and engine.hangup() == "transferred_by_staff"
    call = list(db["calls"].rows)[0]
    assert call["outcome"] == "transferred_by_staff" and call["end_action"] == "transfer"
    assert call["ended_by"] == "frontdesk"
    last = list(db["turns"].rows)[-1]
    assert (last["trigger_route"], last["trigger_evidence"]) == ("staff", "front_desk_took_call")


def test_hangup_before_anything_is_abandoned(engine, db):
    engine.start(CallInfo(caller_id=SARAH))
    assert engine.hangup() == "abandoned"
    assert list(db["calls"].rows)[0]["outcome"] == "abandoned"
    with pytest.raises(CallEnded):
        engine.turn("hello?")


def test_goodbye_ends_with_info(engine):
    engine.start(CallInfo(caller_id=SARAH))
    result = engine.turn("oh sorry, wrong number, bye")
    assert result.ended and result.outcome == "info" and result.hangup


@pytest.mark.parametrize("heard", ["That's it.", "Thank you.", "Thanks."])
def test_a_goodbye_only_guessed_at_mid_task_ends_no_call(engine, heard):
    """A lone "Thank you." (what speech-to-text writes for a breath) or "That's it." where a name was asked."""
    engine.start(CallInfo(caller_id=""))
    engine.turn("I'd like to book a massage")
    result = engine.turn(heard)
    assert not result.ended and result.waiting_for == "full_name"


@pytest.mark.parametrize("heard", ["That was all. Thanks.", "That's all, thanks.", "That's everything.",
                                   "Nothing else."])
def test_a_closing_without_a_farewell_where_a_detail_of_their_own_was_asked_ends_no_call(engine, heard):
    """Asked for a name, "That was all. Thanks." is likelier a name written as words it sounds like."""
    engine.start(CallInfo(caller_id=""))
    engine.turn("I'd like to book a massage")
    result = engine.turn(heard)
    assert not result.ended and result.waiting_for == "full_name"


@pytest.mark.parametrize("heard", ["Keep it all cute, see you later.", "It's Jane, bye.", "Martin Oakes, see you.",
                                   "Pretty Grove Lee, have a good day."])
def test_a_farewell_after_words_of_another_kind_where_a_detail_of_their_own_was_asked_ends_no_call(engine, heard):
    """Asked for a name, unclear words the decoder ended with a farewell are likelier the name than a caller leaving:
    the name is taken, or asked for again."""
    engine.start(CallInfo(caller_id=""))
    engine.turn("I'd like to book a massage")
    result = engine.turn(heard)
    assert not result.ended and result.waiting_for in ("full_name", "dob")


@pytest.mark.parametrize("heard", ["bye", "no that's it, bye", "goodbye, thanks", "that's all, have a good day",
                                   "oh forget it, bye", "never mind, goodbye", "ok never mind then, bye",
                                   "actually just leave it, see you"])
def test_a_plain_goodbye_mid_task_still_ends_the_call(engine, heard):
    engine.start(CallInfo(caller_id=""))
    engine.turn("I'd like to book a massage")
    assert engine.turn(heard).ended


def test_silence_check_ins_then_goodbye(engine, db):
    engine.start(CallInfo(caller_id=SARAH))
    first = engine.check_in(1)
    second = engine.check_in(2)
    assert first.reply.startswith("Are you still there?") and first.waiting_for == "intent"
    assert second.reply != first.reply and not second.ended
    end = engine.silence_goodbye()
    assert end.ended and end.outcome == "abandoned" and end.hangup
    assert list(db["calls"].rows)[0]["outcome"] == "abandoned"


def test_silence_after_a_booking_keeps_the_outcome(engine):
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, "book a follow-up at the City clinic", "Sarah Johnson", "4 March 1985", "Thursday afternoon",
        "the first one", "yes")
    assert engine.current.name == "booked"
    assert engine.silence_goodbye().outcome == "booked"


@pytest.mark.parametrize("said", ["Sara John Son", "Zara Jonsen", "Cerrajon Sun", "Sarah Jaunson"])
def test_a_whole_name_that_sounds_like_the_record_with_its_word_breaks_moved_is_put_to_the_caller(make_engine, said):
    """Speech to text writes a name as the words it sounds like; no single word is the surname, but the whole
    name sounds like the one patient with that exact date of birth."""
    engine = make_engine()
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up", said)
    asked = engine.turn("fourth of March eighty five")
    assert asked.state == "confirm_identity" and "am I speaking with Sarah Johnson?" in asked.reply
    assert engine.ctx.patient is None


@pytest.mark.parametrize("said", ["Tara James", "Samantha Jones", "Clara Jenkins"])
def test_a_name_only_partly_like_the_records_is_not_put_to_the_caller(make_engine, said):
    engine = make_engine()
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up", said)
    assert engine.turn("fourth of March eighty five").state != "confirm_identity"


def test_a_first_name_never_heard_after_the_surname_goes_on_to_the_date_of_birth(engine):
    """The recogniser writes a first name as other words each time it is asked ("Why?" for a one-syllable
    name): with the surname held, the surname and date of birth can still find the record."""
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up", "This is Y1.", "This is Y1.", "This is Y1.")
    assert engine.turn("J O H N S O N").waiting_for == "first_name"
    result = say(engine, "Why?", "Why?", "Why?")
    assert result.waiting_for == "dob" and not result.ended
    engine.turn("fourth of March eighty five")
    assert engine.ctx.patient is not None and engine.ctx.patient.id == "p1"


def test_nobody_found_by_surname_and_date_of_birth_without_a_first_name_is_called_back(engine):
    """No new patient can be set up without a first name: the team calls back, once the date of birth was
    asked again (the surname is on file, so the date is the likelier slip)."""
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up", "This is Y1.", "This is Y1.", "This is Y1.", "J O H N S O N")
    say(engine, "Why?", "Why?", "Why?")
    again = engine.turn("the ninth of October nineteen fifty")
    assert again.waiting_for == "dob" and "once more" in again.reply
    result = engine.turn("the ninth of October nineteen fifty")
    assert engine.ctx.patient is None
    assert result.state in ("callback_phone", "callback_next") or result.waiting_for == "phone" or result.ended


def test_a_date_of_birth_misspoken_without_a_first_name_is_asked_again_and_the_correction_finds_the_record(engine):
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up", "This is Y1.", "This is Y1.", "This is Y1.", "J O H N S O N")
    say(engine, "Why?", "Why?", "Why?")
    assert engine.turn("the fourth of March seventy five").waiting_for == "dob"
    engine.turn("sorry, I mixed that up, it's the fourth of March eighty five")
    assert engine.ctx.patient is not None and engine.ctx.patient.id == "p1"


def test_a_surname_spelled_after_lookups_failed_finds_the_record_before_a_new_one_is_made(engine, db):
    """A returning caller whose whole name is misheard twice spells the surname before the team is asked to
    call back: the spelled surname and the date of birth find the patient, who is asked whether it is them."""
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up", "Crain Memwasu", "fourth of March eighty five", "yes I have",
        "Crain Memwasu", "fourth of March eighty five")
    assert engine.ctx.state == "spell_surname_for_lookup"
    result = engine.turn("J O H N S O N")
    assert result.state == "confirm_identity" and "Sarah Johnson" in result.reply
    engine.turn("yes")
    assert engine.ctx.patient is not None and engine.ctx.patient.id == "p1"
    assert not any(t["name"] == "CreatePatient" for t in db["tool_calls"].rows)


def test_a_new_callers_spelled_surname_that_matches_nobody_goes_on_to_the_new_record(engine):
    engine.start(CallInfo(caller_id=""))
    asked = say(engine, "Hi, I'd like to book a follow-up", "Crain Memwasu", "fourth of March eighty five")
    assert asked.state == "ask_been_before"      # never said they were new: asked first
    say(engine, "no, never", "0412 555 019")
    assert engine.ctx.state == "ask_spelling_last"   # a surname unlike any name people have
    assert engine.turn("N W O S U").state == "confirm_new_patient"


@pytest.mark.parametrize("spelled, surname", [
    ("Grainne, G R A I N N E, and then N I, with a fada on the I, and B H R I A I N", "Ní Bhriain"),
    ("G R A I N N E, and Ni Bhriain is N I, B H R I A I N", "Ní Bhriain"),
])
def test_a_given_name_spelled_too_where_the_surname_was_asked_keeps_the_given_name_as_said(engine, spelled,
                                                                                          surname):
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up", "Gráinne Ní Bhriain", "fourth of March eighty five",
        "no, I haven't", "0412 555 019")
    assert engine.ctx.state == "ask_spelling_last"
    engine.turn(spelled)
    assert (engine.ctx.first_name, engine.ctx.last_name) == ("Gráinne", surname)


@pytest.mark.parametrize("said, spelled, surname", [
    ("Tadhg Ó Ceallaigh", "T-A-D-H-G, and then O with a fada, then C-E-A-L-L-A-I-G-H", "Ó Ceallaigh"),
    ("Tadhg Ó Ceallaigh", "C E A L L A I G H", "Ó Ceallaigh"),
    ("Anneke van der Vraagh", "V R A A G H", "van der Vraagh"),
    ("Eoin Mac Giollarnáth", "G I O L L A R N A T H", "Mac Giollarnáth"),
])
def test_a_surname_led_by_a_particle_keeps_it_when_only_the_word_after_it_is_spelled(engine, said, spelled,
                                                                                     surname):
    engine.start(CallInfo(caller_id=""))
    say(engine, "Hi, I'd like to book a follow-up", said, "fourth of March eighty five", "no, I haven't",
        "0412 555 019")
    assert engine.ctx.state == "ask_spelling_last"
    engine.turn(spelled)
    assert engine.ctx.last_name.lower() == surname.lower()


def test_every_intent_the_rules_can_find_has_a_route_in_the_record():
    assert set(ROUTES) == set(INTENTS)


@pytest.mark.parametrize("bent", ["Sarahh Johnson", "Zara Johnson", "Sahra Johnson"])
def test_a_wrong_date_of_birth_with_the_surname_of_a_patient_on_the_callers_number_is_asked_again(engine, bent):
    """A first name bent by speech to text and a wrong date of birth: the surname of a patient on the caller's
    own number is asked about as a name found (the date of birth again), and the right date identifies them."""
    engine.start(CallInfo(caller_id="+61400000001"))
    asked = say(engine, "Hi, I'd like to book a follow-up", bent, "fourth of March eighty six")
    assert asked.waiting_for == "dob", asked.reply
    engine.turn("fourth of March eighty five")
    assert engine.ctx.patient is not None and engine.ctx.patient.id == "p1"


@pytest.mark.parametrize("another", ["Michael Johnson", "Wei Johnson", "Olivia Johnson"])
def test_another_given_name_with_the_surname_of_a_patient_on_the_callers_number_is_someone_else(engine, another):
    """A family shares a number: a given name heard as another name people have, unlike the record's in letters
    and sound, is another person, not the patient on file with a bent first name (no date-of-birth retry)."""
    engine.start(CallInfo(caller_id="+61400000001"))
    asked = say(engine, "Hi, I'd like to book a follow-up", another, "fourth of March eighty six")
    assert asked.waiting_for != "dob", asked.reply
    assert engine.ctx.patient is None


def test_a_wrong_date_of_birth_with_a_surname_on_nobody_s_record_is_no_date_of_birth_question(engine):
    engine.start(CallInfo(caller_id="+61400000001"))
    asked = say(engine, "Hi, I'd like to book a follow-up", "Zara Jones", "fourth of March eighty six")
    assert asked.waiting_for != "dob", asked.reply


def test_a_caller_never_found_who_never_said_they_are_new_is_asked_before_a_record_is_made(make_engine, db):
    """Lookups that find nobody lead on to a new record only once the caller says they have not been before: a
    patient on file whose name is never heard right must not get a second record."""
    def unfound(engine):
        engine.start(CallInfo(caller_id=""))
        return say(engine, "Hi, I'd like to book a follow-up", "Mia Wong", "fourth of March eighty five")

    returning = make_engine()
    asked = unfound(returning)
    assert asked.state == "ask_been_before" and asked.waiting_for == "been_before"
    assert returning.turn("yes, I have").state == "ask_returning_name"
    assert returning.turn("Mia Wong").state == "ask_dob_again"   # the same name again: the date is the likelier slip
    assert returning.turn("fourth of March eighty five").state == "spell_surname_for_lookup"
    returning.turn("W O N G")
    assert returning.ctx.callback_reason == "patient_not_found"   # the team calls back (asked for a number first)
    assert returning.ctx.patient is None
    assert not any(t["name"] == "CreatePatient" for t in db["tool_calls"].rows)

    new = make_engine()
    unfound(new)
    assert new.turn("no, never").waiting_for == "phone"
    assert new.turn("0412 555 019").state == "confirm_new_patient"

    said_new = make_engine()
    said_new.start(CallInfo(caller_id=""))
    say(said_new, "Hi, I'd like to book a follow-up, I'm a new patient", "Mia Wong", "fourth of March eighty five")
    assert said_new.turn("0412 555 019").state == "confirm_new_patient"   # said so: not asked


def test_a_caller_who_says_they_are_new_and_shares_a_name_on_file_but_not_its_birthday_is_set_up_as_new(engine):
    """Two people can share a name: one who says they are new, whose date of birth is not the record's, is
    another person of that name, set up as new (not asked the date again and then sent to a callback)."""
    engine.start(CallInfo(caller_id=""))
    read_back = say(engine, "Hi, I'm a new patient and I'd like to book a follow-up", "Sarah Johnson",
                    "fourth of March ninety", "0412 555 019")
    assert read_back.state == "confirm_new_patient" and "born the 4th of March 1990" in read_back.reply
    engine.turn("yes")
    assert engine.ctx.patient is not None and engine.ctx.patient.id != "p1"


def test_a_caller_who_never_said_they_are_new_with_a_name_on_file_and_another_birthday_is_asked_again(engine):
    engine.start(CallInfo(caller_id=""))
    asked = say(engine, "Hi, I'd like to book a follow-up", "Sarah Johnson", "fourth of March ninety")
    assert asked.state == "ask_dob_again"


def test_a_caller_who_turns_down_every_time_offered_is_called_back_not_offered_times_for_ever(engine):
    """Each offer turned down with a new day asked for is offered again, up to the flow's `max_offers`; then the
    team is asked to call back, and the outcome says why."""
    engine.start(CallInfo(caller_id=SARAH))
    result = say(engine, "Hi, I'd like to book a follow-up at the City clinic", "Sarah Johnson",
                 "fourth of March eighty five", "Thursday afternoon")
    offers = 1 if result.waiting_for == "slot_choice" else 0
    days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"] * 3
    for day in days:
        if result.ended or result.waiting_for != "slot_choice":
            break
        result = engine.turn(f"no, neither of those work, have you got anything on {day} afternoon?")
        offers += result.waiting_for == "slot_choice"
    assert engine.ctx.callback_reason == "no_time_agreed", (result.state, result.reply)
    assert "couldn't find a time that suits you" in result.reply
    assert offers == engine.flow.options["max_offers"]


def test_a_no_at_the_booking_read_back_that_asks_for_another_time_searches_again_and_never_breaks(engine):
    """"No, can we do something after three instead?" turns the offer down and changes the window in one breath:
    the times on offer are gone, so the agent looks again rather than re-read an offer it no longer has."""
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, "Hi, I'd like to book a follow-up at the City clinic", "Sarah Johnson", "fourth of March eighty five",
        "Thursday afternoon")
    asked = engine.turn("the first one")
    assert asked.waiting_for == "confirm", asked.reply
    after = engine.turn("no wait, sorry, can we do something after three instead? I won't get out of work before")
    assert "went wrong" not in after.reply and after.waiting_for == "slot_choice", (after.state, after.reply)
    assert all(slot.start.hour >= 15 for slot in engine.ctx.offered)


def test_a_no_at_the_booking_read_back_that_also_sounds_like_a_cancel_never_breaks(engine):
    """"No wait, I won't make it out of work by five": the no turns the offer down, and the words read as a cancel
    take the times on offer with them; the agent goes on from what it has, never re-reads an offer it lost."""
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, "Hi, I'd like to book a follow-up at the City clinic", "Sarah Johnson", "fourth of March eighty five",
        "Thursday afternoon", "the first one")
    after = engine.turn("no wait, sorry, can we do the quarter past instead? I won't make it out of work by five")
    assert "went wrong" not in after.reply and not after.ended, (after.state, after.reply)


@pytest.mark.parametrize("waiting", ["slot_choice", "confirm"])
def test_who_the_caller_is_undone_part_way_is_proved_again_before_a_booking_is_offered_or_written(engine, waiting):
    """A name or birth date put right after the caller was identified undoes the match (`absorb`): the booking
    goes back to identifying them, rather than on to a write its guard must refuse."""
    engine.start(CallInfo(caller_id=SARAH))
    say(engine, "I'd like to book a follow-up at the City clinic", "Sarah Johnson", "4th of March 1985",
        "Thursday afternoon")
    if waiting == "confirm":
        engine.turn("the first one")
    assert engine.ctx.patient is not None and engine.current.waiting_for == waiting
    engine.ctx.patient = None          # as a correction of who they are leaves it
    engine.ctx.identity_result = None
    result = engine.turn("yes, the first one")
    assert not [t for t in result.tools if t.name == "CreateAppointment"]
    assert engine.ctx.patient is not None, (result.state, result.reply)   # proved again from what is held
    assert result.waiting_for in ("slot_choice", "confirm")


def test_a_caller_booking_for_someone_of_theirs_is_asked_for_that_persons_name_not_taken_for_it(engine):
    """ "it's Jane Doe here, I'm booking my son in": the caller's own name, said with whom the call is for, is not
    taken for the patient's; the questions ask for the son's details."""
    engine.start(CallInfo(caller_id=SARAH))
    asked = engine.turn("Hi, it's Sarah Johnson here, I'd like to book my son in for a follow-up")
    assert asked.waiting_for == "full_name" and "your son's full name" in asked.reply
    assert engine.ctx.first_name is None and engine.ctx.last_name is None
    asked = engine.turn("Tom Johnson")
    assert asked.waiting_for == "dob" and "your son's date of birth" in asked.reply


@pytest.mark.parametrize("dob, service", [("third of August twenty seventeen", "kidsfu"),
                                          ("fourth of March eighty five", "followup")])
def test_a_child_is_booked_into_the_clinics_service_for_children_of_the_kind_asked_for(flow, db, clock, recorder,
                                                                                    example_clinic_data, dob, service):
    """ "book my son in for his follow-up", where the clinic has a children's follow-up: a patient under the flow's
    `children_under` age gets that one; an adult the one named."""
    data = copy.deepcopy(example_clinic_data)
    data["services"].append({"id": "kidsfu", "name": "Children's follow-up", "minutes": 30, "price": 50})
    for practitioner in data["practitioners"]:
        practitioner["services"].append("kidsfu")
    store = ClinicStore(db, new_id=CountingIds(), now=clock.now)
    store.load_clinic(clinic_from_mapping(data))
    engine = Engine(flow=flow, store=store, clock=clock, new_id=CountingIds(), recorder=recorder)
    engine.start(CallInfo(caller_id="+61400000099"))
    say(engine, "Hi, I'd like to book a follow-up, we're new", "Jack Doe")
    assert engine.ctx.service_id == "followup"
    engine.turn(dob)
    assert engine.ctx.service_id == service


def test_a_question_whether_the_times_on_offer_are_at_a_site_is_answered_and_the_offer_kept(engine):
    engine.start(CallInfo(caller_id=SARAH))
    offer = say(engine, "Hi, it's Sarah Johnson, I'd like to book a follow-up", "fourth of March eighty five",
                "Wednesday morning at the City clinic")
    assert offer.waiting_for == "slot_choice"
    offered = engine.ctx.offered
    other = engine.turn("is that at North Sydney?")
    assert other.reply.startswith("No, both are with") and "City clinic" in other.reply
    assert engine.ctx.offered == offered and engine.ctx.location_id == "city" and other.waiting_for == "slot_choice"
    same = engine.turn("and is that still at the City?")
    assert same.reply.startswith("Yes, both are with") and engine.ctx.offered == offered


@pytest.mark.parametrize("said", [
    "are you open on a Saturday? And the North Sydney one's on Miller Street, is it?",
    "what are your hours on Friday, and where's the North Sydney clinic?",
    "how much is a follow-up, and what's the address of the North Sydney one?",
])
def test_two_questions_about_the_clinic_in_one_breath_are_both_answered(engine, said):
    engine.start(CallInfo(caller_id=""))
    reply = engine.turn(said).reply
    assert "5 Miller St" in reply
    assert any(word in reply for word in ("open", "closed", "$85")), reply


def test_a_question_about_the_read_back_tagged_with_yeah_writes_nothing(engine, db):
    engine.start(CallInfo(caller_id=SARAH))
    read_back = say(engine, "Hi, it's Sarah Johnson, I'd like to book a follow-up", "fourth of March eighty five",
                    "Wednesday morning at the City clinic", "the first one")
    assert read_back.waiting_for == "confirm"
    asked = engine.turn("sorry, that's still at the usual place, yeah?")
    assert asked.waiting_for == "confirm"
    assert not any(t["name"] == "CreateAppointment" for t in db["tool_calls"].rows)
