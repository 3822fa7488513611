"""What a caller says to single out one thing from a short list read to
them: a position ("the first one", "the later one"), a time ("the 12:15",
"eight"), a day ("the Thursday one", "tomorrow"), a practitioner or place
("the one with Dr Roe"), a part of the day ("the morning one"). Slot picks and
booking picks both read these, then filter their own list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time

from ..domain import Region
from .calendar_phrases import DayMention, find_days
from .refused_days import refused_here
from .catalog_match import CatalogFindings
from .clock_times import ClockTime, find_times
from .normalise import CallerText
from .signals import EITHER_AS_ANY

# an ordinal after "a" or an owner names a kind of visit, never a position among the times offered ("how much is
# a first ...?", "my second one"): a position is "the first", or "first" alone
_NO_POSITION_BEFORE = r"(?<!\ba )(?<!\bmy )(?<!\byour )(?<!\bour )(?<!\bhis )(?<!\bher )(?<!\btheir )"
_POSITIONS = (
    (re.compile(_NO_POSITION_BEFORE + r"\b(?:first|1st|number one|option one|option 1|number 1)\b(?! (?:of|thing|"
                r"time i|available|name|names|visit|time)\b)"), "first"),
    (re.compile(r"\bthe next (?:one|appointment|booking|session|visit)\b|^next one\b"), "earliest"),
    (re.compile(_NO_POSITION_BEFORE + r"\b(?:second|2nd|number two|option two|option 2|number 2)\b(?<!one second)"
                r"(?! of\b)"), "second"),
    (re.compile(_NO_POSITION_BEFORE + r"\b(?:third|3rd|number three|option three|option 3|number 3)\b(?! of\b)"),
     "third"),
    (re.compile(r"\b(?:last|final|latter)\b(?! (?:name|names|week|time|month|year|night|session|visit)\b)"),
     "last"),
    (re.compile(r"\bthe (?:earlier|earliest|sooner|soonest|early|former)\b|\b(?:earlier|earliest|sooner|early) "
                r"(?:one|time|slot|option)\b|^(?:earliest|soonest)\b"), "earliest"),
    (re.compile(r"\bthe (?:later|latest|late)\b(?! than\b)|\b(?:later|latest|late) (?:one|time|slot|option)\b|"
                r"^latest\b"), "latest"),
)
_LONE_POSITIONS = {"1": "first", "2": "second", "3": "third"}
_ORDINAL_POSITIONS = frozenset({"first", "1st", "second", "2nd", "third", "3rd"})
_NOT_POSITION = re.compile(r"\bnot (?:the )?(first|second|third|last|earlier|later|earliest|latest)\b")
_ANY = re.compile(r"\b(?:" + EITHER_AS_ANY + r"|whichever|which ever|any of (?:them|those|these)|any one|anyone is fine|"
                  r"do not mind|does not matter|no preference|not fussed|both (?:are|is|would be|sound) "
                  r"(?:fine|good|ok|great)|whatever|i am easy|you choose|you pick|dealer's choice)\b")
# "I can't do Friday either", "that doesn't work either": the other one is no good too
_NOT_EITHER = re.compile(r"\b(?:not|no good|none of \w+)(?: \w+){0,4} either\b")
_NONE = re.compile(r"\b(?:neither|none of (?:them|those|these|the)|no not those)\b")
# "the quarter past", "the half past one" (one: the slot, no hour): a minute with the hour left unsaid
_MINUTE_ONLY = re.compile(r"\b(quarter past|half past|quarter to)\b(?= one$| one (?:please|thanks|thank you|is|would|"
                          r"will|suits|works|sounds)\b| please\b| thanks\b| thank you\b| would\b| will\b| suits\b| "
                          r"works\b| sounds\b| is\b|$)")
_MINUTES = {"quarter past": 15, "half past": 30, "quarter to": 45}
_PART_WORDS = {"morning": (time(0), time(12)), "afternoon": (time(12), time(17)), "evening": (time(17), time(23, 59)),
               "arvo": (time(12), time(17))}
_RANGE_WORDS = frozenset({"after", "before", "from", "until", "till", "by", "past", "later", "earlier", "than"})
# "the eight thirty one" heard as "the date 31": at a pick among read-out times, "date" before a number is eight
_EIGHT_HEARD = frozenset({"date", "ate"})
_ECHO_MAX_TOKENS = 5    # digits are read this way only from a short answer, never out of a sentence
_WEEKDAY_NAMES = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})
_NOT_TIME_AFTER = frozenset({"of", "minutes", "mins", "hours", "weeks", "days", "people", "appointments", "times",
                             "ones", "options", "slots"})


@dataclass(frozen=True)
class Constraints:
    position: str | None = None          # first, second, third, last, earliest, latest
    not_position: str | None = None      # "not the first one"
    times: tuple[ClockTime, ...] = ()
    days: tuple[tuple[date, date], ...] = ()   # [first, end) ranges
    weekdays: tuple[int, ...] = ()             # a weekday said alone ("the one on Thursday"), Monday = 0
    practitioner_id: str | None = None
    location_id: str | None = None
    service_ids: tuple[str, ...] = ()
    part: tuple[time, time] | None = None
    any_is_fine: bool = False
    none_of_them: bool = False
    lone_number: str | None = None       # "1" said alone: a time if one fits, else that position ("first")
    digits: str = ""                     # a short answer's digits run together: "V831", "8, 31" -> "831"
    minute: int | None = None            # "the quarter past": the minute past the hour, the hour left unsaid
    refused: tuple[time, ...] = ()       # times turned down ("nine's kinda early")
    the_other: bool = False              # "I'll take the other one": the one not turned down

    @property
    def empty(self) -> bool:
        return (self.position is None and self.not_position is None and not self.times and not self.days
                and self.practitioner_id is None and self.location_id is None and not self.service_ids
                and self.part is None and self.minute is None)


# a time turned down in the breath after it is said ("half twelve? Oh, that's a bit early for the bus")
_TURNED_DOWN_NEXT = re.compile(r"^(?:(?:oh|um|uh|hmm|ah|no|nah|actually|well) )*(?:that is|that would be|it is|"
                               r"that will be|that one is)(?: \w+)? (?:a bit|a little|a wee bit|too|way too|far too|"
                               r"kind of|kinda|sort of|rather|pretty|quite) (?:early|late|tight|soon|close|fine)\b")
_THE_OTHER = re.compile(r"\bthe other(?: one| time| slot)?\b")


def _refused_in_the_next_breath(ct: CallerText, end: int) -> bool:
    if end >= len(ct.tokens) or end not in ct.clause_starts:
        return False
    return _TURNED_DOWN_NEXT.match(" ".join(ct.tokens[end:end + 10])) is not None


def _day_of_month(tokens: tuple[str, ...], s: int) -> bool:
    """An ordinal after "on" ("the one on the 1st", "on the second") names a day of the month, not a position."""
    return (s > 0 and tokens[s - 1] == "on") or (s > 1 and tokens[s - 2] == "on" and tokens[s - 1] == "the")


def read_constraints(
    ct: CallerText,
    now: datetime,
    region: Region,
    findings: CatalogFindings,
    inside=None,
    days: list[DayMention] | None = None,
    times: list[ClockTime] | None = None,
) -> Constraints:
    """`inside(start, end)`: whether a token span counts (default: all).
    `days`/`times`: the utterance's days and times when already found."""
    text = ct.text
    tokens = ct.tokens

    def ok(start: int, end: int) -> bool:
        return inside is None or inside(start, end)

    # the position said first ("the later one, I've got the school run first"): a later one is in what follows
    said_positions: list[tuple[int, str]] = []
    for pattern, name in _POSITIONS:
        for m in pattern.finditer(text):
            s, e = ct.span(m.start(), m.end())
            if ok(s, e) and not (s > 0 and tokens[s - 1] == "not") and not \
                    (s > 1 and tokens[s - 2] == "not" and tokens[s - 1] == "the") and not _day_of_month(tokens, s):
                said_positions.append((s, name))
                break
    position = min(said_positions)[1] if said_positions else None
    m = _NOT_POSITION.search(text)
    not_position = m.group(1) if m else None

    picked_times: list[ClockTime] = []
    clocks = find_times(tokens) if times is None else times
    # a time refused anywhere in the answer is not picked where it is said again ("twelve's too tight, he's only
    # back at twelve, the quarter past would work")
    refused_times = {clock.resolved() for clock in clocks
                     if refused_here(ct, clock.start, clock.end) or _refused_in_the_next_breath(ct, clock.end)}
    for clock in clocks:
        if clock.resolved() in refused_times:
            continue
        if not ok(clock.start, clock.end):
            continue
        if tokens[clock.start] in ("1", "one") and clock.start > 0 and tokens[clock.start - 1] in _ORDINAL_POSITIONS:
            continue  # "2nd, 1" is speech-to-text's "second one"; "second one, 12" is no 1:12
        before = tokens[clock.start - 1] if clock.start > 0 else ""
        after = tokens[clock.end] if clock.end < len(tokens) else ""
        if before in _RANGE_WORDS or after in _NOT_TIME_AFTER:
            continue
        picked_times.append(clock)

    found_days = find_days(tokens, now, region) if days is None else days
    # a lone "2nd" or "the second" picks the second of the slots offered, not the 2nd of the month
    found_days = [d for d in found_days if not refused_here(ct, d.start, d.end_index)]   # "I can't do Friday"
    day_ranges = tuple((d.first, d.end) for d in found_days if ok(d.start, d.end_index)
                       and not (position and tokens[d.end_index - 1] in _ORDINAL_POSITIONS
                                and d.end_index - d.start <= 2))
    weekdays = tuple(d.first.weekday() for d in found_days if ok(d.start, d.end_index)
                     and (d.end - d.first).days == 1 and d.label.lower() in _WEEKDAY_NAMES)
    part = None
    for k, tok in enumerate(tokens):
        if tok in _PART_WORDS and ok(k, k + 1):
            part = _PART_WORDS[tok]
            break

    def first_of(kind: str) -> str | None:
        for m in findings.mentions:
            if m.kind == kind and not m.negated and ok(m.start, m.end):
                return m.id
        return None

    services = tuple(dict.fromkeys(m.id for m in findings.mentions
                                   if m.kind == "service" and not m.negated and ok(m.start, m.end)))
    lone = tokens[0] if len(tokens) == 1 and tokens[0] in _LONE_POSITIONS else None
    minute_only = next((m for m in _MINUTE_ONLY.finditer(text) if ok(*ct.span(m.start(), m.end()))), None)
    return Constraints(
        lone_number=_LONE_POSITIONS.get(lone) if lone else None,
        digits=said_digits(tokens),
        position=position,
        not_position=not_position,
        times=tuple(picked_times),
        days=day_ranges,
        weekdays=weekdays,
        practitioner_id=first_of("practitioner"),
        location_id=first_of("location"),
        service_ids=services,
        part=part,
        any_is_fine=_ANY.search(text) is not None and not _NOT_EITHER.search(text),
        none_of_them=_NONE.search(text) is not None,
        refused=tuple(sorted(refused_times)),
        the_other=_THE_OTHER.search(text) is not None,
        minute=_MINUTES[minute_only.group(1)] if minute_only and not picked_times else None,
    )


def said_digits(tokens: tuple[str, ...]) -> str:
    """The digits of a short answer run together, as speech-to-text may have written a time said with "one"
    after it: "V831", "8.31", "8, 31" and "the date 31" are all "831"; "the 1245-1" is "12451"."""
    if len(tokens) > _ECHO_MAX_TOKENS:
        return ""
    digits: list[str] = []
    for k, tok in enumerate(tokens):
        if tok in _EIGHT_HEARD and k + 1 < len(tokens) and tokens[k + 1][:1].isdigit():
            digits.append("8")
        digits.append("".join(ch for ch in tok if ch.isdigit()))
    return "".join(digits)


def filter_by(
    c: Constraints,
    starts: list[datetime],
    practitioners: list[str],
    locations: list[str],
    services: list[str],
) -> list[int] | None:
    """Indexes (in list order) that fit every constraint that was said;
    None when a constraint fits none of them (the caller meant something else)."""
    keep = list(range(len(starts)))

    def narrow(pred) -> bool:
        nonlocal keep
        narrowed = [i for i in keep if pred(i)]
        if not narrowed:
            return False
        keep = narrowed
        return True

    # "12, the second one" with 12:45 and 1 pm offered: a bare number beside a position is
    # speech-to-text noise, not a choice, when the position says otherwise; the read-back
    # of the slot picked still lets the caller say no
    position_rules = bool(c.position) and all(not t.strong for t in c.times)
    if c.times and not (position_rules and _number_overrules_position(c, keep, starts)):
        if not narrow(lambda i: any(t.matches(starts[i].time()) for t in c.times)) and not position_rules:
            return None
        # "eight" fits 8:00 and 20:00: a clinic means the usual reading (8am)
        narrow(lambda i: any(starts[i].time() == t.resolved() for t in c.times))
    if c.days and not narrow(lambda i: any(a <= starts[i].date() < b for a, b in c.days)):
        # "the one on Thursday" picks among what was read out: the Thursday listed, not only the next one
        if not (c.weekdays and narrow(lambda i: starts[i].weekday() in c.weekdays)):
            return None
    if c.practitioner_id and not narrow(lambda i: practitioners[i] == c.practitioner_id):
        return None
    if c.location_id and not narrow(lambda i: locations[i] == c.location_id):
        return None
    if c.service_ids and not narrow(lambda i: services[i] in c.service_ids):
        return None
    if c.part and not narrow(lambda i: c.part[0] <= starts[i].time() < c.part[1]):
        return None
    if c.minute is not None and not narrow(lambda i: starts[i].minute == c.minute):
        return None
    if c.not_position:
        excluded = _apply_position(c.not_position, keep, starts)
        if excluded is not None and len(keep) > 1:
            keep = [i for i in keep if i != excluded]
    return keep


def _number_overrules_position(c: Constraints, keep: list[int], starts: list[datetime]) -> bool:
    """Whether narrowing by the said numbers would leave no slot at the said position."""
    narrowed = [i for i in keep if any(t.matches(starts[i].time()) for t in c.times)]
    return bool(narrowed) and _apply_position(c.position, narrowed, starts) is None


def _apply_position(position: str, keep: list[int], starts: list[datetime]) -> int | None:
    if not keep:
        return None
    if position == "first":
        return keep[0]
    if position == "second":
        return keep[1] if len(keep) >= 2 else None
    if position == "third":
        return keep[2] if len(keep) >= 3 else None
    if position == "last":
        return keep[-1] if len(keep) >= 2 else None
    if position == "earliest":
        return min(keep, key=lambda i: (starts[i], i))
    if position == "latest":
        return max(keep, key=lambda i: (starts[i], -i)) if len(keep) >= 2 else None
    return None


def apply_position(c: Constraints, keep: list[int], starts: list[datetime]) -> int | None:
    return _apply_position(c.position, keep, starts) if c.position else None
