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
from .calendar_phrases import DayMention
from .normalise import CallerText

# before the day, in its clause: "can't do", "won't make it on", "I'm working on", "except", "not"
_REFUSED_BEFORE = re.compile(
    r"(?:\b(?:can not|could not|will not be able to|would not be able to|am not able to|unable to|not able to|"
    r"can not really|do not think i can)(?: \w+){0,2}?(?: do| make| manage| come(?: in)?| get in| attend| be there|"
    r"make it)|\b(?:i am|i will be|we are|i have got|i have) (?:busy|working|at work|away|out|off|not free|not around|"
    r"not available|work|plans|a meeting|something on)|\bi work|"
    # an event the caller has that day: "I've a wedding at the weekend", "I have a match on Saturday"
    r"\b(?:i|we) (?:have|have got|am going to|are going to|will be at|am at|are at) (?:a|an|my|our|the|this|that)?"
    r" ?(?:\w+ )?(?:wedding|party|funeral|match|game|holiday|trip|flight|exam|interview|meeting|event|christening|"
    r"graduation|concert|conference|hen do|stag do|birthday|surgery|operation)(?: on| at| this| that| the)*|\bnot|\bexcept|\bno|\bnever|\bexcluding|\bapart from|"
    r"\bother than|\banything but|\bnot on|\bjust not)(?: on| that| this| the)*(?: very)? $")
# after the day, in its clause: "is no good", "doesn't work", "is out", "I can't"
_REFUSED_AFTER = re.compile(
    r"^(?: 's| is| are| would be| will be)? (?:no good|not good|not great|not ideal|not possible|not an option|out|bad|"
    r"difficult|tricky|impossible|a problem|a no|full|busy|hard)\b|"
    r"^(?: (?:is|are|will|would|does|do) not| is not going to| are not going to)(?: really)? (?:work|suit|do|be "
    r"possible|be any good|good)\b|"
    r"^(?: i am| i will be| we are)(?: actually)? (?:busy|working|at work|away|not free|not around|not available)\b|"
    r"^(?: i| we) (?:can not|could not|will not be able to)\b|^(?: i work)\b|"
    # "ten's a bit tight", "seven thirty is too early for me"
    r"^(?: 's| is| are| would be| will be)? (?:a bit|a little|a wee bit|bit|too|way too|far too|a touch) "
    r"(?:tight|early|late|soon|close)\b|^(?: 's| is| would be) tight\b")
_THAT_DAY = re.compile(r"\b(?:that day|that date|those days|the day you said|then)\b")


def refused_days(ct: CallerText, days: list[DayMention], offered: tuple[Slot, ...] = ()) -> tuple[date, ...]:
    """The dates the caller says they cannot do: each refused day said, and "that day" for the offered one."""
    refused: list[date] = []
    for day in days:
        if refused_here(ct, day.start, day.end_index):
            refused.extend(_dates(day))
    if offered:
        for m in _THAT_DAY.finditer(ct.text):
            start, end = ct.span(m.start(), m.end())
            if refused_here(ct, start, end):
                refused.extend(sorted({slot.start.date() for slot in offered}))
    return tuple(dict.fromkeys(refused))


def refused_here(ct: CallerText, start: int, end: int) -> bool:
    """Whether the words around the token span [start, end) refuse it, within its clause."""
    clause_start, clause_end = ct.clause_of(start)
    text = ct.text
    before = " ".join(ct.tokens[clause_start:start]) + " "
    after = " " + " ".join(ct.tokens[end:clause_end])
    if _REFUSED_BEFORE.search(before) and not _ASKED_BEFORE.search(before):
        return True
    return bool(_REFUSED_AFTER.match(after.rstrip() + " ")) if after.strip() else False


# "can't I do Thursday?", "couldn't you do Thursday": a question that asks for the day, not a refusal
_ASKED_BEFORE = re.compile(r"\b(?:can not|could not|will not) (?:i|you|we) ")


def _dates(day: DayMention) -> list[date]:
    span = (day.end - day.first).days
    if span > 7:
        return []   # "not next month": too wide to hold against every day in it
    return [date.fromordinal(day.first.toordinal() + k) for k in range(span)]
