"""Calendar dates and days as callers say them.

`find_dates` reads day-month(-year) dates in any common spoken or written form
("fourth of March eighty five", "June 2nd, 1979", "11/30/1972", "the 26th").
`find_days` reads the days a caller means relative to now ("tomorrow",
"next Thursday", "this week", "the 26th"), each as a range of whole days.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from ..domain import Region
from .spoken_numbers import day_ordinal, small_number, year

MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December")
WEEKDAYS = {
    "monday": 0, "mondays": 0, "tuesday": 1, "tuesdays": 1, "tues": 1, "wednesday": 2,
    "wednesdays": 2, "weds": 2, "thursday": 3, "thursdays": 3, "thurs": 3, "friday": 4,
    "fridays": 4, "saturday": 5, "saturdays": 5, "sunday": 6, "sundays": 6,
}
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

_ISO = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_NUMERIC3 = re.compile(r"^(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{2}|\d{4})$")
_NUMERIC2 = re.compile(r"^(\d{1,2})/(\d{1,2})$")
_DIGIT_ORDINAL = re.compile(r"^\d{1,2}(?:st|nd|rd|th)$")
_NOT_A_DAY_AFTER = frozenset({"one", "ones", "option", "choice", "slot", "time", "appointment", "thing", "name",
                              "visit", "session", "booking", "available", "person", "practitioner", "doctor"})


@dataclass(frozen=True)
class DateMention:
    day: int
    month: int | None        # None: "the 26th" (a day of some month)
    year: int | None
    two_digit_year: bool
    start: int               # token span
    end: int


@dataclass(frozen=True)
class DayMention:
    first: date              # first day meant
    end: date                # day after the last day meant
    label: str
    start: int               # token span
    end_index: int
    part: str | None = None  # "morning" etc. when the words said it ("tonight", "this afternoon")


def day_first(region: Region) -> bool:
    """Numeric dates: the region table says which countries write the month first."""
    return region.day_first


def day_and_month(a: int, b: int, region: Region) -> tuple[int, int] | None:
    """(day, month) from a numeric pair, taking whichever order is unambiguous,
    else the region's."""
    if a > 12 and b <= 12:
        return a, b
    if b > 12 and a <= 12:
        return b, a
    if a > 12 or b > 12:
        return None
    return (a, b) if day_first(region) else (b, a)


def find_dates(tokens: tuple[str, ...], region: Region, dob: bool = False) -> list[DateMention]:
    """Every calendar date in the tokens. With `dob`, two-digit years are read
    ("eighty five") and "the fourth of the third" counts; without it only
    full years are taken, so "the 26th at two" keeps its "two"."""
    found: list[DateMention] = []
    i = 0
    n = len(tokens)
    while i < n:
        mention = _date_at(tokens, i, region, dob)
        if mention is not None:
            found.append(mention)
            i = mention.end
        else:
            i += 1
    return found


def _year_after(tokens: tuple[str, ...], k: int, dob: bool) -> tuple[int | None, bool, int]:
    j = k + 1 if k < len(tokens) and tokens[k] in ("of", "in") and dob else k
    got = year(tokens, j, two_digit=dob)
    if got is None:
        return None, False, k
    return got


def _date_at(tokens: tuple[str, ...], i: int, region: Region, dob: bool) -> DateMention | None:
    tok = tokens[i]
    m = _ISO.match(tok)
    if m:
        return DateMention(int(m.group(3)), int(m.group(2)), int(m.group(1)), False, i, i + 1)
    m = _NUMERIC3.match(tok)
    if m:
        pair = day_and_month(int(m.group(1)), int(m.group(2)), region)
        if pair is None:
            return None
        y = m.group(3)
        return DateMention(pair[0], pair[1], int(y), len(y) == 2, i, i + 1)
    m = _NUMERIC2.match(tok)
    if m:
        pair = day_and_month(int(m.group(1)), int(m.group(2)), region)
        if pair is None:
            return None
        return DateMention(pair[0], pair[1], None, False, i, i + 1)
    # MONTH [the] DAY [YEAR]: "march fourth nineteen eighty five", "june 2nd 1979"
    if tok in MONTHS:
        j = i + 1
        if j < len(tokens) and tokens[j] == "the":
            j += 1
        day = day_ordinal(tokens, j, allow_cardinal=True)
        if day is None:
            return None
        y, short, k = _year_after(tokens, day[1], dob)
        return DateMention(day[0], MONTHS[tok], y, short, i, k)
    # [the] DAY [of] MONTH [YEAR]: "fourth of march eighty five", "2 june 79"
    j = i + 1 if tok == "the" else i
    day = day_ordinal(tokens, j, allow_cardinal=True)
    if day is None:
        return None
    value, k = day
    ordinal = day_ordinal(tokens, j)
    ordinal_said = ordinal is not None and ordinal[1] == k
    m_at = k + 1 if k < len(tokens) and tokens[k] == "of" else k
    if dob and ordinal_said and m_at < len(tokens) and (tokens[m_at] == "the" or m_at > k):
        # "the fourth of the third eighty five", or written without its second "the": "4th of 3rd 85"
        month_ord = day_ordinal(tokens, m_at + 1 if tokens[m_at] == "the" else m_at)
        if month_ord and month_ord[0] <= 12:
            y, short, end = _year_after(tokens, month_ord[1], dob)
            if y is not None:
                return DateMention(value, month_ord[0], y, short, i, end)
    if m_at < len(tokens) and tokens[m_at] in MONTHS:
        y, short, end = _year_after(tokens, m_at + 1, dob)
        return DateMention(value, MONTHS[tokens[m_at]], y, short, i, end)
    if not ordinal_said:
        return None
    # A day of the month on its own: "the 26th", "on the fourth".
    if k < len(tokens) and tokens[k] in _NOT_A_DAY_AFTER:
        return None
    if _DIGIT_ORDINAL.match(tokens[j]):
        return DateMention(value, None, None, False, i, k)
    if tok != "the":
        return None
    before = tokens[i - 1] if i > 0 else ""
    if value <= 3 and before not in ("on", "for", "from", "until", "till", "by", "after", "before"):
        return None  # "the first", "the second": a pick, not a date
    return DateMention(value, None, None, False, i, k)


def valid_date(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def resolve_future(mention: DateMention, today: date) -> date | None:
    """The date a caller means by a day/month with no year (or with one): the
    next such date on or after today."""
    if mention.month is None:
        y, m = today.year, today.month
        for _ in range(13):
            found = valid_date(y, m, mention.day)
            if found is not None and found >= today:
                return found
            y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        return None
    if mention.year is not None and not mention.two_digit_year:
        return valid_date(mention.year, mention.month, mention.day)
    if mention.two_digit_year and mention.year is not None:
        return valid_date(2000 + mention.year, mention.month, mention.day)
    for y in (today.year, today.year + 1, today.year + 2):
        found = valid_date(y, mention.month, mention.day)
        if found is not None and found >= today:
            return found
    return None


def date_label(day: date, today: date) -> str:
    if day == today:
        return "today"
    if day == today + timedelta(days=1):
        return "tomorrow"
    return f"{WEEKDAY_NAMES[day.weekday()]} {day.day} {MONTH_NAMES[day.month - 1]}"


# ---------------------------------------------------------------- relative days

_N_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "couple": 2, "few": 3}


def find_days(tokens: tuple[str, ...], now: datetime, region: Region) -> list[DayMention]:
    """Every day or run of days the tokens name, resolved against `now`."""
    today = now.date()
    found: list[DayMention] = []
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if tok not in _DAY_TRIGGERS and not tok[:1].isdigit():
            i += 1  # no day phrase starts here (`_day_at` would say None)
            continue
        mention = _day_at(tokens, i, today, region)
        if mention is not None:
            found.append(mention)
            i = mention.end_index
        else:
            i += 1
    return _the_one_after(tokens, _weeks_from(tokens, _weekday_in_week(tokens, found)))


_ONE_AFTER = (("the", "one", "after"), ("the", "following", "one"), ("the", "week", "after"),
              ("the", "one", "after", "that"))


def _the_one_after(tokens: tuple[str, ...], found: list[DayMention]) -> list[DayMention]:
    """"Not this Wednesday, the one after", "Friday? The following one": the same weekday a week later, said
    soon after a weekday, as a day mention of its own."""
    out = list(found)
    for mention in found:
        if (mention.end - mention.first).days != 1:
            continue
        for k in range(mention.end_index, min(len(tokens), mention.end_index + 4)):
            words = next((w for w in _ONE_AFTER if tokens[k:k + len(w)] == w), None)
            if words is not None:
                if any(other.start <= k < other.end_index for other in found):
                    break
                day = mention.first + timedelta(days=7)
                out.append(DayMention(day, day + timedelta(days=1), f"the {WEEKDAY_NAMES[day.weekday()]} after",
                                      k, k + len(words), mention.part))
                break
    return sorted(out, key=lambda m: m.start)


_JOINING = frozenset({"of", "on", "in", "the", "morning", "afternoon", "evening", "arvo", "'s", "is", "fine", "good",
                      "ok", "okay", "great"})


def _weekday_in_week(tokens: tuple[str, ...], found: list[DayMention]) -> list[DayMention]:
    """"Monday next week", "next week on Monday", "Monday of the week after": the weekday in that week, as one
    mention, rather than the coming Monday and a whole week."""
    out: list[DayMention] = []
    k = 0
    while k < len(found):
        one = found[k]
        two = found[k + 1] if k + 1 < len(found) else None
        if two is not None and set(tokens[one.end_index:two.start]) <= _JOINING:
            day, week = (one, two) if _is_weekday(one) and _is_week(two) else (two, one) \
                if _is_weekday(two) and _is_week(one) else (None, None)
            if day is not None:
                target = week.first + timedelta(days=(day.first.weekday() - week.first.weekday()) % 7)
                if week.first <= target < week.end:
                    out.append(DayMention(target, target + timedelta(days=1), f"{day.label} {week.label}",
                                          one.start, two.end_index, day.part or week.part))
                    k += 2
                    continue
        out.append(one)
        k += 1
    return out


_WEEKS_FROM = frozenset({"from", "on", "after"})


def _weeks_from(tokens: tuple[str, ...], found: list[DayMention]) -> list[DayMention]:
    """"a week from Tuesday", "two weeks on Friday", "a fortnight from tomorrow", "a week Tuesday": that many weeks
    after the day named, rather than the day itself."""
    out: list[DayMention] = []
    for mention in found:
        at = mention.start
        # "a week from Tuesday", and "a week Tuesday" with the "from" left out
        unit_at = at - 2 if at >= 1 and tokens[at - 1] in _WEEKS_FROM else at - 1
        if (mention.end - mention.first).days == 1 and unit_at >= 1 \
                and tokens[unit_at] in ("week", "weeks", "fortnight", "fortnights"):
            count = _N_WORDS.get(tokens[unit_at - 1])
            if count is not None and count <= 6:
                weeks = count * (2 if tokens[unit_at].startswith("fortnight") else 1)
                day = mention.first + timedelta(weeks=weeks)
                said = " ".join(tokens[unit_at - 1:unit_at + 1])
                mention = DayMention(day, day + timedelta(days=1), f"{said} from {mention.label}", unit_at - 1,
                                     mention.end_index, mention.part)
        out.append(mention)
    return out


def _is_weekday(mention: DayMention) -> bool:
    return (mention.end - mention.first).days == 1 and mention.label.lower() in WEEKDAYS


def _is_week(mention: DayMention) -> bool:
    return (mention.end - mention.first).days == 7


def may_name_days(ct) -> bool:
    """Whether a `CallerText` holds a word every day phrase needs one of (a
    digit, a weekday or month, "tomorrow", "week", a day number): when not,
    `find_days` finds nothing and need not run."""
    return ct.has_digit or not ct.words.isdisjoint(_DAY_NEEDS)


def _week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


_DAY_STARTS = frozenset({"today", "this", "tonight", "tonite", "day", "tomorrow", "next", "coming", "following",
                         "early", "later", "end", "weekend", "the", "in", "a", "within", "over"}) | frozenset(WEEKDAYS) | frozenset(MONTHS)


def _day_at(tokens: tuple[str, ...], i: int, today: date, region: Region) -> DayMention | None:
    tok = tokens[i]
    if tok not in _DAY_STARTS and tok not in _DAY_WORDS and not tok[:1].isdigit():
        return None
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    one = timedelta(days=1)
    if tok == "today" or (tok == "this" and nxt in ("morning", "afternoon", "evening")):
        if tok == "this":
            return DayMention(today, today + one, "today", i, i + 2, part=nxt)
        return DayMention(today, today + one, "today", i, i + 1)
    if tok in ("tonight", "tonite"):
        return DayMention(today, today + one, "today", i, i + 1, part="evening")
    if tok == "day" and tokens[i + 1:i + 3] == ("after", "tomorrow"):
        start = i - 1 if i > 0 and tokens[i - 1] == "the" else i
        day = today + 2 * one
        return DayMention(day, day + one, "the day after tomorrow", start, i + 3)
    if tok == "tomorrow":
        day = today + one
        return DayMention(day, day + one, "tomorrow", i, i + 1)
    if tok in WEEKDAYS:
        return _weekday(tokens, i, i, today, strictly_after=False)
    if tok in ("this", "next", "coming", "following") and nxt in WEEKDAYS:
        strictly = tok in ("next", "following")
        return _weekday(tokens, i, i + 1, today, strictly_after=strictly)
    if tok == "this" and nxt == "coming" and i + 2 < len(tokens) and tokens[i + 2] in WEEKDAYS:
        return _weekday(tokens, i, i + 2, today, strictly_after=False)
    # weeks
    if tok in ("this", "next") and nxt in ("week", "weekend"):
        return _week(tokens, i, i + 1, today, early=False, nxt=tok == "next")
    if tok == "early" and tokens[i + 1:i + 3] in (("next", "week"), ("this", "week")):
        return _week(tokens, i, i + 2, today, early=True, nxt=nxt == "next")
    if tok == "early" and tokens[i + 1:i + 4] == ("in", "the", "week"):
        return _week(tokens, i, i + 3, today, early=True, nxt=False)
    if tok == "later" and (tokens[i + 1:i + 3] == ("this", "week") or tokens[i + 1:i + 4] == ("in", "the", "week")):
        end_index = i + 3 if nxt == "this" else i + 4
        first = today + one
        end = _week_start(today) + timedelta(days=7)
        if first >= end:
            return None
        return DayMention(first, end, "later this week", i, end_index)
    if tok == "end" and tokens[i + 1:i + 4] == ("of", "next", "week"):
        first = _week_start(today) + timedelta(days=10)
        return DayMention(first, first + timedelta(days=2), "the end of next week", i, i + 4)
    if tok == "the" and tokens[i + 1:i + 4] == ("week", "after", "next"):
        first = _week_start(today) + timedelta(days=14)
        return DayMention(first, first + timedelta(days=7), "the week after next", i, i + 4)
    if tok in ("in", "within", "over") and tokens[i + 1:i + 3] == ("the", "next"):
        # "in the next couple of weeks", "within the next 3 days"
        j = i + 3
        if tokens[j:j + 2] in (("couple", "of"), ("few",)) or tokens[j:j + 3] == ("a", "couple", "of"):
            count = 2 if "couple" in tokens[j:j + 3] else 3
            j += 3 if tokens[j] == "a" else (2 if tokens[j] == "couple" else 1)
        else:
            got = small_number(tokens, j) if j < len(tokens) else None
            count, j = got if got else (1, j)
        unit = tokens[j] if j < len(tokens) else ""
        if unit in ("day", "days", "week", "weeks", "fortnight") and 0 < count <= 12:
            days = count * {"day": 1, "days": 1, "week": 7, "weeks": 7, "fortnight": 14}[unit]
            label = f"in the next {count} {unit}" if count > 1 else f"in the next {unit.rstrip('s')}"
            return DayMention(today, today + timedelta(days=days), label, i, j + 1)
        return None
    if tok == "end" and tokens[i + 1:i + 4] in (("of", "the", "week"), ("of", "this", "week")):
        start_of_week = _week_start(today)
        first = max(today, start_of_week + timedelta(days=3))
        end = start_of_week + timedelta(days=5)
        if first >= end:
            first, end = start_of_week + timedelta(days=10), start_of_week + timedelta(days=12)
        return DayMention(first, end, "the end of the week", i, i + 4)
    if tok == "weekend" or (tok == "the" and nxt == "weekend"):
        end_index = i + 1 if tok == "weekend" else i + 2
        saturday = _week_start(today) + timedelta(days=5)
        first = max(today, saturday)
        return DayMention(first, saturday + 2 * one, "the weekend", i, end_index)
    if tok in ("this", "next") and nxt == "month":
        if tok == "this":
            first = today
            end = valid_date(today.year + (today.month == 12), today.month % 12 + 1, 1)
            return DayMention(first, end, "this month", i, i + 2)
        y, m = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
        first = date(y, m, 1)
        y2, m2 = (y + 1, 1) if m == 12 else (y, m + 1)
        return DayMention(first, date(y2, m2, 1), "next month", i, i + 2)
    # "in two weeks", "in a fortnight", "in three days", "a week from today"
    if tok == "in" and i + 1 < len(tokens):
        j = i + 1
        if tokens[j] == "a" and j + 1 < len(tokens) and tokens[j + 1] in ("couple", "few"):
            j += 1
        count = _N_WORDS.get(tokens[j])
        if count is None:
            small = small_number(tokens, j)
            if small is None:
                return None
            count, k = small
        else:
            k = j + 1
        if k < len(tokens) and tokens[k] == "of":
            k += 1
        unit = tokens[k] if k < len(tokens) else ""
        if tokens[k + 1:k + 2] in (("back",), ("ago",), ("before",), ("earlier",)):
            return None   # "I was in a couple weeks back": a visit gone by, not a period from now
        if unit in ("day", "days") and 0 < count <= 60:
            day = today + timedelta(days=count)
            return DayMention(day, day + one, f"in {count} days" if count > 1 else "tomorrow", i, k + 1)
        if unit in ("week", "weeks", "fortnight", "fortnights") and 0 < count <= 12:
            weeks = count * (2 if unit.startswith("fortnight") else 1)
            first = _week_start(today + timedelta(weeks=weeks))
            label = f"in {weeks} weeks" if weeks > 1 else "in a week"
            return DayMention(first, first + timedelta(days=7), label, i, k + 1)
        return None
    if tok == "a" and tokens[i + 1:i + 4] in (("week", "from", "today"), ("week", "from", "now"), ("week", "today")):
        day = today + timedelta(days=7)
        end_index = i + 4 if tokens[i + 2] == "from" else i + 3
        return DayMention(day, day + one, "a week from today", i, end_index)
    # calendar dates: "the 26th", "26th of November", "Dec 3rd", "26/11"
    if tok in MONTHS or tok == "the" or tok[:1].isdigit() or tok in _DAY_WORDS:
        mention = _date_at(tokens, i, region, dob=False)
        if mention is not None:
            day = resolve_future(mention, today)
            if day is None or day < today:
                return None
            return DayMention(day, day + one, date_label(day, today), mention.start, mention.end)
    return None


_DAY_WORDS = frozenset({"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
                        "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
                        "seventeenth", "eighteenth", "nineteenth", "twentieth", "thirtieth", "twenty", "thirty",
                        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                        "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                        "nineteen"})


_DAY_TRIGGERS = _DAY_STARTS | _DAY_WORDS
# One of these is in every phrase `_day_at` reads ("this morning", "in two weeks", "the 26th", "the weekend").
_DAY_NEEDS = frozenset({"today", "tonight", "tonite", "tomorrow", "morning", "afternoon", "evening", "day", "days",
                        "week", "weeks", "weekend", "fortnight", "fortnights", "month"}) \
    | frozenset(WEEKDAYS) | frozenset(MONTHS) | _DAY_WORDS


def _weekday(tokens: tuple[str, ...], start: int, at: int, today: date, strictly_after: bool) -> DayMention:
    target = WEEKDAYS[tokens[at]]
    ahead = (target - today.weekday()) % 7
    if ahead == 0 and strictly_after:
        ahead = 7
    end_index = at + 1
    label = WEEKDAY_NAMES[target]
    if tokens[start] in ("next", "following"):
        label = f"next {label}"
    # "Thursday week": a week after that Thursday
    if end_index < len(tokens) and tokens[end_index] == "week" and (
        end_index + 1 >= len(tokens) or tokens[end_index + 1] not in ("after",)
    ):
        ahead += 7
        end_index += 1
        label = f"{WEEKDAY_NAMES[target]} week"
    if tokens[end_index:end_index + 2] == ("after", "next"):
        ahead += 7
        end_index += 2
        label = f"{WEEKDAY_NAMES[target]} after next"
    day = today + timedelta(days=ahead)
    return DayMention(day, day + timedelta(days=1), label, start, end_index)


def _week(tokens: tuple[str, ...], start: int, at: int, today: date, early: bool, nxt: bool) -> DayMention:
    monday = _week_start(today)
    if tokens[at] == "weekend":
        saturday = monday + timedelta(days=12 if nxt else 5)
        first = max(today, saturday)
        return DayMention(first, saturday + timedelta(days=2), "next weekend" if nxt else "this weekend",
                          start, at + 1)
    if nxt:
        monday += timedelta(days=7)
    first = max(today, monday)
    end = monday + timedelta(days=3 if early else 7)
    if early and first >= end:
        first, end = monday + timedelta(days=7), monday + timedelta(days=10)
    label = ("early " if early else "") + ("next week" if nxt else "this week")
    return DayMention(first, end, label, start, at + 1)


