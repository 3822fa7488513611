"""Corrections stick, names are checked before they are stored, and a day the caller cannot do is never booked."""

from __future__ import annotations

from datetime import date

import pytest

from appliance.engine.clock import CountingIds
from appliance.engine.engine import Engine
from appliance.engine.types import CallInfo


@pytest.fixture
def call(flow, store, clock, recorder):
    def start(caller_id: str = ""):
        engine = Engine(flow=flow, store=store, clock=clock, new_id=CountingIds(), recorder=recorder)
        engine.start(CallInfo(caller_id=caller_id))
        return engine
    return start


def say(engine, *lines):
    result = None
    for line in lines:
        result = engine.turn(line)
    return result


def corrected_at_the_read_back(call, said: str, correction: str):
    """A new patient's call up to the read-back of `said`, corrected there with `correction` (read back again)."""
    engine = call()
    say(engine, "I'd like to book a follow-up, I'm a new patient", said, "the 15th of June 1988",
        "oh four one two, three four five, six seven eight")
    assert engine.turn(correction).waiting_for == "confirm"
    return engine


def created(result):
    return [t for t in result.tools if t.name == "CreatePatient" and t.ok]


# ------------------------------------------------------------ a corrected name

@pytest.mark.parametrize("correction", [
    "sorry, actually my last name is Smyth, S M Y T H, not Smith",
    "oh sorry, it's Smyth, not Smith",
    "not Smith, Smyth",
    "Smith is wrong, it's Smyth",
])
def test_a_failed_lookup_after_a_name_correction_asks_about_visits_not_for_the_name(call, correction):
    engine = call()
    say(engine, "Hi, I'd like to book a follow-up", "Jon Smith")
    asked = engine.turn(correction)
    assert engine.ctx.last_name == "Smyth"
    if asked.waiting_for == "dob":
        asked = engine.turn("the 15th of June 1988")
    assert asked.waiting_for == "been_before"          # not "could you tell me your full name once more?"
    assert engine.turn("no, I'm new").waiting_for == "phone"


@pytest.mark.parametrize(("said", "correction", "held"), [
    ("Linh Smith", "sorry, I meant Lê, L E", ("Linh", "Lê")),          # like neither part: the surname
    ("Jon Smith", "sorry, I meant Smyth", ("Jon", "Smyth")),           # like the surname
    ("Chris Taylor", "oh sorry, I meant Kris", ("Kris", "Taylor")),    # like the first name
    # the old name named, heard otherwise than the name held: the part it sounds like
    ("Michael Fletcher", "no wait, it's brown, not flutcher", ("Michael", "Brown")),
    ("Jon Smith", "sorry, it's Smyth, not Smithe", ("Jon", "Smyth")),
    ("Katie Reid", "no, it's Reed, not Read", ("Katie", "Reed")),
    ("Kathryn Moss", "oh sorry, it's Catherine, not Cathrin", ("Catherine", "Moss")),
])
def test_a_name_said_to_correct_a_full_name_replaces_the_part_it_is_like_or_names(call, said, correction, held):
    engine = call()
    say(engine, "Hi, I'd like to book a follow-up", said)
    engine.turn(correction)
    assert (engine.ctx.first_name, engine.ctx.last_name) == held


def test_an_old_name_like_neither_part_changes_neither(call):
    engine = call()
    say(engine, "Hi, I'd like to book a follow-up", "Michael Fletcher")
    engine.turn("no wait, it's Brown, not Patel")
    assert engine.ctx.first_name == "Michael"


def test_a_later_answer_in_the_old_form_does_not_undo_a_correction(call):
    engine = call()
    say(engine, "Hi, I'd like to book a follow-up", "Jon Smith", "it's Smyth, not Smith", "the 15th of June 1988")
    engine.turn("Jon Smith")                           # the name as first said, to a question it does not answer
    assert (engine.ctx.first_name, engine.ctx.last_name) == ("Jon", "Smyth")


def test_a_new_patient_s_read_back_spells_the_surname_and_what_is_stored_is_what_was_confirmed(call):
    engine = call()
    say(engine, "I'd like to book a follow-up, I'm a new patient", "Jon Smith", "the 15th of June 1988")
    read_back = engine.turn("oh four one two, three four five, six seven eight")
    assert "Jon Smith, that's S, M, I, T, H" in read_back.reply
    again = engine.turn("no, it's Smith with a Y")
    assert "Jon Smyth, that's S, M, Y, T, H" in again.reply and again.waiting_for == "confirm"
    done = engine.turn("yes")
    assert created(done) and (engine.ctx.patient.first_name, engine.ctx.patient.last_name) == ("Jon", "Smyth")


@pytest.mark.parametrize(("said", "correction", "stored"), [
    ("Catherine Mitchel", "no, Katherine with a K, K not C", ("Katherine", "Mitchel")),
    ("Katherine Mitchel", "the surname has two Ls", ("Katherine", "Mitchell")),
    ("John Mitchell", "my first name is Jon, no H", ("Jon", "Mitchell")),
    ("Anne Smith", "Smith, with an E on the end", ("Anne", "Smithe")),
])
def test_a_name_read_back_is_corrected_by_the_forms_people_use(call, said, correction, stored):
    engine = corrected_at_the_read_back(call, said, correction)
    assert (engine.ctx.first_name, engine.ctx.last_name) == stored


@pytest.mark.parametrize(("correction", "stored"), [
    ("sorry, I said that wrong, it's Jon Smithe", ("Jon", "Smith")),     # said again, heard worse: kept
    ("no, it's Jon Smitt", ("Jon", "Smith")),
    ("sorry, it's John Smith", ("John", "Smith")),                       # a name people have: taken
    ("no, it's Smith with an E on the end", ("Jon", "Smithe")),          # a letter named: as the caller says
])
def test_a_name_said_again_that_sounds_as_held_but_is_no_name_people_have_keeps_the_held_one(
        call, correction, stored):
    engine = corrected_at_the_read_back(call, "Jon Smith", correction)
    assert (engine.ctx.first_name, engine.ctx.last_name) == stored


@pytest.mark.parametrize(("correction", "surname"), [
    ("oh, my surname is actually Phạm, P H A M", "Phạm"),
    ("no, it's Nguyễn, N G U Y E N", "Nguyễn"),
    ("my last name is Muñoz, M U N O Z", "Muñoz"),
    ("no wait, it's O'Brien-Núñez, not Smith", "O'Brien-Núñez"),
])
def test_a_surname_corrected_at_the_read_back_is_stored_as_said_with_its_accents_and_marks(
        call, correction, surname):
    engine = corrected_at_the_read_back(call, "Jon Smith", correction)
    assert engine.ctx.last_name == surname
    assert created(engine.turn("yes")) and engine.ctx.patient.last_name == surname


@pytest.mark.parametrize("yes", ["mm-hmm", "mm hmm", "mmm, yes", "uh huh"])
def test_a_backchannel_yes_at_a_read_back_is_never_a_name_said_again(call, yes):
    engine = call()
    say(engine, "I'd like to book a follow-up, I'm a new patient", "Mei Smith", "the 15th of June 1988",
        "oh four one two, three four five, six seven eight")
    done = engine.turn(yes)
    assert created(done) and (engine.ctx.patient.first_name, engine.ctx.patient.last_name) == ("Mei", "Smith")


def test_a_letter_change_that_fits_neither_name_asks_for_a_spelling(call):
    engine = call()
    say(engine, "I'd like to book a follow-up, I'm a new patient", "Jon Smith", "the 15th of June 1988",
        "oh four one two, three four five, six seven eight")
    assert engine.turn("no, it's with a Q").question.name == "spell_last"


@pytest.mark.parametrize("garbled", ["Calmequo Quo", "Zxqv Vlorp"])
def test_a_name_unlike_any_name_is_spelled_before_it_reaches_a_record(call, garbled):
    engine = call()
    say(engine, "I'd like to book a follow-up, I'm a new patient", garbled, "the 15th of June 1988")
    asked = engine.turn("oh four one two, three four five, six seven eight")
    assert asked.question.name == "spell_last"
    asked = engine.turn("K W O K, Kwok")
    assert engine.ctx.last_name == "Kwok"
    assert asked.question.name == "spell_first"
    read_back = engine.turn("it's C A R M E N")
    assert read_back.waiting_for == "confirm" and "Carmen Kwok" in read_back.reply
    assert garbled.split()[0] not in read_back.reply
    done = engine.turn("yes")
    assert (engine.ctx.patient.first_name, engine.ctx.patient.last_name) == ("Carmen", "Kwok")


# ------------------------------------------------------------ a changed day

@pytest.mark.parametrize("change", [
    "I'm working that day, can we do the Friday instead?",
    "actually I can't do Thursday, can I have Friday?",
    "Thursday's no good for me, what about Friday?",
    "sorry, Thursday doesn't work, is Friday any better?",
])
def test_a_change_of_day_with_its_reason_offers_the_new_day_and_never_the_refused_one(call, change):
    engine = call("+61400000001")                     # Sarah Johnson, on file
    say(engine, "I'd like to book a follow-up at the City clinic", "Sarah Johnson", "fourth of March eighty five")
    offer = engine.turn("Thursday please")
    assert offer.waiting_for == "slot_choice" and all(s.start.date() == date(2026, 11, 26) for s in engine.ctx.offered)
    engine.turn(change)
    assert engine.ctx.offered and all(s.start.date() == date(2026, 11, 27) for s in engine.ctx.offered)
    refused = engine.turn("no, none of those work either, I can't do Friday")
    assert all(s.start.date() not in (date(2026, 11, 26), date(2026, 11, 27)) for s in engine.ctx.offered), refused.reply
    say(engine, "the first one", "yes")
    assert engine.ctx.booked is not None and engine.ctx.booked.start.date() not in (date(2026, 11, 26), date(2026, 11, 27))


# the answer names of the scenario format (what a simulated caller's `answers` are keyed by)
SCENARIO_ANSWER_NAMES = {"intent", "full_name", "first_name", "last_name", "spelling", "dob", "phone", "service",
                         "location", "practitioner", "time_preference", "slot_choice", "confirm", "booking_choice",
                         "callback_reason", "anything_else", "none"}


def test_a_spelling_asked_name_by_name_is_reported_by_the_scenario_format_s_names(flow):
    for name in ("spell_last", "spell_first"):
        assert flow.questions[name].reported in SCENARIO_ANSWER_NAMES


def test_a_rare_surname_s_spelling_is_answered_from_the_scenario_s_spelling(call):
    engine = call()
    say(engine, "I'd like to book a follow-up, I'm a new patient", "Calmequo Quo", "the 15th of June 1988")
    asked = engine.turn("oh four one two, three four five, six seven eight")
    assert asked.waiting_for == "spelling"


@pytest.mark.parametrize("again", ["Thu Hà", "it's Folake", "Đức, D U C"])
def test_a_rare_first_name_said_again_rather_than_spelled_is_not_asked_for_again(call, again):
    engine = call()
    say(engine, "I'd like to book a follow-up, I'm a new patient", "Zxqv Smith", "the 15th of June 1988")
    asked = engine.turn("oh four one two, three four five, six seven eight")
    assert asked.question.name == "spell_first"
    next_question = engine.turn(again).question.name
    assert next_question in ("confirm_details", "spell_last")   # a two-word answer may be heard as a new surname


@pytest.mark.parametrize(("spelled", "first", "last"), [
    ("A R O H A, N G A T A", "Aroha", "Ngata"),
    ("it's J O H N, then S M Y T H", "John", "Smyth"),
    ("M A R I A. L O P E Z", "Maria", "Lopez"),
])
def test_both_names_spelled_when_the_surname_was_asked_for_are_first_name_and_surname(call, spelled, first, last):
    engine = call()
    say(engine, "I'd like to book a follow-up, I'm a new patient", "Zxqv Vlorp", "the 15th of June 1988",
        "oh four one two, three four five, six seven eight")
    read_back = engine.turn(spelled)
    assert (engine.ctx.first_name, engine.ctx.last_name) == (first, last), read_back.reply


@pytest.mark.parametrize(("name", "spelled", "first", "last"), [
    ("Tama Te Huia", "it's spelt T E space H U I A", "Tama", "Te Huia"),
    ("Aoife Ní Bhriain", "okay, N I space B H R I A I N", "Aoife", "Ní Bhriain"),
    ("Ana de la Cruz", "D E space L A space C R U Z", "Ana", "De La Cruz"),
    ("Mai Van Der Berg", "V A N, space, D E R, space, B E R G", "Mai", "Van Der Berg"),
])
def test_a_surname_of_several_words_spelled_with_space_said_between_them_stays_one_surname(
        call, name, spelled, first, last):
    engine = call()
    say(engine, "I'd like to book a follow-up, I'm a new patient", name, "the 15th of June 1988",
        "oh four one two, three four five, six seven eight")
    engine.turn(spelled)
    assert engine.ctx.last_name.lower() == last.lower() and engine.ctx.first_name == first



# ------------------------------------------------------------ a given name of two words

@pytest.mark.parametrize("name", ["Thu Hà Lê", "Ngọc Anh Phạm", "Siew Ling Tan", "Thị Mai Lê"])
def test_two_given_names_said_again_when_the_first_name_is_asked_stay_one_first_name(call, name):
    *given, surname = name.split()
    engine = call()
    asked = say(engine, "I'd like to book a follow-up, I've never been before", name, "the 4th of March 1985",
                "oh four one two, three four five, six seven eight")
    if asked.waiting_for == "first_name":     # asked to say or spell the first name: the caller says it again
        asked = engine.turn(" ".join(given))
    assert (engine.ctx.first_name, engine.ctx.last_name) == (" ".join(given), surname)
    assert asked.waiting_for == "confirm" and name in asked.reply


def test_a_first_name_answer_with_the_held_surname_is_still_both_parts(call):
    engine = call()
    say(engine, "I'd like to book a follow-up, I've never been before", "Thu Hà Lê", "the 4th of March 1985",
        "oh four one two, three four five, six seven eight")
    engine.turn("Thu Le")
    assert (engine.ctx.first_name, engine.ctx.last_name) == ("Thu", "Le")


@pytest.mark.parametrize(("correction", "surname"), [
    ("sorry, I meant Te Huia, T E space H U I A", "Te Huia"),
    ("actually it's De Souza, D E space S O U Z A", "De Souza"),
    ("sorry, my surname is Le Roux, L E space R O U X", "Le Roux"),
    ("no, I meant Da Silva, D A space S I L V A", "Da Silva"),
])
def test_a_surname_of_two_words_spelled_with_space_while_the_date_of_birth_is_asked_replaces_the_surname(
        call, correction, surname):
    engine = call()
    say(engine, "I'd like to book a follow-up, I've never been before", "Aroha Morgan")
    engine.turn(correction)
    assert (engine.ctx.first_name, engine.ctx.last_name) == ("Aroha", surname)


@pytest.mark.parametrize(("full", "spelling", "given", "surname"), [
    ("Te Huia, Mārama", "Te Huia, T E space H U I A", "Mārama", "Te Huia"),
    ("Aoife Ó Ceallaigh", "O space C E A L L A I G H, Ó Ceallaigh", "Aoife", "Ó Ceallaigh"),
])
def test_a_surname_of_two_words_said_with_its_spelling_stays_the_surname(call, full, spelling, given, surname):
    engine = call()
    asked = say(engine, "I'd like to book a follow-up, I've never been before", full, "the 4th of March 1985",
                "oh four one two, three four five, six seven eight")
    for _ in range(3):
        if asked.waiting_for == "confirm":
            break
        asked = engine.turn(spelling if asked.waiting_for == "spelling" else given)
    assert (engine.ctx.first_name, engine.ctx.last_name) == (given, surname)


# ------------------------------------------------------------ a date of birth corrected at the read-back

def _at_the_details_read_back(call):
    """A new patient's call, at the read-back of the details (Zara Quinlan, born the 15th of June 1988)."""
    engine = call()
    asked = say(engine, "I'd like to book a follow-up, I've never been before", "Zara Quinlan",
                "the 15th of June 1988", "oh four one two, three four five, six seven eight")
    assert asked.waiting_for == "confirm"
    return engine


@pytest.mark.parametrize(("correction", "dob"), [
    ("Sorry, let me say that again, 15th Flash 6th Flash 1989.", date(1989, 6, 15)),
    ("no, it's 15 flesh 6 flesh 89", date(1989, 6, 15)),
    ("sorry, 15th last 6th last 1989", date(1989, 6, 15)),
])
def test_a_date_of_birth_said_with_slashes_written_as_words_corrects_the_new_patients_details(call, correction, dob):
    engine = _at_the_details_read_back(call)
    again = engine.turn(correction)
    assert engine.ctx.dob == dob and engine.ctx.window is None, again.reply
    assert "1989" in again.reply and not created(again)


# ------------------------------------------------------------ a surname corrected at the read-back, said bent, then spelled

@pytest.mark.parametrize(("correction", "surname"), [
    ("Oh, my surname is actually Ed Eyer, IYER.", "Iyer"),       # the letters written as a word in capitals
    ("sorry, it's actually Smith, SMYTH", "Smyth"),
    ("no, my surname is Clark, CLARKE", "Clarke"),
])
def test_a_surname_said_bent_then_spelled_in_capitals_at_the_read_back_is_stored_as_spelled(call, correction, surname):
    engine = _at_the_details_read_back(call)
    again = engine.turn(correction)
    assert (engine.ctx.first_name, engine.ctx.last_name) == ("Zara", surname), again.reply
    assert ", ".join(surname.upper()) in again.reply and not created(again)
