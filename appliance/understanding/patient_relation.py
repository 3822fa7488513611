"""Whom the caller is calling for, where it is someone of theirs: "I'm looking to book my young lad in", "an
appointment for my daughter", "my husband needs a check-up", "it's about my son", "cancel my daughter's cleaning".

Only where the person is what the booking is for, not someone told of ("my husband sees Dr Roe, but I've never
been"): the relation is said as what is booked, brought in or needs seeing. The word is the caller's own
("lad", "daughter"), read back in the agent's questions ("your lad's full name").
"""

from __future__ import annotations

from .normalise import CallerText
from .signals import WordPattern

# the people a caller books for, in the words callers use
_RELATION = (r"(?:son|daughter|lad|boy|girl|kid|child|baby|toddler|husband|wife|partner|mum|mom|mother|dad|father|"
             r"grandson|granddaughter|nan|gran|granny|grandma|grandmother|grandad|grandpa|grandfather|brother|sister|"
             r"niece|nephew|stepson|stepdaughter)")
_OF_MINE = r"(?:my|our) (?:(?:young|little|wee|eldest|youngest|oldest|baby|teenage|older|younger|elderly) )?"
_FOR_SOMEONE = (
    # ("take" only as brought in: "I've to take my mum up to the hospital" is where the caller will be)
    WordPattern(r"\b(?:book|get|bring|put|fit|squeeze) " + _OF_MINE + "(?P<rel>" + _RELATION + r")\b"),
    WordPattern(r"\btake " + _OF_MINE + "(?P<rel>" + _RELATION + r") in\b"),
    WordPattern(r"\b(?:for|about) " + _OF_MINE + "(?P<rel>" + _RELATION + r")\b(?! (?:and me|as well|too)\b)"),
    WordPattern(r"\b" + _OF_MINE + "(?P<rel>" + _RELATION + r") (?:needs|wants|has to|should|is due|would like|"
                r"will need)\b"),
    # a booking of theirs to cancel or move: "cancel my daughter's cleaning", "my son's appointment on Friday"
    WordPattern(r"\b(?:cancel|cancelling|canceling|move|moving|change|changing|reschedule|rescheduling|shift|"
                r"push back|bring forward) " + _OF_MINE + "(?P<rel>" + _RELATION + r") 's\b"),
    WordPattern(r"\b" + _OF_MINE + "(?P<rel>" + _RELATION + r") 's (?:\w+ ){0,2}?(?:appointment|booking)s?\b"),
)
# what the relation is called in the agent's questions ("your child's", not "your kid's")
_SAID_AS = {"kid": "child", "baby": "child", "toddler": "child", "mom": "mom", "lad": "son", "boy": "son",
            "girl": "daughter"}


def patient_relation(ct: CallerText) -> str | None:
    """The relation of the person the caller is calling for ("son", "daughter", "husband"), or None where the
    caller calls for themselves or did not say."""
    for pattern in _FOR_SOMEONE:
        m = pattern.search_in(ct)
        if m is not None:
            return _SAID_AS.get(m.group("rel"), m.group("rel"))
    return None
