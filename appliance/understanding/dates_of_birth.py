"""A date of birth in any common spoken or written form.

"fourth of March eighty five", "the 4th of March 1985", "March fourth
nineteen eighty five", "11/30/1972", "04/03/1985" (day first unless the
region writes month first), "1985-03-04", "June 2nd, 1979", "2 June 79",
"twenty first of may two thousand and one", "4 3 85" when asked for it.
A two-digit year takes the century that puts the date in the past; a date
of birth is never in the future and never further back than anyone alive. Years misheard by
speech-to-text (a "-teen" year for a "-ty" one, "seventeen" for "nineteen")
are the date-of-birth question's repairs (config/flows/questions.yaml).
"""

from __future__ import annotations

import re
from datetime import date

from ..domain import Region
from .calendar_phrases import MONTHS, day_and_month, find_dates, valid_date
from .normalise import CallerText
from .signals import WordPattern
from .yes_no import takes_back
from .spoken_numbers import UNITS, ZERO_WORDS, day_ordinal, small_number, year

DOB_MARKER = WordPattern(r"\b(?:born|date of birth|birth ?date|birthday|d o b|dob|d\.o\.b)\b")
_DIGITS = re.compile(r"^\d{1,4}$")


def full_year(two_digits: int, month: int, day: int, today: date) -> int | None:
    for century in (2000, 1900):
        candidate = valid_date(century + two_digits, month, day)
        if candidate is not None and candidate <= today:
            return century + two_digits
    return None


# years: nobody living is older (the oldest people recorded lived to 117-122; past 115 a year heard is a year
# misheard: "1900 and ..." for "nineteen hundred and seventy-seven" with its decade lost)
OLDEST_LIVING_AGE = 115


def date_of_birth(year: int, month: int, day: int, today: date) -> date | None:
    """The date, if someone could have been born on it and be calling today."""
    born = valid_date(year, month, day)
    if born is not None and today.year - OLDEST_LIVING_AGE <= born.year and born <= today:
        return born
    return None


def find_dob(ct: CallerText, today: date, region: Region) -> date | None:
    """The first complete, plausible date of birth in the words."""
    found = find_dob_span(ct, today, region)
    return found[0] if found else None


def find_dob_span(ct: CallerText, today: date, region: Region) -> tuple[date, int, int] | None:
    """The date of birth with the token span it was said in; a date taken back in the same breath gives way to
    the one said after it ("the 28th of October 65, no, sorry, 64": the year said again replaces the year)."""
    found = None
    for mention in find_dates(ct.tokens, region, dob=True):
        if mention.month is None or mention.year is None:
            continue
        year = mention.year
        if mention.two_digit_year:
            year = full_year(year, mention.month, mention.day, today)
            if year is None:
                continue
        born = date_of_birth(year, mention.month, mention.day, today)
        if born is not None:
            if found is None:
                found = (born, mention.start, mention.end)
            elif takes_back(ct.tokens[found[2]:mention.start]):
                found = (born, found[1], mention.end)   # "the 3rd of May 1980, no wait, the 4th of May 1980"
    if found is None:
        return _put_right_before_the_year(ct, today, region) or _year_said_as_this_or_last(ct, today, region) or \
            _spaced_numbers(ct, today, region) or \
            _digit_pairs(ct, today, region) or _year_then_day_and_month(ct, today, region)
    return _year_said_again(ct, found, today)


def _year_said_as_this_or_last(ct: CallerText, today: date, region: Region) -> tuple[date, int, int] | None:
    """A baby's birth date with its year said as "this year" or "last year" ("second of September, this year,
    twenty twenty-six"): the year said after it, else the one those words mean."""
    for mention in find_dates(ct.tokens, region, dob=True):
        if mention.month is None or mention.day is None or mention.year is not None:
            continue
        after = ct.tokens[mention.end:mention.end + 2]
        if after not in (("this", "year"), ("last", "year")):
            continue
        value = today.year - (after[0] == "last")
        said = year(ct.tokens, mention.end + 2, two_digit=False) if mention.end + 2 < len(ct.tokens) else None
        end = mention.end + 2
        if said is not None:
            value, _, end = said
        born = date_of_birth(value, mention.month, mention.day, today)
        if born is not None:
            return born, mention.start, end
    return None


def _put_right_before_the_year(ct: CallerText, today: date, region: Region) -> tuple[date, int, int] | None:
    """A day put right before the year is said ("May the 29th, sorry, the 28th, 1990", "May twenty-ninth, no,
    twenty-eighth, May twenty-eighth, nineteen ninety"): the month and day said last, with the year after them."""
    mentions = [m for m in find_dates(ct.tokens, region, dob=True) if m.year is None]
    if len(mentions) < 2:
        return None
    month = day = None
    for k, mention in enumerate(mentions):
        if k and not takes_back(ct.tokens[mentions[k - 1].end:mention.start]) and mention.start > mentions[k - 1].end:
            return None
        month = mention.month or month
        day = mention.day or day
    if month is None or day is None:
        return None
    for k in range(mentions[-1].end, len(ct.tokens)):
        said = year(ct.tokens, k, two_digit=True)
        if said is not None:
            value, two_digits, end = said
            full = full_year(value, month, day, today) if two_digits else value
            born = date_of_birth(full, month, day, today) if full is not None else None
            return (born, mentions[0].start, end) if born is not None else None
    return None


def _year_then_day_and_month(ct: CallerText, today: date, region: Region) -> tuple[date, int, int] | None:
    """The year said first, then the month and day ("fifty-eight, May the thirtieth", "ninety-three, November
    second"); the day said before the month after a year ("1993, the 2nd of November") is read as any date is."""
    tokens = ct.tokens
    for k in range(len(tokens)):
        said = year(tokens, k, two_digit=True)
        if said is None:
            continue
        value, two_digits, j = said
        month = MONTHS.get(tokens[j]) if j < len(tokens) else None
        if month is not None:
            at = j + 1 + (j + 1 < len(tokens) and tokens[j + 1] == "the")
            day = day_ordinal(tokens, at, allow_cardinal=True)
            read = (month, day[0], day[1]) if day is not None else None
        else:
            after = [m for m in find_dates(tokens, region, dob=True) if m.start == j and m.year is None
                     and m.month is not None and m.day is not None]
            read = (after[0].month, after[0].day, after[0].end) if after else None
        if read is None:
            continue
        month, day_of_month, end = read
        full = full_year(value, month, day_of_month, today) if two_digits else value
        born = date_of_birth(full, month, day_of_month, today) if full is not None else None
        if born is not None:
            return born, k, end
    return None


def _year_said_again(ct: CallerText, found: tuple[date, int, int], today: date) -> tuple[date, int, int]:
    """`found` with its year replaced by one said after it, past words that take the year back ("..., sixty
    five. No, no, sixty four, sorry"), where the day and month still make a date of birth with it."""
    born, start, end = found
    tokens = ct.tokens
    k = end
    said_back = False
    while k < len(tokens) and tokens[k] in _BACK_WORDS:
        said_back = said_back or tokens[k] in ("no", "sorry", "actually", "wait", "oops", "rather")
        k += 1
    if not said_back:
        return found
    again = year(tokens, k, two_digit=True)
    if again is None:
        return found
    value, two_digits, after = again
    if two_digits:
        value = full_year(value, born.month, born.day, today)
        if value is None:
            return found
    corrected = date_of_birth(value, born.month, born.day, today)
    return (corrected, start, after) if corrected is not None else found


_BACK_WORDS = frozenset({"no", "sorry", "i", "mean", "meant", "actually", "wait", "oops", "it", "is", "was", "um",
                         "uh", "er", "erm", "oh", "rather", "not", "that", "should", "be", "the", "year"})


def _pair(tokens: tuple[str, ...], i: int) -> tuple[int, int] | None:
    """A day or month said digit by digit: "oh four", "zero three", "one two", or "twelve"."""
    if i >= len(tokens):
        return None
    tok = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    if tok in ZERO_WORDS and nxt in UNITS and UNITS[nxt] > 0:
        return UNITS[nxt], i + 2
    if tok in ("one", "two", "three") and nxt in UNITS:
        return 10 * UNITS[tok] + UNITS[nxt], i + 2
    got = small_number(tokens, i)
    if got is not None and 10 <= got[0] <= 31 and not tokens[i].isdigit():
        return got
    return None


def _digit_pairs(ct: CallerText, today: date, region: Region) -> tuple[date, int, int] | None:
    """ "oh four oh three eighty five", "zero four zero three nineteen eighty five", and, before a whole year,
    a day or month said as one word: "fourteen two nineteen seventy five"."""
    toks = ct.tokens
    for i in range(len(toks)):
        first, first_single = _pair_or_single(toks, i)
        if first is None:
            continue
        second, second_single = _pair_or_single(toks, first[1])
        if second is None:
            continue
        said = year(toks, second[1], two_digit=True)
        if said is None:
            continue
        pair = day_and_month(first[0], second[0], region)
        if pair is None:
            continue
        day, month = pair
        value, short, end = said
        if short and (first_single or second_single):
            continue   # "four two eighty five" is too loose to be a date; with the whole year it is one
        if short:
            value = full_year(value, month, day, today)
            if value is None:
                continue
        born = date_of_birth(value, month, day, today)
        if born is not None:
            return born, i, end
    return None


def _pair_or_single(tokens: tuple[str, ...], i: int) -> tuple[tuple[int, int] | None, bool]:
    """A day or month as `_pair` reads it, or else a single number word ("two"): (value, next), single."""
    got = _pair(tokens, i)
    if got is not None:
        return got, False
    if i < len(tokens) and tokens[i] in UNITS and UNITS[tokens[i]] > 0:
        return (UNITS[tokens[i]], i + 1), True
    return None, False


def _spaced_numbers(ct: CallerText, today: date, region: Region) -> tuple[date, int, int] | None:
    """ "4 3 85", "04 03 1985": three written numbers in a row."""
    toks = ct.tokens
    for i in range(len(toks) - 2):
        a, b, c = toks[i:i + 3]
        if not (_DIGITS.match(a) and _DIGITS.match(b) and _DIGITS.match(c)):
            continue
        if len(a) > 2 or len(b) > 2 or len(c) not in (2, 4):
            continue
        pair = day_and_month(int(a), int(b), region)
        if pair is None:
            continue
        day, month = pair
        year = int(c)
        if len(c) == 2:
            year = full_year(year, month, day, today)
            if year is None:
                continue
        born = date_of_birth(year, month, day, today)
        if born is not None:
            return born, i, i + 3
    return None
