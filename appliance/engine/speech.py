"""Saying dates, times, prices and numbers the way a receptionist says them."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

import phonenumbers

from ..domain import Region

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def say_time(t: time) -> str:
    """12:15 pm, 10 am, 12 pm."""
    hour = t.hour % 12 or 12
    half = "am" if t.hour < 12 else "pm"
    if t.minute == 0:
        return f"{hour} {half}"
    return f"{hour}:{t.minute:02d} {half}"


def say_day(d: date, now: datetime) -> str:
    """Thursday the 26th; further than a week out, Thursday the 3rd of December."""
    text = f"{WEEKDAYS[d.weekday()]} the {ordinal(d.day)}"
    if d - now.date() > timedelta(days=6) or d.month != now.month and d.day > 20:
        text += f" of {MONTHS[d.month - 1]}"
    return text


def say_when(moment: datetime, now: datetime) -> str:
    return f"{say_day(moment.date(), now)} at {say_time(moment.time())}"


def say_date_of_birth(d: date, region: Region) -> str:
    """As the region says dates: "March 4th, 1985" where the month comes first, else "the 4th of March 1985"."""
    if not region.day_first:
        return f"{MONTHS[d.month - 1]} {ordinal(d.day)}, {d.year}"
    return f"the {ordinal(d.day)} of {MONTHS[d.month - 1]} {d.year}"


def say_price(amount: float, symbol: str = "$") -> str:
    if float(amount).is_integer():
        return f"{symbol}{int(amount)}"
    return f"{symbol}{amount:.2f}"


def say_phone(number: str | None, region: Region) -> str:
    """A number as the region writes its own numbers (national), anyone else's with the country code."""
    if not number:
        return "no number"
    try:
        parsed = phonenumbers.parse(number, region.phone_region)
        if phonenumbers.region_code_for_number(parsed) == region.phone_region:
            return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.NATIONAL)
        return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
    except phonenumbers.NumberParseException:
        return number


def say_letters(word: str) -> str:
    """A name spelled out, as a receptionist reads it back: "S, M, Y, T, H"; the marks in a name are said
    ("O, apostrophe, B, R, I, E, N, hyphen, ...") and so is the gap between the words of one name."""
    said = [ch.upper() if ch.isalpha() else _MARK_NAMES.get(ch, "") for ch in word]
    return ", ".join(piece for piece in said if piece)


_MARK_NAMES = {"-": "hyphen", "'": "apostrophe", "’": "apostrophe", " ": "space"}


def join_words(items: list[str], last: str = "and") -> str:
    items = [i for i in items if i]
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def say_minutes(minutes: int) -> str:
    if minutes % 60 == 0:
        hours = minutes // 60
        return f"{hours} hour" + ("s" if hours > 1 else "")
    return f"{minutes} minutes"
