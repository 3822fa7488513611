"""Days the caller says they cannot do.

"I can't do Thursday", "Thursday's no good", "Thursday doesn't work for me",
"I'm working that day", "not Friday": the day is refused, whatever else the
caller asks for in the same breath ("..., can we do Tuesday instead?"). A
refused day is never the time wanted, and "that day" while times are on offer
is the day of those times. The engine keeps every refused day for the rest of
the call, so none is offered or booked again.
"""

from __future__ import annotations

import re
from datetime import date

from ..domain import Slot
from .calendar_phrases import WEEKDAYS, DayMention
from .normalise import CallerText

# what a caller (or someone of theirs) may have on that day, once or every week ("he has dialysis Mondays",
# "I've got classes on Wednesdays", "she has chemo Tuesdays")
_EVENT = (r"(?:wedding|party|funeral|match|game|holiday|trip|flight|exam|interview|meetings?|event|christening|"
          r"graduation|concert|conference|hen do|stag do|birthday party|surgery|operation|assembly|recital|performance|"
          r"tournament|race|dialysis|chemo|chemotherapy|radiotherapy|infusion|treatment|therapy|class|classes|lessons?|"
          r"lectures?|shifts?|training|practice|court|school run|physio|thing)")
# before the day, in its clause: "can't do", "won't make it on", "I'm working on", "except", "not"; never "I'm off
# (on) Friday", which is a day free of work
_REFUSED_BEFORE = re.compile(
    r"(?:\b(?:can not|could not|will not be able to|would not be able to|am not able to|unable to|not able to|"
    r"can not really|do not think i can)(?: \w+){0,2}?(?: do| make| manage| come(?: in)?| get in| attend| be there|"
    r"make it)|\b(?:i am|i will be|we are|i have got|i have) (?:busy|working|at work|away|out|not free|not around|"
    r"not available|work|plans|a meeting|something on)"
    # ... and where: "I'm out at the port Monday", "I'm working down in Cork Tuesday"
    r"(?: (?:at|in|down|up|over|on|with) (?:the |my |a |his |her )?\w+(?: \w+)?)?|\bi work|"
    # an event the caller (or theirs) has that day: "I've a wedding at the weekend", "I have a match on Saturday",
    # "my daughter's got her school assembly Thursday morning"
    # what someone of the caller's has or does on the day, whatever it is: "he's got touch on Tuesdays", "she has
    # ballet on Mondays" (not the caller's own, which may be the appointment itself, nor "if he's got anything on
    # Friday", nor time, room or nothing: "she's got nothing on Friday" is a day free)
    r"(?<!\bif )(?<!\bwhether )\b(?:he|she|they|\w+ 's|(?!(?:is|was|has|does|its|this|us|yes|as)\b)\w{2,}s) "
    r"(?:has got|is got|have got|got|has|have|does) "
    r"(?!(?:\w+ )?(?:time|nothing|space|room|availability|free|off|anything|any|something free)\b)(?!to\b)"
    r"\w+(?: \w+)?|"
    r"\b(?:(?:i|we|he|she|they|\w+ 's) (?:have|has|have got|has got|is got|got|am going to|are going to|is going to|"
    r"will be at|am at|are at|is at)|\w+ has(?: got)?) (?:a|an|my|our|his|her|their|the|this|that)?"
    r" ?(?:\w+ )?" + _EVENT + r"(?: all day| all morning| all afternoon| all evening)?(?: on| at| this| that| the)*|\bnot|\bexcept|\bno|\bnever|\bexcluding|\bapart from|"
    r"\bother than|\banything but|\bnot on|\bjust not)(?: on| that| this| the)*(?: very)? $")
# after the day, in its clause: "is no good", "doesn't work", "is out", "I can't"
_REFUSED_AFTER = re.compile(
    r"^(?: 's| is| are| would be| will be)? (?:no good|not good|not great|not ideal|not possible|not an option|out|bad|"
    r"difficult|tricky|impossible|a problem|a no|full|busy|hard)\b|"
    r"^(?: (?:is|are|will|would|does|do) not| is not going to| are not going to)(?: really)? (?:work|suit|do|be "
    r"possible|be any good|good)\b|"
    r"^(?: i am| i will be| we are| he is| she is| they are| he will be| she will be)(?: actually)? (?:busy|working|"
    r"at work|away|not free|not around|not available|closing|opening|on shift|on call|on nights|on lates|"
    r"on earlies)\b|"
    r"^(?: i| we) (?:can not|could not|will not be able to)\b|^(?: i work)\b|"
    # "Mondays she has swim", "Tuesday I've got work": what someone has on the day said first
    r"^(?: i| we| he| she| they)(?>(?: have got| has got| is got| have| has| got))"
    r"(?! (?:time|nothing|free|space|room|availability|off|anything|any)\b)(?: a| an| my| his| her| their)? \w+|"
    # "Wednesday night is my son's basketball game", "Friday I have a wedding"
    r"^(?: 's| is)? (?:my|our|his|her|their|the) (?:\S+ ){0,3}" + _EVENT + r"\b|"
    r"^(?: i| we| he| she)(?: have| has| have got| has got| am at| are at| is at)(?: a| an| my| our| his| her)?"
    r"(?: \w+){0,2} " + _EVENT + r"\b|"
    # "ten's a bit tight", "seven thirty is too early for me"
    r"^(?: 's| is| are| would be| will be)? (?:a bit|a little|a wee bit|bit|too|way too|far too|a touch|kind of|"
    r"kinda|sort of|rather|pretty|quite) (?:tight|early|late|soon|close)\b|^(?: 's| is| would be) tight\b|"
    # "half three's cutting it a bit fine"
    r"^(?: 's| is| would be) (?:cutting it|pushing it)(?: a bit| a little| too)? (?:fine|close|tight)\b")
# "then" is the time offered, not its day ("I'm at work then, anything later that day?")
_THAT_DAY = re.compile(r"\b(?:that day|that date|those days|the day you said)\b")


def refused_days(ct: CallerText, days: list[DayMention], offered: tuple[Slot, ...] = ()) -> tuple[date, ...]:
    """The dates the caller says they cannot do: each refused day said, and "that day" for the offered one. A
    day refused for something on at one time of it and asked for again later ("... her assembly Thursday morning,
    got anything after five on the Thursday?") is not refused."""
    refused: list[date] = []
    said = refused_mentions(ct, days)
    for k, day in enumerate(days):
        if said[k] and not any(later.first == day.first and not said[j] and _asked_for(ct, later)
                               for j, later in enumerate(days[k + 1:], k + 1)):
            refused.extend(_dates(day))
            if _weekly(ct, day.start, day.end_index):
                # "he's got touch on Tuesdays": every Tuesday the caller may be offered, not only the next
                refused.extend(date.fromordinal(day.first.toordinal() + 7 * week) for week in range(1, _WEEKS_AHEAD))
            if k + 1 < len(days) and said[k + 1] and _range_between(ct, day, days[k + 1]):
                refused.extend(_days_from_to(day, days[k + 1]))
    if offered:
        for m in _THAT_DAY.finditer(ct.text):
            start, end = ct.span(m.start(), m.end())
            if refused_here(ct, start, end):
                refused.extend(sorted({slot.start.date() for slot in offered}))
    return tuple(dict.fromkeys(refused))


# said before a day asked for: "got anything after five on the Thursday?", "could I do Thursday evening?"
_ASKING = frozenset({"anything", "any", "can", "could", "about", "free", "available", "something", "instead", "do",
                     "maybe", "perhaps", "you"})


def _asked_for(ct: CallerText, day: DayMention) -> bool:
    """Whether a day said again after it was refused is asked for there, not told of once more ("... I've the
    hospital Monday"): a time or time of day is said with it, or words that ask for it come before it."""
    clause_start, clause_end = ct.clause_of(day.start)
    before = ct.tokens[max(clause_start, day.start - 4):day.start]
    after = ct.tokens[day.end_index:min(clause_end, day.end_index + 2)]
    if after[:1] and after[0] in _PARTS_OF_A_DAY or any(tok[:1].isdigit() or tok in ("after", "before", "around", "at")
                                                         for tok in (*before, *after)):
        return True
    return not _ASKING.isdisjoint(ct.tokens[max(clause_start, day.start - 4):day.start]) \
        and not refused_here(ct, day.start, day.end_index)


def refused_mentions(ct: CallerText, days: list[DayMention]) -> list[bool]:
    """For each day said, whether the words around it refuse it (or it is listed with a refused day, or ends a
    range that starts with one: "I work Monday through Wednesday")."""
    said = [refused_here(ct, day.start, day.end_index) or _listed_with_a_refused_day(ct, days, k)
            for k, day in enumerate(days)]
    for k in range(1, len(days)):
        if said[k - 1] and not said[k] and _range_between(ct, days[k - 1], days[k]):
            said[k] = True
    return said


_EVERY_WEEK = frozenset(word for word in WEEKDAYS if word.endswith("days"))   # "Tuesdays": every Tuesday
_WEEKS_AHEAD = 6


def _weekly(ct: CallerText, start: int, end: int) -> bool:
    """Whether the weekday said is every one of it: "Tuesdays", "on a Tuesday"."""
    return ct.tokens[end - 1] in _EVERY_WEEK or ct.tokens[max(0, start - 2):start] == ("on", "a")
_RANGE_WORDS = frozenset({("through",), ("thru",), ("to",), ("till",), ("until",)})


def _range_between(ct: CallerText, first: DayMention, last: DayMention) -> bool:
    return ct.tokens[first.end_index:last.start] in _RANGE_WORDS


def _days_from_to(first: DayMention, last: DayMention) -> list[date]:
    """The days of a range of weekdays ("Monday through Wednesday"), from the first day said on to the next day
    of the last one's weekday, whichever week each was heard in."""
    span = (last.first.weekday() - first.first.weekday()) % 7
    return [date.fromordinal(first.first.toordinal() + k) for k in range(span + 1)]


def _listed_with_a_refused_day(ct: CallerText, days: list[DayMention], k: int) -> bool:
    """Whether day `k` is said in one list with a refused day before it, a list that joins its days with "or",
    "and" or "nor" ("I can't do Mondays or Tuesdays", "not Monday, Tuesday or Wednesday"): the refusal holds for
    the whole list. Two days with only a pause between are a correction ("not Thursday, Friday")."""
    def words_between(j: int) -> tuple[str, ...]:
        return ct.tokens[days[j - 1].end_index:days[j].start]

    def gap(j: int) -> tuple[str, ...] | None:   # the words between day j - 1 and day j, where they join a list
        between = words_between(j)
        if between in (("or",), ("and",), ("nor",)):
            return between
        # a pause joins a list only where the list goes on after it ("Mondays, Tuesdays or Wednesdays"); a day
        # said last after a pause is the caller moving on ("I work Mondays and Wednesdays... Thursday?")
        if between == () and (days[j].start not in ct.clause_starts
                              or (j + 1 < len(days) and words_between(j + 1) in (("or",), ("and",), ("nor",)))):
            return between
        return None

    first = k
    while first > 0 and gap(first) is not None:
        first -= 1
    last = k
    while last + 1 < len(days) and gap(last + 1) is not None:
        last += 1
    joined = any(gap(j) for j in range(first + 1, last + 1))
    return first < k and joined and refused_here(ct, days[first].start, days[first].end_index)


def refused_here(ct: CallerText, start: int, end: int) -> bool:
    """Whether the words around the token span [start, end) refuse it, within its clause."""
    clause_start, clause_end = ct.clause_of(start)
    text = ct.text
    before = " ".join(ct.tokens[clause_start:start]) + " "
    if end < clause_end and ct.tokens[end] in _PARTS_OF_A_DAY:
        end += 1   # "Thursday morning's no good": the day is refused at that time of it
    after = " " + " ".join(ct.tokens[end:clause_end])
    if _REFUSED_BEFORE.search(before) and not _ASKED_BEFORE.search(before):
        return True
    if _ON_SHIFT_BEFORE.search(before) and _TOO_AFTER.match(after + " "):
        return True
    if _weekly(ct, start, end) and (_STANDING_AFTER.match(after + " ") or _STANDING_BEFORE.search(before)
                   or _PASTIME_BEFORE.search(before)):
        return True
    return bool(_REFUSED_AFTER.match(after.rstrip() + " ")) if after.strip() else False


# "I'm on Tuesday too", "she's on Thursday an' all": on (a shift) that day as well as one refused before; "I'm on
# Tuesday" alone may be the booking the caller holds
_ON_SHIFT_BEFORE = re.compile(r"\b(?:i am|we are|he is|she is|they are|\w+ 's|\w+ is) on (?:the )?$")
# "Mondays are my church circle", "Thursdays are her swimming": every week that day is someone's (not "Mondays
# are my day off", "Fridays are my best days", which are days free)
_STANDING_AFTER = re.compile(r"^ (?:are|is) (?:my|our|his|her|their) (?!(?:\w+ )?(?:off|free|best|good|easy|quiet|only|"
                             r"preference|preferred)\b)\w+")
# "I have standup Tuesdays", "we've got choir on Wednesdays": what the caller has every week that day, whatever it
# is (not "I have Tuesdays off", with nothing between, nor time or nothing had: "I've got time Tuesdays")
_STANDING_BEFORE = re.compile(r"\b(?:i|we) (?:have|have got|got)(?: a| an| my| our| the)? (?!(?:got|time|nothing|free|space|"
                              r"room|availability|off|anything|any|something|more|less|to)\b)\w+(?: \w+)?(?: on)?(?: a)? $")
# "I play five-a-side on a Tuesday", "she swims Thursdays", "he coaches the under-nines on a Saturday": what someone
# does every week that day
_PASTIME_BEFORE = re.compile(r"\b(?:i|we|he|she|they|\w+ 's)(?: (?:usually|always|normally|often|still))? (?:play|plays|"
                             r"coach|coaches|train|trains|teach|teaches|volunteer|volunteers|go to|goes to|swim|swims|"
                             r"ride|rides|cycle|cycles|dance|dances|sing|sings|referee|referees)\b(?: \w+){0,4}?"
                             r"(?: on)?(?: a)? $")
_TOO_AFTER = re.compile(r"^ (?:too|as well|an all|and all|also)\b")


_PARTS_OF_A_DAY = frozenset({"morning", "mornings", "afternoon", "afternoons", "evening", "evenings", "arvo", "night",
                             "nights"})
# "can't I do Thursday?", "couldn't you do Thursday": a question that asks for the day, not a refusal
_ASKED_BEFORE = re.compile(r"\b(?:can not|could not|will not) (?:i|you|we) ")


def _dates(day: DayMention) -> list[date]:
    span = (day.end - day.first).days
    if span > 7:
        return []   # "not next month": too wide to hold against every day in it
    return [date.fromordinal(day.first.toordinal() + k) for k in range(span)]
