"""When the caller wants to be seen, as a `TimeWindow` relative to now.

Per SCENARIOS.md: morning is before 12:00, afternoon 12:00 to 17:00,
evening from 17:00; a named day is that whole day (start at 00:00, end the
next day at 00:00); "soonest", "as soon as possible", "first available",
"any time", "whenever" mean from now on (a window with only a label).
"Thursday" is the next Thursday on or after today, "next Thursday" the next
one strictly after today. Bare hours 1-6 mean pm, 7-11 am, 12 noon;
"after 3" sets time_from 15:00, "before 10" time_to 10:00, "at 2" /
"around 2" time_from 14:00, "between 2 and 4" both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from ..domain import Region, TimeWindow
from .calendar_phrases import DayMention, find_days
from .clock_times import ClockTime, _read
from .spoken_numbers import NUMBER_WORDS, TEENS, UNITS
from .normalise import CallerText
from .questions import Question
from .refused_days import refused_days, refused_here, refused_mentions
from .signals import EITHER_AS_ANY, WordPattern
from .yes_no import TAKE_BACK_WORDS, takes_back

_SOONEST = WordPattern(
    r"\b(?:soonest|as soon as (?:possible|you can|i can|you have)|asap|a s a p|earliest|first available|"
    r"next available|any ?time|whenever|as early as possible|whatever is (?:first|soonest|earliest|available|free|"
    r"next)|whatever you have|first (?:opening|spot|slot|appointment|time) (?:available|you have)|"
    r"the first (?:one|slot|time|appointment|spot) (?:you have|available|going)|right away|straight away|"
    r"first thing (?:available|you have)|next (?:opening|spot|slot|appointment|time) (?:available|you have)|"
    r"(?:the )?sooner the better|sooner rather than later|soon as (?:possible|you can|i can|you have)|as early as you can|earliest possible|"
    r"(?:first|next|earliest) (?:one|thing|appointment|time|slot) (?:you can|going|possible))\b")
_FLEXIBLE = re.compile(
    r"\b(?:do not mind|does not matter|no preference|not fussed|any day|i am easy|i am flexible|flexible|"
    + EITHER_AS_ANY + r"|whatever suits|whatever works|doesn't matter|anything is fine|anything works)\b")

# asked when to come in, "soon" alone ("something soon", "whatever's soon") asks for the soonest; not when
# the caller says it is too soon or not soon
_SOON_WHEN_ASKED = re.compile(r"\b(?<!not )(?<!too )soon(?:ish)?\b(?! enough)")

_PARTS = {
    "morning": (None, time(12)), "mornings": (None, time(12)),
    "afternoon": (time(12), time(17)), "afternoons": (time(12), time(17)),
    "arvo": (time(12), time(17)),
    "evening": (time(17), None), "evenings": (time(17), None),
    "lunchtime": (time(12), time(14)),
}
_MODIFIED = {
    ("early", "morning"): (None, time(10)), ("late", "morning"): (time(10), time(12)),
    ("early", "afternoon"): (time(12), time(15)), ("late", "afternoon"): (time(15), time(17)),
    ("mid", "morning"): (time(9), time(11)), ("mid", "afternoon"): (time(13), time(16)),
    ("early", "evening"): (time(17), time(19)),
}
_PART_WORDS = frozenset({*_PARTS, "night", "lunch", "first"})
_PART_NAME = {"mornings": "morning", "afternoons": "afternoon", "arvo": "afternoon", "evenings": "evening"}

_FROM_WORDS = frozenset({"after", "from", "past", "later"})
_TO_WORDS = frozenset({"before", "by", "until", "till", "til", "earlier"})
_AT_WORDS = frozenset({"at", "around", "about", "approximately", "approx", "say", "near", "maybe", "ish"})
_ANCHORED = {("after", "lunch"): ("from", time(13)), ("before", "lunch"): ("to", time(12)),
             ("after", "work"): ("from", time(17)), ("after", "school"): ("from", time(15)),
             ("before", "work"): ("to", time(9)), ("after", "hours"): ("from", time(17))}


_DURATION_WORDS = frozenset({"minutes", "minute", "mins", "min", "hours", "hour", "hrs", "days", "day", "weeks",
                             "week", "people", "of", "times", "years", "months"})
_TIME_WORDS = frozenset({"between", "no", "not", "half", "quarter", "noon", "midday", "midnight", *_FROM_WORDS,
                         *_TO_WORDS, *_AT_WORDS, *(w for w, _ in _ANCHORED), "one", "two", "three", "four", "five",
                         "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "twenty"})


# Every time `_times` reads has a clock in it (`clock_times._read` starts only at
# one of these words or a digit), or is anchored ("after lunch", "before work").
_CLOCK_OR_ANCHOR = frozenset({"noon", "midday", "midnight", "half", "quarter", "twenty", *UNITS, *TEENS,
                              *(w for _, w in _ANCHORED)})


@dataclass
class _Times:
    time_from: time | None = None
    time_to: time | None = None
    label: str = ""
    own_day: bool = False   # the bound is of the caller's own day ("I'm in work till six"), not a time asked for


_SKIP_BEFORE = frozenset({"on", "the", "this", "in", "a"})


def _negated(ct: CallerText, start: int) -> bool:
    """"not Thursday", "except Friday", "anything but Monday", "no mornings"."""
    clause_start = ct.clause_of(start)[0]
    k = start - 1
    while k >= clause_start and ct.tokens[k] in _SKIP_BEFORE:
        k -= 1
    if k < clause_start:
        return False
    if ct.tokens[k] in ("not", "except", "no", "excluding"):
        return True
    return ct.tokens[k] == "but" and k > clause_start and ct.tokens[k - 1] in ("anything", "anytime", "any", "day")


def _one_day(day: DayMention) -> bool:
    return (day.end - day.first).days == 1


# what may come between a weekday and the date that says which one ("Tuesday afternoon, that's the first")
# ... and "the Monday after then, the eighteenth": the date says which Monday
_BETWEEN_DAY_AND_DATE = frozenset({"morning", "afternoon", "evening", "arvo", "that", "is", "so", "on", "i", "mean",
                                   "um", "er", "uh", "like", "after", "then"})


def _combine_days(ct: CallerText, days: list[DayMention]) -> DayMention | None:
    if not days:
        return None
    first = days[0]
    for nxt in days[1:]:
        between = ct.tokens[first.end_index:nxt.start]
        before = ct.tokens[max(0, first.start - 1):first.start]
        if nxt.first == first.first and nxt.end == first.end:
            first = nxt   # the same day said again ("Thursday? Like next Thursday, the 26th"): read on from there
            continue
        if set(between) <= _BETWEEN_DAY_AND_DATE and _one_day(first) and _one_day(nxt) \
                and nxt.first.weekday() == first.first.weekday():
            first = nxt   # "Thursday the 23rd", "Tuesday afternoon? The first?": the date says which of its weekday
            continue
        if between in (("to",), ("until",), ("till",), ("through",), ("thru",)) or \
                (between == ("and",) and before in (("between",), ("from",))):
            if nxt.end > first.first:
                label = f"{first.label} to {nxt.label}"
                return DayMention(first.first, max(first.end, nxt.end), label, first.start, nxt.end_index)
        if between in (("or",), ("and",), ("or", "maybe")) and nxt.first == first.end:
            return DayMention(first.first, nxt.end, f"{first.label} or {nxt.label}", first.start, nxt.end_index,
                              first.part or nxt.part)
        break
    return first


# what happened to the caller, said before the day it happened on ("I was playing football on Saturday", "I hurt
# it on Monday", "I saw her on Tuesday", "it's been clicking since Saturday", "she's been on at me all weekend",
# "I woke up Sunday with it"): a day gone by, told of, never the day wanted
_PAST_BEFORE = re.compile(
    r"\b(?:went|did|hurt|injured|fell|happened|played|twisted|sprained|pulled|broke|saw|started|began|came|woke|"
    r"snapped|cracked|chipped|dropped|lost|knocked|bumped|slipped|tripped|rolled|burnt|burned|banged|noticed|"
    r"stepped|landed|crashed|collapsed|strained|tore|ripped|threw|tweaked|wrenched|cricked|stubbed|jarred|lifted|"
    # "I've done my knee", "I done my ankle in": not "I'll be done", "get it done"
    r"(?<!be )(?<!it )(?<!them )(?<!that )(?<!this )done|"
    r"it was|was (?:up|out|away|down|over|off|in) (?:at|in|on|to|with)|"
    r"had|got hurt|been|since|was (?:out |just |up |off |down |away |over )?(?!hoping|wondering|thinking|looking|"
    r"calling|ringing|going|trying|after|told|asked|meant|supposed|wanting)\w+ing|"
    r"were (?!hoping|wondering|thinking|looking|calling|ringing|going|trying)\w+ing)\b")
# how a complaint shows itself, said before a time of day ("it aches in the mornings", "stiff every evening",
# "it wakes me at night"): when it hurts, not when the caller can come
_SYMPTOM_BEFORE = re.compile(
    r"\b(?:aches?|aching|ached|hurts|hurting|sore|stiff|stiffer|stiffness|killing|throbbing|throbs|swollen|swells|"
    r"swelling|worse|flares?|flared|flaring|wakes?|waking|keeps|headaches?|migraines?|dizzy|pains?)\b")


def _told_of_as_past(ct: CallerText, day: DayMention) -> bool:
    """Whether the day is said in a clause that tells of something that happened (`_PAST_BEFORE` before it)."""
    if day.start >= 1 and ct.tokens[day.start - 1] == "all" and ct.tokens[day.start - 2:day.start - 1] != ("at",) \
            and day.start not in ct.clause_starts:
        return True   # "all weekend", "all week": how long something went on (not "I'm on Tuesday an' all. Wednesday")
    return _PAST_BEFORE.search(_told_before(ct, day.start)) is not None


_REPORTED = frozenset({"said", "says", "told", "wants", "wanted", "advised", "recommended", "asked"})


# an age reached, or a birthday, on the day said: "I'm seventy-five today", "she turns five tomorrow", "it's my
# birthday on Friday"
_BIRTHDAY_BEFORE = re.compile(r"\b(?:(?:i am|he is|she is|he will be|she will be|i will be|turning|turns|turn) "
                              r"(?:\w+ ){1,2}|birthday (?:is |on )?)$")


def _a_birthday(ct: CallerText, day: DayMention) -> bool:
    """Whether the day is said as the day someone reaches an age or has a birthday: told of, not wanted."""
    m = _BIRTHDAY_BEFORE.search(" ".join(ct.tokens[ct.clause_of(day.start)[0]:day.start]) + " ")
    if m is None:
        return False
    # an age: "seventy five", "5"; not "I'm free today", "I'll be in town tomorrow"
    return "birthday" in m.group(0) or any(tok[:1].isdigit() or tok in NUMBER_WORDS
                                           for tok in ct.tokens[max(0, day.start - 2):day.start])


def _period_reported(ct: CallerText, day: DayMention) -> bool:
    """A period from now said as someone's instruction ("she said come back in six weeks"): counted from a visit
    gone by, not from today, so no day the caller asks for."""
    return day.label.startswith("in ") and not _REPORTED.isdisjoint(ct.tokens[ct.clause_of(day.start)[0]:day.start])


def _told_of_as_complaint(ct: CallerText, at: int) -> bool:
    """Whether the time of day at token `at` is said where the caller tells of what happened or how the complaint
    shows itself ("I hurt it this morning", "it's been killing me every morning", "it aches in the evenings")."""
    told = _told_before(ct, at)
    return _PAST_BEFORE.search(told) is not None or _SYMPTOM_BEFORE.search(told) is not None


def _told_before(ct: CallerText, at: int) -> str:
    """The words of the telling that token `at` closes: back to its clause's start or to a word after which a
    caller goes on to something else."""
    start = ct.clause_of(at)[0]
    k = at
    while k > start and ct.tokens[k - 1] not in _TELLING_ENDS:
        k -= 1
    return " ".join(ct.tokens[k:at])


# words after which a caller goes on to something else ("I saw her Tuesday and she said to come back Friday",
# "it's sore can I come in the morning")
_TELLING_ENDS = frozenset({"and", "but", "so", "then", "said", "says", "told", "reckons", "thinks", "wants", "because",
                           "can", "could", "would", "need", "want", "like"})


def _after_a_change_of_mind(ct: CallerText, days: list[DayMention]) -> list[DayMention]:
    """The days said after the caller last took a day back ("Friday... sorry, no, I meant Thursday", "Tuesday,
    hang on, Wednesday", "Thursday, make that Friday": `yes_no.takes_back`), where a day was said before and
    another after: the later day replaces the earlier one (a day said once, with the correction after it, stands).
    A day said with "instead" after it ("let's say Thursday afternoon instead") replaces what was said before, the
    same day at another time of it too; so does a day concluded with "so" ("she's off Friday, so Monday?")."""
    # the day replaced, said after "instead of" or "rather than" ("Friday instead of Thursday"), is not wanted
    days = [d for d in days if ct.tokens[max(0, d.start - 2):d.start] not in (("instead", "of"), ("rather", "than"))]
    for k in range(len(days) - 1, 0, -1):
        if _concluded(ct, days[k]):
            return days[k:]
        if "instead" in ct.tokens[days[k].end_index:days[k].end_index + 2] \
                and ct.tokens[days[k].end_index + 1:days[k].end_index + 3] != ("instead", "of"):
            return days[k:]
    for k in range(len(days) - 1, 0, -1):
        # the later day's first word too: "make that" takes back only with what it is made into
        after = days[k - 1].end_index
        after += after < len(ct.tokens) and ct.tokens[after] in _PARTS   # its time of day is no part of the take-back
        between = ct.tokens[after:days[k].start + 1]
        other = days[k].first != days[k - 1].first or _part_said_with(ct, days[k]) != _part_said_with(ct, days[k - 1])
        if other and (takes_back(between) or _taken_back_within(ct, after, days[k].start)):
            return days[k:]
        # the same day said again in the telling ("Friday? Oh no, hang on, I'm flying back Friday. The Monday
        # after then"): the take-back is between the day's first saying and the other day
        if not other and k + 1 < len(days) and days[k + 1].first != days[k].first \
                and all(d.first == days[k].first for d in days[:k]) \
                and _taken_back_within(ct, days[k - 1].end_index, days[k].start):
            return days[k + 1:]
    return days


def _taken_back_within(ct: CallerText, start: int, end: int) -> bool:
    """Whether a take-back stands on its own among other words between two days ("Tuesday afternoon? Oh wait, no,
    Tuesday's no good, I've got a review. Wednesday"): a take-back word a pause follows ("no, ...", "wait, ..."),
    not one that says what follows ("no mornings")."""
    return any(ct.tokens[k] in TAKE_BACK_WORDS and k + 1 in ct.clause_starts for k in range(start, end))


# what may come between "so" and the day it concludes with ("so maybe Monday", "so could we do Monday")
_ASKING_WORDS = frozenset({"maybe", "perhaps", "um", "er", "uh", "eh", "could", "can", "would", "we", "i", "you",
                           "do", "how", "what", "about", "is", "there", "anything", "on", "say", "let", "us", "then",
                           "the", "come", "in", "shall", "make", "it"})


# words a caller settles on a day with ("let's say Friday", "make it Friday", "go with Friday")
_SETTLING = (("let", "us", "say"), ("let", "us", "do"), ("let", "us", "go", "with"), ("let", "us", "go", "for"),
             ("let", "us", "make", "it"), ("make", "it"), ("go", "with"), ("put", "me", "down", "for"))


_BETTER = (("'s", "better"), ("is", "better"), ("would", "be", "better"), ("'s", "best"), ("is", "best"),
           ("would", "be", "best"), ("works", "better"), ("suits", "better"), ("suits", "me", "better"))


def _concluded(ct: CallerText, day: DayMention) -> bool:
    """Whether the day is what the caller concludes with after telling of another ("she breaks up on Friday, so,
    Monday?", "I'm at work Tuesday so maybe Wednesday") or settles on ("... so Thursday or Friday. Let's say this
    Friday"): it follows "so", with at most asking words between, or words that settle on it."""
    before = ct.tokens[max(0, day.start - 5):day.start]
    if any(before[-len(words):] == words for words in _SETTLING):
        return True
    after = ct.tokens[day.end_index:day.end_index + 4]
    if after[:1] in (("morning",), ("afternoon",), ("evening",)):
        after = after[1:]
    if any(after[:len(words)] == words for words in _BETTER):   # "Thursday or Friday? Friday's better actually"
        return True
    then = day.end_index + (ct.tokens[day.end_index:day.end_index + 1] != after[:1])   # past a time of day said
    if after[:1] == ("then",) and (then + 1 >= len(ct.tokens) or then + 1 in ct.clause_starts):
        return True   # "... I've got five-a-side on Wednesdays. Thursday evening then."
    k = day.start
    while k > 0 and ct.tokens[k - 1] in _ASKING_WORDS and day.start - k < 4:
        k -= 1
    return k > 0 and ct.tokens[k - 1] == "so"


def _greeting(ct: CallerText, k: int, window_asked: bool) -> bool:
    """ "Good morning", or "Morning, I'd like ...": a greeting, not a time the caller wants ("Morning." alone
    answers when they would like to come). Once a day or time has been asked for, "Afternoon, on Thursday" is
    the answer: only "good morning" still greets."""
    if k > 0 and ct.tokens[k - 1] == "good":
        return True
    return not window_asked and (k == 0 or ct.tokens[k - 1] in _HELLO) and k + 1 < len(ct.tokens) and k + 1 in ct.clause_starts


_HELLO = frozenset({"hi", "hello", "hey", "oh", "hiya", "there", "yeah", "well", "um", "erm"})


def _part_of_day(ct: CallerText, excluded, window_asked: bool = False) -> tuple[str | None, time | None, time | None]:
    if ct.words.isdisjoint(_PART_WORDS):
        return None, None, None
    tokens = ct.tokens
    for k, tok in enumerate(tokens):
        if tok not in _PART_WORDS or excluded(k, k + 1):
            continue
        prev = tokens[k - 1] if k > 0 else ""
        if _greeting(ct, k, window_asked):
            continue
        if tok in _PARTS or (tok == "night" and prev in ("at", "tomorrow", "monday", "tuesday", "wednesday",
                                                          "thursday", "friday", "saturday", "sunday")):
            at = k - (1 if prev in ("the", "early", "late", "mid") else 0)
            if _negated(ct, at) or refused_here(ct, at, k + 1):
                continue   # "no mornings", "I can't do mornings", "mornings are no good"
            if _told_of_as_complaint(ct, at):
                continue
            name = _PART_NAME.get(tok, "evening" if tok == "night" else tok)
            if (prev, name) in _MODIFIED:
                lo, hi = _MODIFIED[(prev, name)]
                return f"{prev} {name}", lo, hi
            if tok == "lunchtime":
                return "lunchtime", *_PARTS[tok]
            lo, hi = _PARTS.get(name, (time(17), None))
            return name, lo, hi
        if tok == "lunch" and prev in ("at", "around", "over", "during"):
            return "lunchtime", time(12), time(14)
        if tok == "first" and k + 1 < len(tokens) and tokens[k + 1] == "thing" and \
                not (k + 2 < len(tokens) and tokens[k + 2] in ("available", "you")):
            return "first thing", None, time(10)
    return None, None, None


def _part_said_with_the_day(ct: CallerText, day: DayMention | None,
                            wanted: list[DayMention]) -> tuple[str, time | None, time | None] | None:
    """The part of the day said with the day wanted, where that day was said more than once ("Friday afternoon
    then, this Friday"): the last saying of it that has one."""
    if day is None:
        return None
    sayings = [day, *(d for d in reversed(wanted) if d is not day and (d.first, d.end) == (day.first, day.end))]
    return next((part for d in sayings if (part := _part_said_with(ct, d)) is not None), None)


def _part_said_with(ct: CallerText, day: DayMention | None) -> tuple[str, time | None, time | None] | None:
    """The part of the day said right after the day wanted ("Tuesday afternoon"): it wins over a part said
    elsewhere in the answer, of someone else's day ("he's back at lunchtime ... Tuesday afternoon?")."""
    if day is None or day.end_index >= len(ct.tokens):
        return None
    word = ct.tokens[day.end_index]
    if word not in _PARTS or word == "lunchtime":
        return None
    name = _PART_NAME.get(word, word)
    return (name, *_PARTS[name])


def _clock_at(ct: CallerText, k: int) -> ClockTime | None:
    if k >= len(ct.tokens):
        return None
    return _read(ct.tokens, k)


# the caller's own day, said around a time: "I start work at nine" wants before it, "I finish at five" after it
_STARTS = frozenset({"start", "starts", "starting", "begin", "begins", "beginning"})
_ENDS = frozenset({"finish", "finishes", "finishing", "off", "leave", "done", "free"})


_BUSY = frozenset({"work", "working", "busy", "school", "class", "classes", "shift", "uni", "college", "finish",
                   "finishing", "there", "job"})


def _busy_until(tokens: tuple[str, ...], k: int) -> bool:
    """Whether "till"/"until" at token k ends the caller's own busy time ("I work till noon", "I'm at work until
    five", "I don't finish work till half four")."""
    return not _BUSY.isdisjoint(tokens[max(0, k - 3):k])


def _own_day_at(tokens: tuple[str, ...], k: int) -> str | None:
    """ "I start (work) at nine": before it ("to"); "I finish (work) at five", "I get off at five": after it
    ("from"); None when "at" follows no word of the caller's own day."""
    j = k - 1
    if j >= 0 and tokens[j] in ("work", "school", "uni", "college", "my", "shift"):
        j -= 1 + (j >= 1 and tokens[j - 1] in ("work", "my"))
    word = tokens[j] if j >= 0 else ""
    if word in _STARTS:
        return "to"
    if word in _ENDS:
        return "from"
    return None


def _times(ct: CallerText, part: str | None, excluded) -> _Times:
    tokens = ct.tokens
    n = len(tokens)
    out = _Times()
    if not ct.has_digit and ct.words.isdisjoint(_CLOCK_OR_ANCHOR):
        return out  # no time can be read without a clock word or an anchor ("after lunch")
    k = 0
    used: set[int] = set()
    while k < n:
        tok = tokens[k]
        if tok not in _TIME_WORDS and not tok[:1].isdigit() or excluded(k, k + 1):
            k += 1
            continue
        if _told_of_as_complaint(ct, k):
            k += 1   # "these headaches by about two o'clock every day": when it hurts, not when to come
            continue
        pair = (tok, tokens[k + 1] if k + 1 < n else "")
        if pair in _ANCHORED:
            kind, value = _ANCHORED[pair]
            if kind == "from":
                out.time_from, out.label = value, f"{pair[0]} {pair[1]}"
            else:
                out.time_to, out.label = value, f"{pair[0]} {pair[1]}"
            k += 2
            continue
        # "between 2 and 4"
        if tok == "between":
            a = _clock_at(ct, k + 1)
            if a and a.end < n and tokens[a.end] == "and":
                b = _clock_at(ct, a.end + 1)
                if b:
                    start = a.resolved(part)
                    end_part = part
                    if a.meridiem == "pm" and b.meridiem is None:
                        end_part = "afternoon"
                    end = b.resolved(end_part)
                    if end > start:
                        out.time_from, out.time_to = start, end
                        out.label = f"between {a.label()} and {_label_of(end)}"
                        used.update(range(k, b.end))
                        k = b.end
                        continue
        words = [tok]
        j = k + 1
        if tok == "no" and tokens[k + 1:k + 3] in (("later", "than"), ("earlier", "than")):
            words, j = ["no", tokens[k + 1]], k + 3
        elif tok in ("later", "earlier") and j < n and tokens[j] == "than":
            j += 1
        elif tok == "not" and j < n and tokens[j] in ("before", "after"):
            words, j = ["not", tokens[j]], j + 1
        elif tok in _AT_WORDS and j < n and tokens[j] == "about":
            j += 1
        kind = None
        own_day = None
        head = words[-1]
        if words[0] == "not":
            kind = "to" if head == "after" else "from"
        elif words[0] == "no":
            kind = "to" if head == "later" else "from"
        elif head in _FROM_WORDS:
            kind = "from"
        elif head in _TO_WORDS:
            # "I work till noon", "I don't finish work till half four": the caller is free after it
            kind = "from" if words == [tok] and _busy_until(tokens, k) else "to"
            own_day = kind if kind == "from" else None
        if head in _AT_WORDS:
            own_day = _own_day_at(tokens, k)
            kind = own_day or "at"
        if kind is not None:
            clock = _clock_at(ct, j)
            if clock is not None and clock.end < n and tokens[clock.end] in _DURATION_WORDS:
                clock = None  # "about 10 minutes late"
            if clock is not None and not (head == "by" and not clock.strong and clock.hour > 12):
                # the caller's own day keeps its own half of the day ("I start my shift at 2, so Tuesday morning")
                half = None if own_day else part
                value = clock.resolved(half)
                # two bounds of one kind: the narrower holds ("after five, I don't finish work till half four")
                if kind == "to":
                    if out.time_to is None or value < out.time_to:
                        out.time_to = value
                        out.label = f"before {clock_label(clock, half)}"
                elif out.time_from is None or value > out.time_from or kind == "at":
                    out.time_from = value
                    out.own_day = bool(own_day)
                    word = "after" if kind == "from" else "around"
                    out.label = f"{word} {clock_label(clock, half)}"
                used.update(range(k, clock.end))
                k = clock.end
                continue
        # a time said plainly: "2pm", "two thirty", "10 o'clock"
        if k not in used:
            clock = _clock_at(ct, k)
            if clock is not None and clock.end < n and tokens[clock.end] in _DURATION_WORDS:
                clock = None
            if clock is not None and (clock.strong or _taken_as_a_time(tokens, clock.end)) and not out.label:
                out.time_from = clock.resolved(part)
                out.label = f"around {clock_label(clock, part)}"
                k = clock.end
                continue
        k += 1
    return out


# what says a bare number is a time the caller takes: "six works", "nine's grand", "ten is fine"
_TAKING_AFTER = (("works",), ("work",), ("suits",), ("would", "work"), ("would", "suit"), ("would", "be"),
                 *((verb, word) for verb in ("is", "'s") for word in ("good", "fine", "grand", "great", "perfect", "ok",
                                                                       "okay")),
                 *_BETTER)   # ... and what says one is better ("ten's better")


def _taken_as_a_time(tokens: tuple[str, ...], end: int) -> bool:
    return any(tokens[end:end + len(words)] == words for words in _TAKING_AFTER)


def clock_label(clock: ClockTime, part: str | None) -> str:
    return _label_of(clock.resolved(part))


def _label_of(t: time) -> str:
    if t == time(12):
        return "noon"
    hour12 = t.hour % 12 or 12
    suffix = "am" if t.hour < 12 else "pm"
    return f"{hour12}{suffix}" if t.minute == 0 else f"{hour12}:{t.minute:02d}{suffix}"


def find_window(
    ct: CallerText,
    now: datetime,
    region: Region,
    question: Question,
    excluded_spans: list[tuple[int, int]] = (),
    soonest_allowed: bool = True,
    days: list[DayMention] | None = None,
) -> TimeWindow | None:
    """The caller's time preference, or None when they said none (or the answer is about the person).

    `excluded_spans`: token spans that describe an existing appointment
    ("my appointment tomorrow"), not a preference."""
    if question.personal or not ct.tokens:
        return None

    def excluded(start: int, end: int) -> bool:
        return any(s <= start and end <= e for s, e in excluded_spans)

    found = find_days(ct.tokens, now, region) if days is None else days
    said = [d for d in found if not excluded(d.start, d.end_index) and not _told_of_as_past(ct, d)
            and not _period_reported(ct, d) and not _a_birthday(ct, d)]
    # a day refused anywhere in the answer is not wanted where it was said before ("Tuesday after- wait, not
    # Tuesday, Wednesday"); where it is refused for one time of it and asked for again, the time refused with it
    # ("her assembly Thursday morning") is no part of the window
    refused = {d.first for d in said if _negated(ct, d.start)} | set(refused_days(ct, said))
    for day, no in zip(said, refused_mentions(ct, said)):
        if no and day.first not in refused:
            after = day.end_index + (day.end_index < len(ct.tokens) and ct.tokens[day.end_index] in _PARTS)
            excluded_spans = [*excluded_spans, (day.start, after)]
            said = [d for d in said if d is not day]
    wanted = _after_a_change_of_mind(ct, [d for d in said if d.first not in refused])
    day = _combine_days(ct, wanted)
    part, lo, hi = _part_said_with_the_day(ct, day, wanted) or _part_of_day(ct, excluded, question.wants("window"))
    if part is None and day is not None and day.part is not None:
        part = day.part
        lo, hi = _PARTS[part]
    times = _times(ct, part, excluded)

    time_from, time_to = lo, hi
    if times.time_from is not None:
        time_from = times.time_from if time_from is None else max(time_from, times.time_from)
    if times.time_to is not None:
        time_to = times.time_to if time_to is None else min(time_to, times.time_to)
    if time_from is not None and time_to is not None and time_from >= time_to:
        if times.own_day and part is not None:
            # the end of the caller's own busy time, past the part of day asked for outright ("I can't do today,
            # I'm in work till six. Anything tomorrow morning?"): that busy time was of another day
            time_from, time_to = lo, hi
            times = _Times()
        else:
            time_from, time_to = times.time_from, times.time_to  # the explicit time wins over the part of day
            part = None

    if day is None and part is None and not times.label:
        text = ct.text
        if soonest_allowed and (_SOONEST.search_in(ct) or (question.wants("window") and (_FLEXIBLE.search(text) or _SOON_WHEN_ASKED.search(text)))):
            return TimeWindow(label="soonest")
        return None

    start = end = None
    if day is not None:
        start = datetime.combine(day.first, time(0))
        end = datetime.combine(day.end, time(0))
    return TimeWindow(label=_label(day, part, times.label, now), start=start, end=end,
                      time_from=time_from, time_to=time_to)


def _label(day: DayMention | None, part: str | None, time_label: str, now: datetime) -> str:
    pieces: list[str] = []
    if day is not None and part is not None and day.first == now.date() and day.end == day.first + timedelta(days=1):
        pieces.append("tonight" if part == "evening" and day.part == "evening" else f"this {part}")
    else:
        if day is not None:
            pieces.append(day.label)
        if part is not None:
            pieces.append(part)
    if time_label:
        pieces.append(time_label)
    return " ".join(pieces)
