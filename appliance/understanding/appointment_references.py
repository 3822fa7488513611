"""Words that point at an appointment the caller already has.

"my appointment tomorrow", "the one on Tuesday", "Tuesday's", "my 10
o'clock", "the follow-up with Dr Roe": the days, times and names inside
such a phrase pick one of the caller's bookings; they are not a new time
preference. "Move my appointment tomorrow to Thursday" refers to tomorrow's
appointment and asks for Thursday.
"""

from __future__ import annotations

import re

from .calendar_phrases import WEEKDAYS
from .normalise import CallerText

_NOUNS = frozenset({"appointment", "appointments", "booking", "bookings", "session", "sessions", "visit", "visits",
                    "consult", "consultation", "one", "ones"})
_OWNERS = frozenset({"my", "our", "his", "her", "their", "existing", "current", "original", "old", "booked"})
_DEFINITE = frozenset({"the", "that", "this", "those", "these"})
_STOP_RIGHT = frozenset({"to", "for", "until", "till", "into", "instead", "and", "but", "or", "so", "can", "could",
                         "would", "please", "i", "because", "if", "thanks", "thank", "is", "was", "will", "should",
                         "do", "does", "are", "maybe", "perhaps", "then", "rather", "actually"})
_MOVE = re.compile(r"\b(?:move|moving|change|changing|shift|resched\w*|re schedule|push|bring|swap|switch|rebook|"
                   r"postpone)\b")
_MAX_RIGHT = 6


# what a day is said to be when its "'s" is "is" ("Thursday's fine", "Friday's no good")
_SAID_OF_A_DAY = frozenset({"fine", "good", "ok", "okay", "great", "better", "best", "perfect", "free", "easier",
                            "ideal", "no", "not", "out", "bad", "tricky", "difficult", "tight", "full", "busy",
                            "alright", "grand", "lovely", "brilliant", "cool", "easiest", "better", "a", "too"})


def reference_spans(
    ct: CallerText,
    definite_counts: bool,
    service_spans: list[tuple[int, int, str]] = (),
) -> list[tuple[int, int]]:
    """Token spans [start, end) that describe an existing appointment.

    `definite_counts`: whether "the appointment" / "the follow-up" point at an
    existing one (true when the caller is choosing among their bookings or
    is moving, cancelling or asking about one)."""
    tokens = ct.tokens
    n = len(tokens)
    spans: list[tuple[int, int]] = []

    def extend_right(k: int) -> int:
        end = k
        clause_end = ct.clause_of(k - 1)[1] if k > 0 else n
        while end < min(clause_end, k + _MAX_RIGHT) and tokens[end] not in _STOP_RIGHT:
            end += 1
        return end

    # only a noun ("appointment", "one") or a possessive ("Tuesday's") starts a phrase
    nouns_said = "'s" in ct.words or not ct.words.isdisjoint(_NOUNS)
    for k, tok in enumerate(tokens if nouns_said else ()):
        if tok in _NOUNS:
            if tok == "one" and _the_weekday_a_week_on(tokens, k):
                continue
            clause_start = ct.clause_of(k)[0]
            det = None
            for j in range(k - 1, max(clause_start, k - 5) - 1, -1):
                if tokens[j] in _OWNERS:
                    det = j
                    break
                if tokens[j] in _DEFINITE and (tok in ("one", "ones") or definite_counts):
                    det = j
                    break
                if tokens[j] in _STOP_RIGHT:
                    break
            if det is None and k > 0 and tokens[k - 1] == "'s":
                det = max(clause_start, k - 2)
            if det is None:
                continue
            spans.append((det, extend_right(k + 1)))
        elif tok == "'s" and k > 0 and not (k + 1 < n and tokens[k + 1] in _SAID_OF_A_DAY):
            # "Tuesday's", "tomorrow's"; not "Tuesday's fine", where the 's is "is"
            spans.append((k - 1, extend_right(k + 1) if k + 1 < n and tokens[k + 1] in _NOUNS else k + 1))

    for start, end, _id in service_spans:
        clause_start = ct.clause_of(start)[0]
        for j in range(start - 1, max(clause_start, start - 3) - 1, -1):
            if tokens[j] in _OWNERS or (definite_counts and tokens[j] in _DEFINITE):
                spans.append((j, extend_right(end)))
                break
            if tokens[j] in _STOP_RIGHT:
                break

    # "from tomorrow to Friday" when moving: "from ..." is the old appointment.
    if "from" in ct.words and _MOVE.search(ct.text):
        for k, tok in enumerate(tokens):
            if tok == "from" and k + 1 < n:
                end = k + 1
                while end < min(n, k + 5) and tokens[end] not in ("to", "until", "till", "into"):
                    end += 1
                if end < n:
                    spans.append((k, end))
    return spans


def _the_weekday_a_week_on(tokens: tuple[str, ...], k: int) -> bool:
    """ "Not this Wednesday, the one after", "Friday? The following one": a day, not an appointment."""
    after = k + 1 < len(tokens) and tokens[k + 1] == "after" or k > 0 and tokens[k - 1] == "following"
    return after and not WEEKDAYS.keys().isdisjoint(tokens[max(0, k - 7):k])


def covered(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s <= start and end <= e for s, e in spans)
