"""Numbers as callers say them, read from a token stream.

Each reader takes the normalised tokens and a start index and returns the value
with the index just past it, or None when no number of that kind starts there.
Readers never look past what they consume, so callers can chain them.
"""

from __future__ import annotations

import re

UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
         "seven": 7, "eight": 8, "nine": 9}
TEENS = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
         "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
        "seventy": 70, "eighty": 80, "ninety": 90}
ORDINAL_UNITS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
                 "seventh": 7, "eighth": 8, "ninth": 9}
ORDINAL_TEENS = {"tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
                 "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
                 "nineteenth": 19}
ORDINAL_TENS = {"twentieth": 20, "thirtieth": 30}
ZERO_WORDS = frozenset({"zero", "oh", "o", "nought", "nil", "naught"})

NUMBER_WORDS = frozenset(UNITS) | frozenset(TEENS) | frozenset(TENS) | {"hundred", "thousand"}

_DIGITS = re.compile(r"^\d+$")
_ORDINAL_DIGITS = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)$")


def small_number(tokens: tuple[str, ...], i: int) -> tuple[int, int] | None:
    """0..99 in words ("forty five", "twelve", "seven") or as a 1-2 digit token."""
    if i >= len(tokens):
        return None
    tok = tokens[i]
    if _DIGITS.match(tok) and len(tok) <= 2:
        return int(tok), i + 1
    if tok in UNITS:
        return UNITS[tok], i + 1
    if tok in TEENS:
        return TEENS[tok], i + 1
    if tok in TENS:
        value = TENS[tok]
        if i + 1 < len(tokens) and tokens[i + 1] in UNITS and tokens[i + 1] != "zero":
            return value + UNITS[tokens[i + 1]], i + 2
        return value, i + 1
    return None


def cardinal(tokens: tuple[str, ...], i: int) -> tuple[int, int] | None:
    """A whole number up to 9999: digits, or words with hundred/thousand."""
    if i >= len(tokens):
        return None
    tok = tokens[i]
    if _DIGITS.match(tok):
        return int(tok), i + 1
    first = small_number(tokens, i)
    if first is None:
        if tok == "a" and i + 1 < len(tokens) and tokens[i + 1] in ("hundred", "thousand"):
            first = (1, i + 1)
        else:
            return None
    total, j = first
    if j < len(tokens) and tokens[j] == "thousand":
        total *= 1000
        j += 1
        nxt = _hundreds(tokens, j)
        if nxt:
            total += nxt[0]
            j = nxt[1]
        return total, j
    if j < len(tokens) and tokens[j] == "hundred" and total < 10:
        total *= 100
        j += 1
        if j < len(tokens) and tokens[j] == "and":
            rest = small_number(tokens, j + 1)
            if rest:
                return total + rest[0], rest[1]
            return total, j
        rest = small_number(tokens, j)
        if rest:
            total += rest[0]
            j = rest[1]
    return total, j


def _hundreds(tokens: tuple[str, ...], i: int) -> tuple[int, int] | None:
    j = i + 1 if i < len(tokens) and tokens[i] == "and" else i
    value = cardinal(tokens, j)
    if value and value[0] < 1000:
        return value
    return None


def day_ordinal(tokens: tuple[str, ...], i: int, allow_cardinal: bool = False) -> tuple[int, int] | None:
    """A day of the month 1..31: "fourth", "twenty first", "4th", and, when
    `allow_cardinal`, "4" or "twenty one" too."""
    if i >= len(tokens):
        return None
    tok = tokens[i]
    m = _ORDINAL_DIGITS.match(tok)
    if m:
        value = int(m.group(1))
        return (value, i + 1) if 1 <= value <= 31 else None
    if tok in ORDINAL_UNITS:
        return ORDINAL_UNITS[tok], i + 1
    if tok in ORDINAL_TEENS:
        return ORDINAL_TEENS[tok], i + 1
    if tok in ORDINAL_TENS:
        return ORDINAL_TENS[tok], i + 1
    if tok in ("twenty", "thirty") and i + 1 < len(tokens) and tokens[i + 1] in ORDINAL_UNITS:
        value = TENS[tok] + ORDINAL_UNITS[tokens[i + 1]]
        return (value, i + 2) if value <= 31 else None
    if allow_cardinal:
        if _DIGITS.match(tok) and len(tok) <= 2:
            value = int(tok)
            return (value, i + 1) if 1 <= value <= 31 else None
        small = small_number(tokens, i)
        if small and 1 <= small[0] <= 31:
            return small
    return None


def _unit(tokens: tuple[str, ...], i: int) -> int | None:
    """A digit said after an "oh" in a year, as a word or as the transcriber writes it ("oh five", "oh 5")."""
    if i >= len(tokens):
        return None
    tok = tokens[i]
    if tok in UNITS:
        return UNITS[tok]
    return int(tok) if len(tok) == 1 and tok.isdigit() else None


def year(tokens: tuple[str, ...], i: int, two_digit: bool) -> tuple[int, bool, int] | None:
    """A year: (value, said_with_two_digits, next_index).

    "1985", "nineteen eighty five", "nineteen oh five", "two thousand and one",
    "twenty oh one", "twenty twenty six"; with `two_digit` also "85", "'85",
    "eighty five", "oh one" (value 0..99, century left to the caller)."""
    if i >= len(tokens):
        return None
    tok = tokens[i].lstrip("'")
    if _DIGITS.match(tok):
        if len(tok) == 4 and 1800 <= int(tok) <= 2199:
            return int(tok), False, i + 1
        if len(tok) == 2 and two_digit:
            return int(tok), True, i + 1
        return None
    if tok in ("nineteen", "eighteen") or (tok == "twenty" and i + 1 < len(tokens)):
        century = {"nineteen": 1900, "eighteen": 1800, "twenty": 2000}[tok]
        nxt = i + 1
        if nxt < len(tokens) and tokens[nxt] in ZERO_WORDS and _unit(tokens, nxt + 1) is not None:
            return century + _unit(tokens, nxt + 1), False, nxt + 2
        if nxt < len(tokens) and tokens[nxt] == "hundred" and tok != "twenty":
            return century, False, nxt + 1
        rest = small_number(tokens, nxt)
        if rest and rest[0] >= 10 and not _DIGITS.match(tokens[nxt]):
            return century + rest[0], False, rest[1]
        if tok == "twenty":
            if not two_digit:
                return None
            rest = small_number(tokens, i)
            return (rest[0], True, rest[1]) if rest and not (rest[1] == i + 1 and _ordinal_goes_on(tokens, rest[1])) \
                else None
    if tok == "two" and i + 1 < len(tokens) and tokens[i + 1] == "thousand":
        j = i + 2
        if j < len(tokens) and tokens[j] == "and":
            j += 1
        rest = small_number(tokens, j)
        if rest and not _DIGITS.match(tokens[j]):
            return 2000 + rest[0], False, rest[1]
        return 2000, False, i + 2
    if two_digit:
        if tok in ZERO_WORDS and tok != "zero" and _unit(tokens, i + 1) is not None:
            return _unit(tokens, i + 1), True, i + 2
        rest = small_number(tokens, i)
        if rest and rest[0] >= 10 and not (rest[1] == i + 1 and _ordinal_goes_on(tokens, rest[1])):
            return rest[0], True, rest[1]
    return None


def _ordinal_goes_on(tokens: tuple[str, ...], k: int) -> bool:
    """Whether a tens word read alone goes on into an ordinal ("twenty eighth"): a day of the month, not a year."""
    return k < len(tokens) and tokens[k] in ORDINAL_UNITS


def digit_runs(tokens: tuple[str, ...]) -> list[tuple[str, int, int]]:
    """Every run of spoken or written digits: (digits, start, end).

    Handles "oh four one two", "double seven", "triple zero", "forty five",
    "four hundred", "0412-345-678", a leading "plus"."""
    runs: list[tuple[str, int, int]] = []
    i = 0
    n = len(tokens)
    while i < n:
        digits = ""
        start = i
        if tokens[i] == "plus":
            digits = "+"
            i += 1
        while i < n:
            piece, nxt = _digit_piece(tokens, i)
            if piece is None:
                break
            digits += piece
            i = nxt
        if digits.strip("+"):
            runs.append((digits, start, i))
        if i == start:
            i += 1
    return runs


_TOKEN_DIGITS = re.compile(r"^\d[\d.\-]*$")


def _digit_piece(tokens: tuple[str, ...], i: int) -> tuple[str | None, int]:
    tok = tokens[i]
    if _TOKEN_DIGITS.match(tok):
        return re.sub(r"\D", "", tok), i + 1
    if tok in ("double", "triple") and i + 1 < len(tokens):
        single = _single_digit(tokens[i + 1])
        if single is not None:
            return single * (2 if tok == "double" else 3), i + 2
        return None, i
    single = _single_digit(tok)
    if single is not None:
        if i + 1 < len(tokens) and tokens[i + 1] in ("hundred", "thousand") and tok in UNITS:
            return single + ("00" if tokens[i + 1] == "hundred" else "000"), i + 2
        return single, i + 1
    if tok in TEENS:
        return str(TEENS[tok]), i + 1
    if tok in TENS:
        if i + 1 < len(tokens) and tokens[i + 1] in UNITS and tokens[i + 1] != "zero":
            return str(TENS[tok] + UNITS[tokens[i + 1]]), i + 2
        return str(TENS[tok]), i + 1
    return None, i


def _single_digit(tok: str) -> str | None:
    if tok in UNITS:
        return str(UNITS[tok])
    if tok in ZERO_WORDS:
        return "0"
    if len(tok) == 1 and tok.isdigit():
        return tok
    return None
