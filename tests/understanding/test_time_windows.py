"""Time preferences as windows, relative to Monday 2026-11-23 09:05."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, time, timedelta

import pytest

from appliance.domain import TimeWindow

from .hearing import BOOKINGS, CATALOG_EASTSIDE, SLOTS, hear


def day(d: int, month: int = 11, year: int = 2026) -> datetime:
    return datetime(year, month, d)


MORNING = (None, time(12))
AFTERNOON = (time(12), time(17))
EVENING = (time(17), None)
ANY = (None, None)

WINDOWS = [
    ("today", day(23), day(24), ANY, "today"),
    ("this afternoon", day(23), day(24), AFTERNOON, "this afternoon"),
    ("tonight", day(23), day(24), EVENING, "tonight"),
    ("tomorrow", day(24), day(25), ANY, "tomorrow"),
    ("tomorrow morning", day(24), day(25), MORNING, "tomorrow morning"),
    ("tomorrow afternoon", day(24), day(25), AFTERNOON, "tomorrow afternoon"),
    ("tomorrow evening", day(24), day(25), EVENING, "tomorrow evening"),
    ("the day after tomorrow", day(25), day(26), ANY, "the day after tomorrow"),
    ("Thursday", day(26), day(27), ANY, "Thursday"),
    ("Thursday afternoon", day(26), day(27), AFTERNOON, "Thursday afternoon"),
    ("on Thursday", day(26), day(27), ANY, "Thursday"),
    ("this Thursday", day(26), day(27), ANY, "Thursday"),
    ("next Thursday", day(26), day(27), ANY, "next Thursday"),
    ("Monday", day(23), day(24), ANY, "Monday"),
    ("next Monday", day(30), day(1, 12), ANY, "next Monday"),
    ("next Monday morning", day(30), day(1, 12), MORNING, "next Monday morning"),
    ("Thursday week", day(3, 12), day(4, 12), ANY, "Thursday week"),
    ("Saturday please", day(28), day(29), ANY, "Saturday"),
    ("Wednesday evening", day(25), day(26), EVENING, "Wednesday evening"),
    ("this week", day(23), day(30), ANY, "this week"),
    ("next week", day(30), day(7, 12), ANY, "next week"),
    ("early next week", day(30), day(3, 12), ANY, "early next week"),
    ("later this week", day(24), day(30), ANY, "later this week"),
    ("the weekend", day(28), day(30), ANY, "the weekend"),
    ("the 26th", day(26), day(27), ANY, "Thursday 26 November"),
    ("the 3rd", day(3, 12), day(4, 12), ANY, "Thursday 3 December"),
    ("26th of November", day(26), day(27), ANY, "Thursday 26 November"),
    ("November 26", day(26), day(27), ANY, "Thursday 26 November"),
    ("November twenty sixth", day(26), day(27), ANY, "Thursday 26 November"),
    ("Dec 3rd", day(3, 12), day(4, 12), ANY, "Thursday 3 December"),
    ("26/11", day(26), day(27), ANY, "Thursday 26 November"),
    ("the first of December", day(1, 12), day(2, 12), ANY, "Tuesday 1 December"),
    ("in two weeks", day(7, 12), day(14, 12), ANY, "in 2 weeks"),
    ("Thursday or Friday", day(26), day(28), ANY, "Thursday or Friday"),
    ("Tuesday to Thursday", day(24), day(27), ANY, "Tuesday to Thursday"),
    ("Friday, any time", day(27), day(28), ANY, "Friday"),
    ("Saturday morning then", day(28), day(29), MORNING, "Saturday morning"),
    ("sometime in the next couple of weeks", day(23), day(7, 12), ANY, "in the next 2 weeks"),
    ("within the next 3 days", day(23), day(26), ANY, "in the next 3 days"),
    ("the week after next", day(7, 12), day(14, 12), ANY, "the week after next"),
    ("end of next week", day(3, 12), day(5, 12), ANY, "the end of next week"),
]


@pytest.mark.parametrize(("text", "start", "end", "times", "label"), WINDOWS)
def test_day_windows(text: str, start, end, times, label: str) -> None:
    window = hear(text, "time_preference").window
    assert window == TimeWindow(label=label, start=start, end=end, time_from=times[0], time_to=times[1])


TIMES = [
    ("after 3 pm", time(15), None, "after 3pm"),
    ("after three", time(15), None, "after 3pm"),
    ("after 3", time(15), None, "after 3pm"),
    ("before 10", None, time(10), "before 10am"),
    ("before ten am", None, time(10), "before 10am"),
    ("around 2 pm", time(14), None, "around 2pm"),
    ("at 2", time(14), None, "around 2pm"),
    ("at 9", time(9), None, "around 9am"),
    ("at noon", time(12), None, "around noon"),
    ("any time after 3", time(15), None, "after 3pm"),
    ("between 2 and 4", time(14), time(16), "between 2pm and 4pm"),
    ("not before 10", time(10), None, "after 10am"),
    ("no later than 4", None, time(16), "before 4pm"),
    ("after lunch", time(13), None, "after lunch"),
    ("in the morning", None, time(12), "morning"),
    ("mornings are best", None, time(12), "morning"),
    ("late afternoon", time(15), time(17), "late afternoon"),
    ("after half past two", time(14, 30), None, "after 2:30pm"),
]


@pytest.mark.parametrize(("text", "time_from", "time_to", "label"), TIMES)
def test_time_of_day_windows(text: str, time_from, time_to, label: str) -> None:
    window = hear(text, "time_preference").window
    assert window == TimeWindow(label=label, time_from=time_from, time_to=time_to)


def test_day_and_time_together() -> None:
    assert hear("Friday after 2", "time_preference").window == TimeWindow(
        "Friday after 2pm", day(27), day(28), time(14), None)
    assert hear("tomorrow at half past nine", "time_preference").window == TimeWindow(
        "tomorrow around 9:30am", day(24), day(25), time(9, 30), None)
    assert hear("Thursday morning after 9", "time_preference").window == TimeWindow(
        "Thursday morning after 9am", day(26), day(27), time(9), time(12))
    assert hear("Thursday afternoon at 3", "time_preference").window == TimeWindow(
        "Thursday afternoon around 3pm", day(26), day(27), time(15), time(17))


@pytest.mark.parametrize("text", ["soonest", "as soon as possible", "ASAP", "earliest", "the earliest you have",
                                  "first available", "any time", "anytime", "whenever", "whatever's soonest",
                                  "next available", "I don't mind", "no preference", "the sooner the better"])
def test_soonest(text: str) -> None:
    assert hear(text, "time_preference").window == TimeWindow(label="soonest")


@pytest.mark.parametrize(("text", "waiting_for"), [
    ("tomorrow", "dob"), ("Thursday", "phone"), ("Thursday", "full_name"), ("June", "first_name"),
    ("Friday", "last_name"), ("Monday", "spelling"), ("fourth of March eighty five", "dob"),
])
def test_no_window_while_asked_for_identity(text: str, waiting_for: str) -> None:
    assert hear(text, waiting_for).window is None


@pytest.mark.parametrize("text", ["yes", "two appointments please", "I'd like to book", "the first one",
                                  "I'm not sure", "I don't mind", "hi", "I'm running about 10 minutes late",
                                  "it takes about 2 hours", "there are 3 of us"])
def test_no_window(text: str) -> None:
    assert hear(text, "intent").window is None


def test_an_existing_appointment_is_not_a_preference() -> None:
    assert hear("Hi, I need to move my appointment tomorrow").window is None
    assert hear("I need to cancel my appointment on Thursday").window is None
    assert hear("I was going to cancel my Wednesday massage").window is None
    assert hear("move my appointment tomorrow to Thursday").window.label == "Thursday"
    assert hear("can I move it from tomorrow to Friday").window.label == "Friday"
    assert hear("the one tomorrow", "booking_choice", bookings=BOOKINGS).window is None


def test_a_booking_request_keeps_its_day() -> None:
    assert hear("book me a flu shot Friday at Eastside", catalog=CATALOG_EASTSIDE).window.label == "Friday"
    assert hear("can I book the earliest appointment on Thursday").window.label == "Thursday"
    assert hear("do you have anything Thursday").window.label == "Thursday"


def test_a_day_ruled_out_is_not_the_window() -> None:
    assert hear("oh sorry, I meant Friday, not Thursday", "slot_choice").window.label == "Friday"
    assert hear("not Thursday, Friday", "time_preference").window.label == "Friday"
    assert hear("anything but Monday", "time_preference").window is None


def test_when_today_is_that_day() -> None:
    wednesday = datetime(2026, 11, 25, 8, 0)
    assert hear("Wednesday", "time_preference", now=wednesday).window.start == day(25)
    assert hear("next Wednesday", "time_preference", now=wednesday).window.start == day(2, 12)


def test_a_past_date_rolls_to_next_year() -> None:
    assert hear("the 5th of March", "time_preference").window.start == datetime(2027, 3, 5)
    assert hear("the 5th", "time_preference").window.start == datetime(2026, 12, 5)


def test_us_order_for_numeric_days() -> None:
    assert hear("12/3", "time_preference", region="US").window.start == day(3, 12)
    assert hear("3/12", "time_preference", region="AU").window.start == day(3, 12)


def test_a_yes_repeating_the_read_back_is_not_a_new_window() -> None:
    assert hear("yes, Thursday at 12 is fine", "confirm").window is None
    assert hear("no, make it Friday", "confirm").window.label == "Friday"


@pytest.mark.parametrize("text", ["First day morning", "First day, morning.", "first day at 10", "first day"])
def test_thursday_as_whisper_writes_it_at_phone_quality(text: str) -> None:
    assert hear(text, "time_preference").weekdays == (3,), text   # a SIP run booked Wednesday for it


@pytest.mark.parametrize("text", ["the first day you have", "my first day back at work"])
def test_a_first_day_that_belongs_to_something_is_not_thursday(text: str) -> None:
    assert 3 not in hear(text, "time_preference").weekdays, text


@pytest.mark.parametrize("said", ["Monday next week", "next week Monday", "next week on Monday", "Monday of next week"])
def test_a_weekday_in_next_week_is_that_day_not_the_coming_one(said) -> None:
    window = hear(said, "time_preference").window
    assert (window.start, window.end) == (datetime(2026, 11, 30), datetime(2026, 12, 1))


def test_a_part_of_the_day_between_the_weekday_and_the_week_is_kept() -> None:
    window = hear("Tuesday afternoon next week", "time_preference").window
    assert window.start == datetime(2026, 12, 1) and window.time_from == time(12)


@pytest.mark.parametrize("said", ["something soon", "whatever's soon", "soonish please", "soon as possible",
                                  "sooner the better"])
def test_soon_alone_asks_for_the_soonest_when_asked_when_to_come(said) -> None:
    window = hear(said, "time_preference").window
    assert window is not None and window.label == "soonest"


@pytest.mark.parametrize("said", ["not too soon", "that's too soon", "not soon"])
def test_too_soon_or_not_soon_is_not_the_soonest(said) -> None:
    window = hear(said, "time_preference").window
    assert window is None or window.label != "soonest"


@pytest.mark.parametrize(("text", "start", "times"), [
    ("Afternoon, on Thursday, if you can.", day(26), AFTERNOON),
    ("Morning, Friday if possible", day(27), MORNING),
    ("Evening. Tuesday ideally", day(24), EVENING),
    ("Afternoon, Wednesday please", day(25), AFTERNOON),
])
def test_a_part_of_day_said_first_answers_when_a_time_was_asked(text: str, start, times) -> None:
    window = hear(text, "time_preference").window
    assert (window.start, window.time_from, window.time_to) == (start, *times)


@pytest.mark.parametrize("text", ["Morning, I'd like to book a massage on Thursday",
                                  "Good afternoon, can I book for Thursday?",
                                  "Afternoon, I need to see someone Thursday"])
def test_a_part_of_day_greeting_at_the_opening_is_no_time(text: str) -> None:
    window = hear(text, "intent").window
    assert window is not None and (window.time_from, window.time_to) == ANY


@pytest.mark.parametrize("text", ["whatever soon is", "Whatever's soon as.", "the soon as, please", "Um, your soon is"])
def test_soonest_with_its_ending_written_apart_is_soonest_when_a_time_was_asked(text: str) -> None:
    assert hear(text, "time_preference").window == TimeWindow(label="soonest")


@pytest.mark.parametrize("text", ["as soon as I can get in", "soon as you can"])
def test_as_soon_as_in_a_longer_answer_is_still_soonest(text: str) -> None:
    assert hear(text, "time_preference").window == TimeWindow(label="soonest")


@pytest.mark.parametrize("said, label", [
    ("erm, Friday... sorry, no, I meant Thursday. Thursday afternoon", "Thursday afternoon"),
    ("could we do Tuesday after- wait, not Tuesday, Wednesday. Wednesday afternoon.", "Wednesday afternoon"),
    ("have you got Thursday mor- actually no, wait, not Thursday, Friday. Friday morning.", "Friday morning"),
    ("Tuesday, no sorry, Wednesday", "Wednesday"),
    ("Monday, or rather Tuesday morning", "Tuesday morning"),
    ("Thursday, make that Friday", "Friday"),
    ("Tuesday, hang on, Wednesday", "Wednesday"),
])
def test_a_day_taken_back_in_the_same_answer_gives_way_to_the_day_said_after(said, label):
    window = hear(said, "time_preference").window
    assert window is not None and window.label == label


@pytest.mark.parametrize("said, label", [
    ("Thursday or Friday, actually", "Thursday or Friday"),
    ("Friday, actually, if you can", "Friday"),
    ("Thursday afternoon", "Thursday afternoon"),
])
def test_days_said_without_a_change_of_mind_between_them_stand(said, label):
    assert hear(said, "time_preference").window.label == label


@pytest.mark.parametrize("said", [
    "I've a wedding at the weekend, would you have anything before?",
    "I have a match on Saturday",
    "we're going to a wedding on Friday",
])
def test_a_day_the_caller_has_an_event_on_is_not_the_day_wanted(said):
    window = hear(said, "time_preference").window
    assert window is None or window.label not in ("the weekend", "Saturday", "Friday")


def test_a_day_with_an_event_on_it_leaves_the_day_asked_for():
    assert hear("I have a match on Saturday, so Friday please", "time_preference").window.label == "Friday"


@pytest.mark.parametrize("said, label", [
    ("I can't do mornings at all, I've got the little one till my husband's back at lunchtime. Tuesday afternoon?",
     "Tuesday afternoon"),
    ("Well, I can't do Mondays or Tuesdays, I watch my grandkids, and mornings are no good. So Wednesday afternoon "
     "would be best.", "Wednesday afternoon"),
    ("not Monday, Tuesday or Wednesday, but Thursday's fine", "Thursday"),
    ("no mornings please, Friday", "Friday"),
    ("Thursday morning's no good, Thursday afternoon?", "Thursday afternoon"),
])
def test_a_time_of_day_or_a_list_of_days_refused_is_never_the_window(said, label):
    assert hear(said, "time_preference").window.label == label


@pytest.mark.parametrize("said, label", [
    ("Thursday's fine", "Thursday"),
    ("not Monday, Tuesday", "Tuesday"),   # a pause between two days: the second puts the first right
    ("Monday or Tuesday", "Monday or Tuesday"),
])
def test_days_said_plainly_or_put_right_with_a_pause(said, label):
    assert hear(said, "time_preference").window.label == label


@pytest.mark.parametrize("said, label", [
    ("I forgot my daughter's got her school assembly Thursday morning. Got anything after five on the Thursday "
     "instead?", "Thursday after 5pm"),
    ("oh wait, sorry, Wednesday night is my son's basketball game. Can we do Thursday morning instead?",
     "Thursday morning"),
    ("Friday I have a wedding, so Thursday", "Thursday"),
    ("Saturday is the game, can I come Friday", "Friday"),
])
def test_a_day_with_something_on_gives_way_to_the_day_asked_for(said, label):
    assert hear(said, "slot_choice", slots=SLOTS).window.label == label


@pytest.mark.parametrize("said", [
    "So, long story, I was playing five-a-side over on the fields on Saturday, went in for a tackle",
    "it started on Tuesday",
    "she's been on at me all weekend",
    "it's been clicking since Saturday",
    # "done" for hurt, in many a region's speech
    "so I've done summat to me knee playing five-a-side on Sunday, it's gone all swollen",
    "I done my knee in at camogie on Saturday and it's swelled up like a balloon",
    "he's done his ankle on Saturday at the match",
    # a visit gone by, counted back from now
    "I was in a couple weeks back and the dentist said I gotta come back for a filling",
    "I was in about three weeks ago for a check",
])
def test_a_day_told_of_as_gone_by_is_no_window(said):
    assert hear(said, "intent").window is None


@pytest.mark.parametrize("said, label", [
    ("I hurt my back on Saturday, can I come in Monday?", "Monday"),
    ("I was hoping for Saturday", "Saturday"),
    ("I was wondering if you have anything on Friday", "Friday"),
    ("I saw her on Tuesday and she said to come back Friday", "Friday"),
    ("is there anything at all on Friday", "Friday"),
    ("can I get it done on Friday", "Friday"),
    ("I'll be done with work by five on Friday, so Friday evening?", "Friday evening after 5pm"),
])
def test_a_day_wanted_beside_a_day_told_of(said, label):
    window = hear(said, "time_preference").window
    assert window is not None and window.label in (label, "today")


def test_a_weekday_with_its_date_later_than_the_next_such_day_is_that_date():
    # now is Monday 23 November: "Thursday the 3rd" of December is a Thursday, not this week's
    window = hear("Thursday the 3rd of December? Any time after three", "time_preference").window
    assert window.start == day(3, 12) and window.time_from == time(15)


def test_a_time_asked_for_that_day_while_times_of_one_day_are_offered_is_on_that_day():
    window = hear("hmm, I'm at work then. Have you got anything later that day? After five?", "slot_choice",
                  slots=SLOTS).window
    assert window.start == day(26) and window.time_from == time(17)
    assert hear("I'm at work then", "slot_choice", slots=SLOTS).refused_days == ()


@pytest.mark.parametrize("said", ["Hiya, morning. Doe, Jane. I'd like a follow-up", "Hi there, morning, I need a follow-up"])
def test_morning_said_as_a_greeting_after_another_is_no_window(said):
    assert hear(said).window is None


@pytest.mark.parametrize("said, start", [
    ("a week from Tuesday", day(1, 12)),
    ("a week on Tuesday", day(1, 12)),
    ("a week from this coming Tuesday, any time after four-thirty", day(1, 12)),
    ("two weeks from Friday", day(11, 12)),
    ("a fortnight on Thursday", day(10, 12)),
    ("a week from tomorrow", day(1, 12)),
    ("Could you do a week Tuesday? Morning, mind, it has to be fasting, see.", day(1, 12)),
    ("a fortnight Friday", day(11, 12)),
])
def test_weeks_counted_from_a_day_named_are_that_many_weeks_after_it(said, start):
    window = hear(said, "time_preference").window
    assert window.start == start and window.end == start.replace(day=start.day + 1)


@pytest.mark.parametrize("said, at", [
    ("ten fifteen's better, gives me time to drop my son at school", time(10, 15)),
    ("half one, yeah, the one-thirty", time(13, 30)),
    ("the quarter past five, please", time(17, 15)),
    ("anything after four thirty?", time(16, 30)),
])
def test_a_clock_time_said_alone_while_one_days_times_are_offered_keeps_that_day(said, at):
    window = hear(said, "slot_choice", slots=SLOTS).window
    assert window.start == day(26) and window.time_from == at


def _a_week_later(slots):
    return tuple(replace(slot, start=slot.start + timedelta(days=7)) for slot in slots)


@pytest.mark.parametrize("said", [
    "those are too early for me. Does she have anything that Thursday in the afternoon?",
    "what about later on that Thursday",
    "anything the same Thursday after two?",
])
def test_that_weekday_while_that_weekday_is_on_offer_is_the_day_on_offer(said):
    window = hear(said, "slot_choice", slots=_a_week_later(SLOTS)).window
    assert window.start == day(3, 12)


@pytest.mark.parametrize("said", [
    "My heel's been killing me every morning for like a month, can I get in to see somebody?",
    "I hurt my back this morning, can I get in?",
    "I woke up this morning with a sore jaw, can I see someone?",
    "it aches in the mornings, can I book a physio?",
])
def test_a_time_of_day_told_of_with_the_complaint_is_no_window(said):
    assert hear(said).window is None


@pytest.mark.parametrize("said, label", [
    ("I'm free every morning, can I book a cleaning?", "morning"),
    ("my back is sore can I come in the morning", "morning"),
    ("it hurts when I walk, could I come Thursday afternoon", "Thursday afternoon"),
])
def test_a_time_of_day_wanted_beside_a_complaint(said, label):
    assert hear(said, "time_preference").window.label == label


@pytest.mark.parametrize("said, label", [
    ("Friday morning if you got anything, I'm off Fridays", "Friday morning"),
    ("I'm off on Friday so that works", "Friday"),
    ("Friday would be best, I'm off work that day", "Friday"),
])
def test_a_day_off_work_is_a_day_free(said, label):
    utterance = hear(said, "time_preference")
    assert utterance.window.label == label and utterance.refused_days == ()


@pytest.mark.parametrize("said, refused, label", [
    ("Monday's no good, he has dialysis Mondays... Tuesday afternoon?", day(23), "Tuesday afternoon"),
    ("she's got chemo on Tuesdays, so Wednesday", day(24), "Wednesday"),
    ("I have classes Wednesday, Thursday morning?", day(25), "Thursday morning"),
    ("I've a shift Friday so maybe Thursday", day(27), "Thursday"),
])
def test_a_day_with_a_standing_commitment_is_refused(said, refused, label):
    utterance = hear(said, "time_preference")
    assert refused.date() in utterance.refused_days and utterance.window.label == label


@pytest.mark.parametrize("said", [
    "Tuesday afternoon? The 8th?",
    "Tuesday, that's the 8th",
    "Tuesday afternoon, I mean the 8th",
])
def test_a_weekday_and_then_its_date_is_that_date(said):
    assert hear(said, "time_preference").window.start == day(8, 12)


@pytest.mark.parametrize("said, label", [
    ("Thursday morning? Oh, no, wait, shoot, I'm driving my granny to her appointment Thursday morning. "
     "Let's say Thursday afternoon instead.", "Thursday afternoon"),
    ("Thursday morning, oh no wait, I'm at work Thursday morning, Thursday afternoon then", "Thursday afternoon"),
    ("Tuesday morning, actually can we do Tuesday afternoon instead", "Tuesday afternoon"),
    ("Tuesday morning, no sorry, Tuesday afternoon", "Tuesday afternoon"),
    ("Friday instead of Thursday", "Friday"),
    ("rather than Monday, could we do Tuesday", "Tuesday"),
])
def test_the_time_of_a_day_taken_back_for_another_time_of_it(said, label):
    assert hear(said, "time_preference").window.label == label


@pytest.mark.parametrize("said, label", [
    ("She breaks up on Friday, so, Monday? Any time Monday.", "Monday"),
    ("I'm at work Tuesday so maybe Wednesday", "Wednesday"),
    ("he finishes Friday so could we do Monday", "Monday"),
    ("Friday, so I can rest on the weekend", "Friday"),
])
def test_a_day_concluded_with_so_after_another_told_of_is_the_day_wanted(said, label):
    assert hear(said, "time_preference").window.label == label


@pytest.mark.parametrize("said", [
    "Wednesday, um, no, actually, hang on, I've got a thing Wednesday. Thursday afternoon?",
    "I have a thing on Wednesday so Thursday afternoon",
    "Wednesday? No, my son has a thing Wednesday, Thursday afternoon then",
])
def test_a_day_with_a_thing_on_is_refused(said):
    utterance = hear(said, "time_preference")
    assert day(25).date() in utterance.refused_days and utterance.window.label == "Thursday afternoon"


@pytest.mark.parametrize("said, time_from, time_to", [
    ("What've you got the day after tomorrow? In the morning, early as you can, I start work at nine.", None, time(9)),
    ("I finish work at five so anything after", time(17), None),
    ("Thursday, I get off at 4", time(16), None),
    ("I start my shift at 2, so Tuesday morning", None, time(12)),
])
def test_the_callers_own_day_bounds_the_time_wanted(said, time_from, time_to):
    window = hear(said, "time_preference").window
    assert (window.time_from, window.time_to) == (time_from, time_to)


@pytest.mark.parametrize("said", [
    "Hey, so, the arm on my glasses snapped off this morning, and I'd like to book an eye exam.",
    "I was out shovelling the driveway after that storm on the weekend and I've done my back. Can I get in?",
    "I rolled my ankle at netball on Saturday, can I get in?",
    "I tripped on Sunday and my knee's swollen",
])
def test_a_day_a_mishap_is_told_of_on_is_no_window(said):
    assert hear(said).window is None


def _heard_on(said: str, now: datetime, region: str = "GB"):
    return hear(said, "time_preference", now=now, region=region)


def test_a_day_listed_after_a_pause_with_the_days_refused_is_the_caller_moving_on():
    utterance = _heard_on("So I work Mondays and Wednesdays, um... Thursday afternoon? Like next Thursday, the "
                          "twenty-sixth.", datetime(2026, 11, 17, 10, 20), "CA")
    assert utterance.window.start == day(26) and utterance.window.time_from == time(12)
    assert hear("I can't do Mondays, Tuesdays or Wednesdays", "time_preference").window is None


@pytest.mark.parametrize("said, start", [
    ("could I do Monday the twenty-fifth, och no, wait, that's Burns Night. Tuesday the twenty-sixth, in the "
     "afternoon?", datetime(2027, 1, 26)),
    ("I'm on shifts, I can't do Monday or Tuesday, so, eh, Wednesday? Afternoon ideally.", datetime(2027, 1, 13)),
    ("can I do the Saturday after, the twelfth? Or... no, actually Monday is better for me. Monday the "
     "twenty-fifth, in the morning", datetime(2027, 1, 25)),
    # a pause written as an em dash ends the refusal's clause
    ("Not this coming Tuesday, I'm away \u2014 a week Tuesday? In the morning if poss", datetime(2027, 1, 19)),
    # a take-back standing alone among other words between two days
    ("Can we do next week? Like, Tuesday afternoon? Oh wait, no, Tuesday's no good, I've got a review. Wednesday "
     "afternoon, the twentieth.", datetime(2027, 1, 20)),
    ("Thursday, I'm busy at nine, no, actually, Friday", datetime(2027, 1, 15)),
    # days refused for what is on all day, then the day asked for with "so ... would"
    ("I've lectures all day today and tomorrow morning, so... would the day after tomorrow suit? In the morning?",
     datetime(2027, 1, 13)),
    ("I have meetings all day Wednesday, so Thursday?", datetime(2027, 1, 14)),
    # the day taken back, told of again, then another
    ("Could we do Friday? Oh no, hang on, I'm flying back Friday. The Monday after then, the eighteenth, any time "
     "in the afternoon.", datetime(2027, 1, 18)),
    ("Saturday? No wait, my sister's wedding is Saturday. Sunday then", datetime(2027, 1, 17)),
])
def test_the_day_settled_on_after_a_change_of_mind(said, start):
    assert _heard_on(said, datetime(2027, 1, 11, 10, 30)).window.start == start


@pytest.mark.parametrize("said, start", [
    ("I work Monday through Wednesday, so it's gotta be Thursday or Friday. Let's say this Friday, in the mornin' "
     "if y'all got it", datetime(2026, 12, 11)),
    ("Thursday or Friday, make it Friday", datetime(2026, 12, 11)),
])
def test_a_day_settled_on_with_lets_say_or_make_it(said, start):
    assert _heard_on(said, datetime(2026, 12, 8, 16, 40), "US").window.start == start


def test_a_range_of_weekdays_refused_refuses_each_day_in_it():
    refused = _heard_on("I can't do Monday to Wednesday", datetime(2026, 12, 8, 16, 40), "US").refused_days
    assert {date(2026, 12, 14), date(2026, 12, 15), date(2026, 12, 16)} <= set(refused)


@pytest.mark.parametrize("said, wanted", [
    ("um, Tuesday week? So the eighth... nah hang on, he's got touch on Tuesdays. Wednesday the ninth, in the "
     "afternoon", datetime(2026, 12, 9)),
    ("she has ballet on Mondays, so Tuesday", datetime(2026, 12, 1)),
])
def test_a_weekday_someone_has_something_on_every_week_is_refused_every_week(said, wanted):
    utterance = _heard_on(said, datetime(2026, 11, 30, 12, 40), "NZ")
    assert utterance.window.start == wanted and date(2026, 12, 8 if "touch" in said else 7) in utterance.refused_days


@pytest.mark.parametrize("said", ["she's got nothing on Friday, so Friday", "if he's got anything on Friday"])
def test_nothing_on_a_day_or_asking_about_it_does_not_refuse_it(said):
    assert _heard_on(said, datetime(2026, 11, 30, 12, 40), "NZ").refused_days == ()


def test_a_refused_day_told_of_again_with_its_reason_stays_refused():
    utterance = _heard_on("Monday's no good, I've the hospital Monday. Tuesday morning?", datetime(2026, 11, 19, 14, 20))
    assert utterance.window.label == "Tuesday morning" and date(2026, 11, 23) in utterance.refused_days


@pytest.mark.parametrize("said, start", [
    ("I work Mondays and Tuesdays, so... Wednesday arvo? Not this Wednesday though, the one after.", day(9, 12)),
    ("Friday? The following one.", day(11, 12)),
    ("not this Thursday, the week after", day(10, 12)),
])
def test_the_same_weekday_a_week_on(said, start):
    assert _heard_on(said, datetime(2026, 11, 30, 10, 0), "AU").window.start == start


@pytest.mark.parametrize("said, time_from, time_to", [
    ("um, the day after tomorrow? But not the morning, I work till noon, so afternoon", time(12), time(17)),
    ("I'm at work until five", time(17), None),
    ("next Wednesday? After five if possible, I don't finish work till half four", time(17), None),
    ("before 10", None, time(10)),
])
def test_the_end_of_the_callers_busy_time_is_when_they_are_free_from(said, time_from, time_to):
    window = _heard_on(said, datetime(2026, 12, 9, 9, 0), "US").window
    assert (window.time_from, window.time_to) == (time_from, time_to)


@pytest.mark.parametrize("said, wanted, refused", [
    ("could we do Thursday? Actually no, wait, Thursday I'm closing too. Friday morning?", day(18, 12), date(2026, 12, 17)),
    ("Saturday morning? Oh wait, no, the kids have got netball Saturday. Friday arvo, if he's got something",
     day(18, 12), date(2026, 12, 19)),
    # on (a shift) that day as well, and "an' all" closing its sentence is no "all week" before the next day
    ("Tuesday... no, wait, I'm on Tuesday an' all. Wednesday afternoon, if he's got anything", day(16, 12),
     date(2026, 12, 15)),
    ("I'm on Tuesday too, so Wednesday", day(16, 12), date(2026, 12, 15)),
    ("Monday's no good, she's on Thursday as well, so Friday", day(18, 12), date(2026, 12, 17)),
    ("I'm working Tuesday and all. Wednesday afternoon", day(16, 12), date(2026, 12, 15)),
])
def test_a_day_taken_back_for_a_shift_or_what_the_family_has_on(said, wanted, refused):
    utterance = _heard_on(said, datetime(2026, 12, 14, 8, 10), "AU")
    assert utterance.window.start == wanted and refused in utterance.refused_days


def test_a_weekday_after_the_week_said_fine_is_in_that_week():
    window = _heard_on("the week after next? No, sorry, next week's fine. Wednesday, anytime after lunch.",
                       datetime(2027, 1, 7, 11, 0), "US").window
    assert window.start == datetime(2027, 1, 13) and window.time_from == time(13)


@pytest.mark.parametrize("said", [
    "I've done something to my lower back, I think it was touch footy on the weekend, and I can barely sit",
    "So I was in with her for my acne six weeks ago and she said come back in six weeks, and I forgot to book it",
    "so I was up at the mountain this weekend and I kinda twisted my knee",
    "so I threw my back out shoveling the driveway Saturday, can I get in?",
    "I tweaked my neck on Sunday lifting weights",
    "I've been getting these headaches by about two o'clock every day, and my partner reckons I need my eyes tested",
    "I get migraines around 3pm most days, so I need my eyes checked",
    "my knee is stiff by about 5 every evening, I'd like to get it looked at",
])
def test_a_weekend_gone_by_or_a_period_counted_from_a_past_visit_is_no_window(said):
    assert _heard_on(said, datetime(2027, 1, 8, 16, 0), "US").window is None


@pytest.mark.parametrize("said, start", [
    ("I work Monday through Wednesday, so, um, Thursday or Friday? Friday's better actually. Friday morning.",
     datetime(2027, 1, 15)),
    ("Thursday or Friday, Friday would be better", datetime(2027, 1, 15)),
])
def test_the_day_said_to_be_better(said, start):
    assert _heard_on(said, datetime(2027, 1, 12, 14, 40), "US").window.start == start


@pytest.mark.parametrize("said, wanted", [
    ("Wednesday evening? Oh no, hang on, I've got five-a-side on Wednesdays. Thursday evening then.", day(3, 12)),
    ("Monday? Oh wait, no, Mondays she has swim. Tuesday afternoon", day(1, 12)),
    ("Friday, Thursday then", day(3, 12)),
])
def test_the_day_the_caller_ends_on_after_a_weekly_commitment(said, wanted):
    assert _heard_on(said, datetime(2026, 11, 30, 10, 0), "GB").window.start == wanted


@pytest.mark.parametrize("said", ["Tuesday I've got time", "Tuesday I have nothing on"])
def test_a_day_with_time_or_nothing_on_is_not_refused(said):
    assert _heard_on(said, datetime(2026, 11, 30, 10, 0), "GB").refused_days == ()


@pytest.mark.parametrize("said", [
    "I need an eyesight certificate for my licence. I'm seventy-five today, would you believe, so they want one",
    "my son turns five tomorrow so he needs his check",
    "it's my birthday today and I've finally decided to get my teeth looked at",
    "she'll be 4 on Friday, she needs her booster",
])
def test_the_day_someone_reaches_an_age_or_has_a_birthday_is_told_of_not_wanted(said):
    assert _heard_on(said, datetime(2026, 11, 30, 9, 0), "NZ").window is None


@pytest.mark.parametrize("said", ["I'm free today", "I'll be in town tomorrow, can I come in", "can I come in today"])
def test_a_day_the_caller_is_free_or_asks_for_is_still_wanted(said):
    assert _heard_on(said, datetime(2026, 11, 30, 9, 0), "NZ").window is not None


@pytest.mark.parametrize("said, wanted, refused", [
    # busy somewhere that day: "out at the port", "working down in <town>"
    ("I'm out at the port Monday and Tuesday, so it'd need to be Wednesday. Wednesday morning, first thing",
     datetime(2026, 11, 18), date(2026, 11, 17)),
    ("I'm working down in Leeds Tuesday, so Thursday", datetime(2026, 11, 19), date(2026, 11, 17)),
    # a weekday that every week is someone's
    ("Like Monday the 23rd, oh, no, Mondays are my church circle. Tuesday the 24th, in the morning?",
     datetime(2026, 11, 24), date(2026, 11, 23)),
    ("Thursdays are her swimming, so Friday", datetime(2026, 11, 20), date(2026, 11, 19)),
    # what the caller has every week that day, whatever it is called
    ("um, Tuesday morning? Oh wait, no, I have standup Tuesdays. Wednesday morning works", datetime(2026, 11, 18),
     date(2026, 11, 17)),
    ("I've got netball Thursdays, so Friday?", datetime(2026, 11, 20), date(2026, 11, 19)),
    ("we have choir on Wednesdays, could we do Thursday", datetime(2026, 11, 19), date(2026, 11, 18)),
    ("I have lectures Mondays, anything Tuesday?", datetime(2026, 11, 17), date(2026, 11, 23)),
    # what someone does every week that day ("on a Tuesday" is every Tuesday)
    ("she swims Thursdays so Friday", datetime(2026, 11, 20), date(2026, 11, 26)),
    ("I go to the gym on a Monday, could I come Wednesday", datetime(2026, 11, 18), date(2026, 11, 23)),
    ("I have yoga on a Wednesday, so Thursday", datetime(2026, 11, 19), date(2026, 11, 25)),
])
def test_a_day_refused_for_where_the_caller_is_or_what_is_on_every_week(said, wanted, refused):
    utterance = _heard_on(said, datetime(2026, 11, 16, 9, 0), "GB")
    assert utterance.window.start == wanted and refused in utterance.refused_days


@pytest.mark.parametrize("said", ["Mondays are my day off, so Monday", "Fridays are my best days",
                                  "I have Tuesdays off, so Tuesday", "I've got time Tuesdays",
                                  "I have nothing on Tuesdays so that's good", "I've got free time on Tuesdays"])
def test_a_weekday_that_is_free_every_week_is_not_refused(said):
    assert _heard_on(said, datetime(2026, 11, 16, 9, 0), "GB").refused_days == ()


@pytest.mark.parametrize("said", [
    "so, I play five-a-side on a Tuesday and my calves are wrecked, so I was wanting to book a sports massage",
    "he coaches the under-nines on a Saturday and his knee's gone, can he book in",
    "I train on Tuesdays and I've pulled something, I need a physio",
])
def test_a_weekday_told_of_as_what_someone_does_every_week_is_no_day_wanted(said):
    utterance = _heard_on(said, datetime(2026, 11, 16, 9, 0), "GB")
    assert utterance.window is None or utterance.window.start is None
    assert utterance.refused_days


@pytest.mark.parametrize("said", ["I can only come in on a Tuesday", "I'm free on a Tuesday", "I do prefer a Tuesday"])
def test_a_weekday_wanted_every_week_is_wanted(said):
    utterance = _heard_on(said, datetime(2026, 11, 16, 9, 0), "GB")
    assert utterance.window.start == datetime(2026, 11, 17) and utterance.refused_days == ()


@pytest.mark.parametrize("said", [
    "oh, today? Nah, I can't do today, I'm in work till six. Have you got anything tomorrow morning?",
    "not today, I'm at work until five. Tomorrow morning would be better",
    "I can't do today, I'm on shift till 7pm, so tomorrow morning please",
])
def test_the_end_of_a_busy_day_refused_is_no_bound_on_the_part_of_another_day_asked_for(said):
    window = _heard_on(said, datetime(2026, 11, 18, 16, 0), "GB").window
    assert window.start == datetime(2026, 11, 19) and window.time_to == time(12) and window.time_from is None


@pytest.mark.parametrize("said, at", [("six works", time(18)), ("nine's grand, yeah", time(9)),
                                      ("ten is fine", time(10)), ("two would be better", time(14))])
def test_a_bare_hour_the_caller_takes_is_a_time(said, at):
    window = _heard_on(said, datetime(2026, 11, 23, 9, 5), "GB").window
    assert window is not None and window.time_from == at


@pytest.mark.parametrize("said", ["the second one is fine", "two of us are coming", "I've got six kids"])
def test_a_number_not_taken_as_a_time_is_no_window(said):
    window = _heard_on(said, datetime(2026, 11, 23, 9, 5), "GB").window
    assert window is None or window.time_from is None


@pytest.mark.parametrize("said, part", [
    ("Saturday morning would be... oh no, wait, I've got the lad's football Saturday. Friday afternoon then, this "
     "Friday.", AFTERNOON),
    ("Thursday, I mean Friday afternoon, the Friday", AFTERNOON),
    ("how about Wednesday evening, or actually, Thursday evening, that Thursday", EVENING),
    ("Monday morning? Actually no, Friday evening works better, this Friday", EVENING),
])
def test_the_time_of_day_said_with_the_day_settled_on_holds_when_that_day_is_said_again_without_it(said, part):
    window = _heard_on(said, datetime(2026, 11, 17, 9, 0), "GB").window
    assert window.start.weekday() in (3, 4) and (window.time_from, window.time_to) == part


def test_a_spaced_dash_is_a_pause_and_an_unspaced_en_dash_a_range():
    from appliance.understanding.normalise import normalise

    assert len(normalise("I'm away \u2014 a week Tuesday").clause_starts) == 2
    assert len(normalise("I'm away \u2013 a week Tuesday").clause_starts) == 2
    assert len(normalise("Monday\u2013Friday").clause_starts) == 1
