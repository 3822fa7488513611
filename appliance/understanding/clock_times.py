"""Times of day as callers say them: "9:30", "2 pm", "eight o'clock",
"twelve fifteen", "half past nine", "quarter to three", "noon".

A time is `strong` when its form leaves no doubt it is a time (a colon, am/pm,
o'clock, "half past", minutes after the hour); a bare "three" is weak and only
counts where the sentence around it says so ("after three", "the eight").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import time

from .spoken_numbers import TEENS, UNITS, ZERO_WORDS, small_number

_COLON = re.compile(r"^(\d{1,2})[:.](\d{2})$")
_DIGITS = re.compile(r"^\d{1,2}$")
# "845", "1030": speech-to-text writes a spoken "eight forty-five" without its colon
_RUN_TOGETHER = re.compile(r"^(1[0-2]|[1-9])((?!00)[0-5][05])$")
# "831": "the 8:30 one", the "one" run into the minutes
_RUN_TOGETHER_ONE = re.compile(r"^(1[0-2]|[1-9])([1-5])1$")
# "5-15": speech-to-text's "the five fifteen"; weak, as "5-15" may also be a range
_HYPHENED = re.compile(r"^(1[0-2]|0?[1-9])-([0-5]\d)$")
_HOUR_WORDS = {**{k: v for k, v in UNITS.items() if v}, "ten": 10, "eleven": 11, "twelve": 12}
_PM_AFTER = (("in", "the", "afternoon"), ("in", "the", "evening"), ("at", "night"), ("tonight",))
_AM_AFTER = (("in", "the", "morning"),)


@dataclass(frozen=True)
class ClockTime:
    hour: int                # as said: 0..23
    minute: int
    meridiem: str | None     # "am" | "pm" | None when not said
    start: int               # token span
    end: int
    strong: bool

    def resolved(self, part_of_day: str | None = None) -> time:
        """One time, choosing the half of the day a clinic means: am/pm as
        said; else the part of day said around it; else 1-6 afternoon,
        7-11 morning, 12 noon."""
        hour = self.hour
        meridiem = self.meridiem
        if meridiem is None and part_of_day in ("afternoon", "evening") and hour < 12:
            meridiem = "pm"
        if meridiem is None and part_of_day == "morning":
            meridiem = "am"
        if meridiem == "pm" and hour < 12:
            hour += 12
        elif meridiem == "am" and hour == 12:
            hour = 0
        elif meridiem is None and 1 <= hour <= 6:
            hour += 12
        return time(hour % 24, self.minute)

    def matches(self, moment: time) -> bool:
        """Whether `moment` is a reading of this time (either half of the day
        when am/pm was not said)."""
        if moment.minute != self.minute:
            return False
        if self.meridiem is not None or self.hour == 0 or self.hour > 12:
            return self.resolved() == moment.replace(second=0, microsecond=0)
        return moment.hour in (self.hour % 12, self.hour % 12 + 12)

    def label(self) -> str:
        t = self.resolved()
        if t == time(12, 0):
            return "noon"
        hour12 = t.hour % 12 or 12
        suffix = "am" if t.hour < 12 else "pm"
        return f"{hour12}{suffix}" if t.minute == 0 else f"{hour12}:{t.minute:02d}{suffix}"


def _hour_at(tokens: tuple[str, ...], i: int) -> tuple[int, int] | None:
    if i >= len(tokens):
        return None
    tok = tokens[i]
    if _DIGITS.match(tok) and int(tok) <= 23:
        return int(tok), i + 1
    if tok in _HOUR_WORDS:
        return _HOUR_WORDS[tok], i + 1
    return None


def _minutes_at(tokens: tuple[str, ...], i: int) -> tuple[int, int] | None:
    """Minutes said after the hour: "thirty", "forty five", "oh five", "15"."""
    if i >= len(tokens):
        return None
    tok = tokens[i]
    if tok in ZERO_WORDS and tok != "zero" and i + 1 < len(tokens) and tokens[i + 1] in UNITS:
        return UNITS[tokens[i + 1]], i + 2
    if _DIGITS.match(tok) and len(tok) == 2 and int(tok) <= 59:
        return int(tok), i + 1
    if tok in TEENS or tok in ("twenty", "thirty", "forty", "fifty"):
        value = small_number(tokens, i)
        if value and 10 <= value[0] <= 59:
            return value
    return None


def _meridiem_at(tokens: tuple[str, ...], i: int) -> tuple[str | None, int]:
    if i < len(tokens) and tokens[i] in ("am", "pm"):
        return tokens[i], i + 1
    for words in _PM_AFTER:
        if tokens[i:i + len(words)] == words:
            return "pm", i
    for words in _AM_AFTER:
        if tokens[i:i + len(words)] == words:
            return "am", i
    return None, i


def _read(tokens: tuple[str, ...], i: int) -> ClockTime | None:
    tok = tokens[i]
    if tok in ("noon", "midday"):
        return ClockTime(12, 0, "pm", i, i + 1, True)
    if tok == "midnight":
        return ClockTime(0, 0, "am", i, i + 1, True)
    # "half past nine", "quarter past twelve", "quarter to three", "ten past two"
    if tok in ("half", "quarter") or (tok in UNITS or tok in TEENS or tok in ("twenty", "5", "10", "20", "25")):
        j = i
        if tok == "half":
            offset, j = 30, i + 1
        elif tok == "quarter":
            offset, j = 15, i + 1
        else:
            small = small_number(tokens, i)
            offset, j = (small if small and 1 <= small[0] <= 30 else (None, i))
            if offset is not None and j < len(tokens) and tokens[j] in ("minutes", "minute"):
                j += 1
        if offset is not None and j < len(tokens) and tokens[j] in ("past", "after", "to", "til", "till"):
            hour = _hour_at(tokens, j + 1)
            if hour and 1 <= hour[0] <= 12:
                h, k = hour
                if tokens[j] in ("to", "til", "till"):
                    if tok == "half":
                        return None
                    h, minute = (h - 1) or 12, 60 - offset
                else:
                    minute = offset
                if k < len(tokens) and tokens[k] == "oclock":
                    k += 1
                meridiem, k = _meridiem_at(tokens, k)
                return ClockTime(h, minute, meridiem, i, k, True)
    if tok == "half" and i + 1 < len(tokens) and tokens[i + 1] not in ("past", "after", "to"):
        hour = _hour_at(tokens, i + 1)   # British "half six" is 6:30
        if hour and 1 <= hour[0] <= 12:
            meridiem, k = _meridiem_at(tokens, hour[1])
            return ClockTime(hour[0], 30, meridiem, i, k, True)
    m = _COLON.match(tok)
    if m:
        hour, minute = int(m.group(1)), int(m.group(2))
        if hour <= 23 and minute <= 59:
            meridiem, k = _meridiem_at(tokens, i + 1)
            return ClockTime(hour, minute, meridiem, i, k, True)
        return None
    m = _RUN_TOGETHER.match(tok) or _HYPHENED.match(tok)
    if m:
        meridiem, k = _meridiem_at(tokens, i + 1)
        return ClockTime(int(m.group(1)), int(m.group(2)), meridiem, i, k, meridiem is not None)
    m = _RUN_TOGETHER_ONE.match(tok)
    if m:
        return ClockTime(int(m.group(1)), int(m.group(2)) * 10, None, i, i + 1, False)
    hour = _hour_at(tokens, i)
    if hour is None:
        return None
    h, k = hour
    strong = False
    minute = 0
    if k < len(tokens) and tokens[k] == "oclock":
        strong, k = True, k + 1
    else:
        mins = _minutes_at(tokens, k)
        if mins is not None and h <= 12:
            minute, k = mins
            strong = True
    if k < len(tokens) and tokens[k] in ("am", "pm"):
        if h > 12:
            return None
        return ClockTime(h, minute, tokens[k], i, k + 1, True)
    meridiem, k2 = _meridiem_at(tokens, k)
    if h > 12 and not strong:
        # "14" alone is only a time as "14:00"; a bare number above 12 is not.
        return None
    return ClockTime(h, minute, meridiem, i, k2, strong or meridiem is not None)


_STARTS = frozenset({"noon", "midday", "midnight", "half", "quarter", *UNITS, *TEENS, "twenty"})


def find_times(tokens: tuple[str, ...], start: int = 0, end: int | None = None) -> list[ClockTime]:
    """Every time of day in tokens[start:end], left to right, not overlapping."""
    found: list[ClockTime] = []
    stop = len(tokens) if end is None else end
    i = start
    while i < stop:
        if tokens[i] not in _STARTS and not tokens[i][:1].isdigit():
            i += 1
            continue
        clock = _read(tokens, i)
        if clock is not None and not clock.strong and tokens[i] == "one":
            clock = None  # "the one with Dr Roe", "that one": not one o'clock
        if clock is not None and clock.end > i:
            found.append(clock)
            i = clock.end
        else:
            i += 1
    return found
