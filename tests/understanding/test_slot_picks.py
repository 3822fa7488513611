"""Picking one of the slots just offered."""

from __future__ import annotations

from datetime import datetime

import pytest

from appliance.domain import Slot

from .hearing import SLOTS, hear

# Thursday 12:00 with Dr Lee, Thursday 12:15 with Raj (as in SCENARIOS.md)
PICKS = [
    ("the first one", 0), ("first", 0), ("the first", 0), ("number one", 0), ("the earlier one", 0),
    ("the earliest", 0), ("the second one", 1), ("second", 1), ("the later one", 1), ("the last one", 1),
    ("the 12:15", 1), ("twelve fifteen", 1), ("quarter past twelve", 1), ("12:15 please", 1),
    ("the twelve o'clock", 0), ("twelve", 0), ("noon", 0), ("midday please", 0), ("the one with Raj", 1),
    ("Raj", 1), ("with Dr Lee", 0), ("the one with Anna", 0), ("either is fine", 0), ("whichever", 0),
    ("any of them", 0), ("either one", 0), ("I don't mind", 0), ("the second one please", 1),
    ("yeah the first one sounds good", 0), ("not the first one", 1), ("the one at 12:15", 1),
    ("I'll take the later one with Raj", 1), ("the earlier one with Anna", 0),
    ("1215, please.", 1),  # speech-to-text wrote "twelve fifteen" without its colon
    ("2nd, 1", 1), ("2nd,", 1), ("the second", 1),  # "the second one" as speech-to-text writes it
    ("the later 1 please", 1), ("the first 1.", 0),
    ("1", 0), ("2", 1),                              # ... and "the first one", when no slot is at 1 or 2
    ("3, the second one", 1),                        # a stray number Whisper put before the position
    ("12, the second one, 12", 1),                   # ... or one that fits the other slot's hour
    ("I'll take the first appointment", 0),
]


@pytest.mark.parametrize(("text", "index"), PICKS)
def test_slot_pick(text: str, index: int) -> None:
    assert hear(text, "slot_choice", slots=SLOTS).slot_pick == index


@pytest.mark.parametrize("text", [
    "neither", "none of those", "the Thursday one",  # both are on Thursday
    "the third one", "do you have anything later", "do you have anything on Friday instead",
    "sorry, how much is a follow-up again?", "the 8:45", "the 8:45, the second one", "after twelve", "yes", "wait a second",
    # an ordinal after "a" or an owner is a kind of visit, not a position
    "hang on, how much will a first appointment be?", "is my first visit longer?",
    "what should I bring to my first appointment?", "could I get a second opinion?",
])
def test_no_slot_pick(text: str) -> None:
    assert hear(text, "slot_choice", slots=SLOTS).slot_pick is None


THREE = (
    Slot(datetime(2026, 11, 25, 8, 0), "followup", "lee", "city", 30),
    Slot(datetime(2026, 11, 26, 9, 30), "followup", "shah", "north", 30),
    Slot(datetime(2026, 11, 27, 20, 0), "followup", "gonzalez", "north", 30),
)


@pytest.mark.parametrize(("text", "index"), [
    ("8 o'clock", 0), ("eight", 0), ("the Wednesday one", 0), ("tomorrow's fine", None), ("the Thursday one", 1),
    ("half past nine", 1), ("9:30", 1), ("nine thirty", 1), ("Friday", 2), ("the eight pm", 2),
    ("the North Sydney one on Thursday", 1), ("the morning one", None), ("the evening one", 2),
    ("the third one", 2), ("the last one", 2), ("the earliest", 0), ("the latest", 2), ("the one on the 26th", 1),
])
def test_slot_pick_among_three(text: str, index: int | None) -> None:
    assert hear(text, "slot_choice", slots=THREE).slot_pick == index


# Thursday 8:30 with Dr Lee, Thursday 12:45 with Raj: Whisper's ways of writing "the 8:30 one" / "the 12:45 one"
ECHO = (
    Slot(datetime(2026, 11, 26, 8, 30), "followup", "lee", "city", 30),
    Slot(datetime(2026, 11, 26, 12, 45), "followup", "shah", "north", 30),
)


@pytest.mark.parametrize(("text", "index"), [
    ("V831", 0), ("D831.", 0), ("D-831", 0), ("8.31", 0), ("8, 31", 0), ("the date 31", 0), ("D-date 31.", 0),
    ("8301", 0), ("the 1245-1", 1), ("the 12.45.1", 1), ("12451", 1), ("the 12.45 one", 1),
])
def test_a_short_answer_whose_digits_spell_an_offered_time_picks_it(text: str, index: int) -> None:
    assert hear(text, "slot_choice", slots=ECHO).slot_pick == index


@pytest.mark.parametrize("text", [
    "12.",                                   # 12:45's hour, and no more: could be either in another list
    "831 please, or was it 12:45",           # two times: the caller is unsure
    "the date of the 31st",                  # "date" before a day, not a number
])
def test_digits_that_spell_no_single_offered_time_pick_nothing(text: str) -> None:
    assert hear(text, "slot_choice", slots=ECHO).slot_pick is None


def test_digits_are_read_run_together_only_from_a_short_answer() -> None:
    from appliance.understanding.choice_constraints import said_digits

    assert said_digits(("the", "date", "31")) == "831" and said_digits(("d", "831")) == "831"
    assert said_digits(tuple("my sister has 8 kids and 31 cousins".split())) == ""


def test_the_spellings_of_a_time() -> None:
    from datetime import time

    from appliance.understanding.slot_picks import time_spellings

    assert time_spellings(time(8, 30)) == {"830", "8301", "831"}
    assert time_spellings(time(14, 15)) == {"215", "2151", "1415", "14151"}
    assert time_spellings(time(9, 0)) == {"9", "900", "9001"}


def test_no_pick_without_offered_slots() -> None:
    assert hear("the first one", "slot_choice").slot_pick is None


def test_pick_while_confirming() -> None:
    utterance = hear("no, sorry, that one doesn't work after all, I'd rather have the later one", "confirm",
                     slots=SLOTS)
    assert utterance.slot_pick == 1
    assert utterance.has("no")
    assert hear("no, the first name is wrong", "confirm", slots=SLOTS).slot_pick is None


def test_a_picked_slot_is_not_also_a_new_window() -> None:
    utterance = hear("the 12:15", "slot_choice", slots=SLOTS)
    assert utterance.slot_pick == 1 and utterance.window is None
    other = hear("do you have anything on Friday instead", "slot_choice", slots=SLOTS)
    assert other.slot_pick is None and other.window.label == "Friday"


def test_the_earliest_among_offered_slots_is_a_pick_not_soonest() -> None:
    utterance = hear("the earliest", "slot_choice", slots=SLOTS)
    assert utterance.slot_pick == 0 and utterance.window is None


QUARTER_PAST = (Slot(datetime(2026, 11, 26, 13, 0), "followup", "lee", "city", 30),
                Slot(datetime(2026, 11, 26, 13, 15), "followup", "lee", "city", 30))


@pytest.mark.parametrize("heard", ["150 pm works for me", "150pm works for me.", "1.50 please", "the 1:50 one", "150"])
def test_a_quarter_past_written_as_ten_to_picks_the_offered_quarter_past(heard) -> None:
    assert hear(heard, "slot_choice", slots=QUARTER_PAST).slot_pick == 1


@pytest.mark.parametrize("heard", ["Porter pass 1 is good.", "porter past one", "quarter pass 1 please", "Porter pass one"])
def test_quarter_past_written_as_porter_pass_before_an_hour_picks_the_quarter_past(heard) -> None:
    assert hear(heard, "slot_choice", slots=QUARTER_PAST).slot_pick == 1


@pytest.mark.parametrize("heard", ["the Porter one", "Porter pass", "1 o'clock"])
def test_porter_not_before_an_hour_is_left_as_heard(heard) -> None:
    assert hear(heard, "slot_choice", slots=QUARTER_PAST).slot_pick != 1


THREE_ISH = (Slot(datetime(2026, 11, 26, 15, 15), "followup", "lee", "city", 30),
             Slot(datetime(2026, 11, 26, 15, 30), "followup", "lee", "city", 30))


@pytest.mark.parametrize(("heard", "pick"), [("Free 30 PM works for me.", 1), ("free 15 please", 0), ("free-30", 1),
                                             ("the free 30 one", 1)])
def test_the_hour_three_written_free_before_its_minutes_is_three(heard, pick) -> None:
    assert hear(heard, "slot_choice", slots=THREE_ISH).slot_pick == pick


@pytest.mark.parametrize(("heard", "pick"), [("Half past free.", 1), ("quarter past free please", 0),
                                             ("the half past free one", 1), ("half past, free", 1)])
def test_the_hour_three_written_free_after_past_is_three(heard, pick) -> None:
    assert hear(heard, "slot_choice", slots=THREE_ISH).slot_pick == pick


@pytest.mark.parametrize("heard", ["Quater past one.", "quater past 1 please", "the quater past one"])
def test_quarter_past_written_without_its_first_r_picks_the_quarter_past(heard) -> None:
    assert hear(heard, "slot_choice", slots=QUARTER_PAST).slot_pick == 1


def test_ten_to_is_read_as_said_when_it_was_offered() -> None:
    ten_to = (Slot(datetime(2026, 11, 26, 13, 20), "followup", "lee", "city", 30),
              Slot(datetime(2026, 11, 26, 13, 50), "followup", "lee", "city", 30))
    assert hear("150 pm", "slot_choice", slots=ten_to).slot_pick == 1
    assert hear("150 pm", "slot_choice", slots=SLOTS).slot_pick is None    # neither time offered: no pick


@pytest.mark.parametrize("said", [
    "either way, what's the address?",
    "either way, how much is it?",
    "either way, can you tell me where to park?",
    "either way, do you have parking?",
])
def test_either_way_before_a_question_is_anyway_not_a_pick(said):
    assert hear(said, "slot_choice", slots=SLOTS).slot_pick is None


@pytest.mark.parametrize("said", ["either way is fine", "I'm happy either way", "either is fine", "either one works"])
def test_either_leaves_the_pick_to_the_agent(said):
    assert hear(said, "slot_choice", slots=SLOTS).slot_pick == 0


EIGHT_ISH = (Slot(datetime(2026, 11, 26, 8, 0), "followup", "lee", "city", 30),
             Slot(datetime(2026, 11, 26, 8, 15), "followup", "lee", "city", 30))


@pytest.mark.parametrize(("heard", "pick"), [("A15, please.", 1), ("A-15, please", 1), ("The A15 one.", 1),
                                             ("Yes, A15.", 1), ("A00 is fine", 0)])
def test_the_hour_eight_written_as_a_capital_a_before_its_minutes_is_eight(heard, pick) -> None:
    assert hear(heard, "slot_choice", slots=EIGHT_ISH).slot_pick == pick


@pytest.mark.parametrize("heard", ["a 15 minute one", "I'll take a 15"])
def test_the_article_a_before_a_number_is_no_hour(heard) -> None:
    assert hear(heard, "slot_choice", slots=EIGHT_ISH).slot_pick is None


@pytest.mark.parametrize("said", [
    "before I pick, how much is that first session going to set me back?",
    "sorry, what's the first one gonna cost me?",
    "how much is the 12 o'clock one?",
    "what's the price of the second one?",
])
def test_a_time_named_inside_a_question_about_it_is_no_pick(said):
    assert hear(said, "slot_choice", slots=SLOTS).slot_pick is None


@pytest.mark.parametrize("said, pick", [
    ("I'll take the first one, how much is it?", 0),
    ("the second one please. how much will that be?", 1),
    ("the second, and what's the address?", 1),
])
def test_a_pick_said_beside_a_question_still_picks(said, pick):
    assert hear(said, "slot_choice", slots=SLOTS).slot_pick == pick


@pytest.mark.parametrize("said", [
    "erm, twelve's a bit tight, I'm at work till then, the quarter past",
    "twelve is too early for me, quarter past twelve",
    "12 is no good, 12:15 please",
    "the quarter past please",
    "twelve's a bit tight, quarter past would be better",
])
def test_a_time_refused_is_not_the_one_picked_and_a_minute_alone_picks_its_time(said):
    assert hear(said, "slot_choice", slots=SLOTS).slot_pick == 1


@pytest.mark.parametrize("said", ["the twelve o'clock", "twelve please, it's a bit tight but fine"])
def test_a_time_said_plainly_is_still_picked(said):
    assert hear(said, "slot_choice", slots=SLOTS).slot_pick == 0


def test_half_past_alone_picks_nothing_where_no_time_offered_is_on_the_half_hour():
    assert hear("the half past", "slot_choice", slots=SLOTS).slot_pick is None


def test_a_time_refused_and_then_said_again_of_something_else_is_still_not_picked():
    said = "Twelve's too tight, he's only back at twelve, the quarter past would work though"
    assert hear(said, "slot_choice", slots=SLOTS).slot_pick == 1


@pytest.mark.parametrize("said, pick", [
    ("twelve's good, oh, actually no, school drop-off, the quarter past twelve one", 1),
    ("the first one, no wait, the second one", 1),
    ("twelve, no sorry, quarter past", 1),
    ("the second one, actually no, the first", 0),
])
def test_the_pick_said_after_taking_one_back(said, pick):
    assert hear(said, "slot_choice", slots=SLOTS).slot_pick == pick


def _two(h1: int, m1: int, h2: int, m2: int) -> tuple[Slot, ...]:
    return (Slot(datetime(2026, 11, 26, h1, m1), "followup", "lee", "city", 30),
            Slot(datetime(2026, 11, 26, h2, m2), "followup", "lee", "city", 30))


@pytest.mark.parametrize("said, slots, picked", [
    # the position said first: a later "first" is the caller's story
    ("the later one, I've got the school run first", _two(8, 30, 8, 45), 1),
    ("I'll take the second, the first is too early", _two(8, 30, 8, 45), 1),
    # one time turned down, the other taken, in one breath
    ("half three's cutting it a bit fine with pickup... go on then, the quarter to four", _two(15, 30, 15, 45), 1),
    ("half twelve? Oh, that's a bit early for the bus... the quarter to one then", _two(12, 30, 12, 45), 1),
    ("nine's kinda early, eh, I'll take the other one", _two(9, 0, 9, 15), 1),
    ("nine is pretty early, the other please", _two(9, 0, 9, 15), 1),
    ("ten's a bit late for me, I'll take the other one", _two(9, 45, 10, 0), 0),
])
def test_a_time_turned_down_and_the_other_taken_in_one_breath(said, slots, picked):
    assert hear(said, "slot_choice", slots=slots, now=datetime(2026, 11, 23, 9, 0)).slot_pick == picked


@pytest.mark.parametrize("said", ["I'll take the other one", "half twelve? that'd be perfect, or the other"])
def test_the_other_one_with_nothing_turned_down_picks_nothing_or_what_was_said(said):
    assert hear(said, "slot_choice", slots=_two(12, 30, 12, 45), now=datetime(2026, 11, 23, 9, 0)).slot_pick != 1
