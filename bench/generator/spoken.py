"""The facts a caller says, in the forms people say them: dates of birth, phone numbers, clock times.

Numbers become words through num2words and phone numbers are grouped by phonenumbers;
this module only arranges their output the way a caller would put it ("oh four", "double five").
"""

from __future__ import annotations

import unicodedata
from datetime import date, time

import phonenumbers
from num2words import num2words

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
REPEATS = {2: "double", 3: "triple"}


def digit_word(digit: str, zero: str = "oh") -> str:
    return zero if digit == "0" else num2words(int(digit))


def digits_said(digits: str, zero: str = "oh") -> str:
    return " ".join(digit_word(d, zero) for d in digits)


def digits_with_repeats(digits: str) -> str:
    """'0455' -> 'oh four double five' (three alike: 'triple')."""
    words, i = [], 0
    while i < len(digits):
        run = 1
        while i + run < len(digits) and digits[i + run] == digits[i] and run < 3:
            run += 1
        if run in REPEATS:
            words.append(f"{REPEATS[run]} {digit_word(digits[i])}")
        else:
            words.append(digit_word(digits[i]))
        i += run
    return " ".join(words)


def ordinal_suffix(n: int) -> str:
    """4 -> '4th', written as digits the way a transcript writes it."""
    return num2words(n, to="ordinal_num")


def two_digits(n: int) -> str:
    """A day or month said as on a form: 4 -> 'oh four', 12 -> 'twelve'."""
    return f"oh {num2words(n)}" if n < 10 else num2words(n)


def two_digit_year(year: int) -> str:
    """1985 -> 'eighty-five'; 2004 -> 'oh four'."""
    yy = year % 100
    return f"oh {num2words(yy)}" if yy < 10 else num2words(yy)


def dob_facts(born: date, date_order: str) -> dict[str, str]:
    """Every piece a date-of-birth phrasing may use; `date_order` is 'dmy' or 'mdy' (the clinic's)."""
    day_first = date_order == "dmy"
    first, second = (born.day, born.month) if day_first else (born.month, born.day)
    return {
        "d": str(born.day),
        "d_th": ordinal_suffix(born.day),
        "d_words": num2words(born.day, to="ordinal"),
        "month": MONTHS[born.month - 1],
        "m_words": num2words(born.month, to="ordinal"),
        "yyyy": str(born.year),
        "yy": f"{born.year % 100:02d}",
        "yyyy_words": num2words(born.year, to="year"),
        "yy_words": two_digit_year(born.year),
        "numeric": f"{first}/{second}/{born.year}",
        "numeric_short": f"{first:02d}/{second:02d}/{born.year % 100:02d}",
        "dd_mm_spoken": f"{two_digits(first)} {two_digits(second)}",
    }


def phone_facts(e164: str) -> dict[str, str]:
    """Every piece a phone-number phrasing may use, grouped as the number's country writes it."""
    number = phonenumbers.parse(e164, None)
    national = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL)
    international = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
    groups = ["".join(ch for ch in part if ch.isdigit()) for part in national.replace("-", " ").split()]
    groups = [g for g in groups if g]
    national_digits = "".join(groups)
    subscriber = str(number.national_number)
    intl_groups = ["".join(ch for ch in part if ch.isdigit()) for part in international.replace("-", " ").split()[1:]]
    return {
        "phone_oh_grouped": ", ".join(digits_said(g) for g in groups),
        "phone_zero_grouped": ", ".join(digits_said(g, "zero") for g in groups),
        "phone_oh": digits_said(national_digits),
        "phone_doubles": ", ".join(digits_with_repeats(g) for g in groups),
        "phone_national": national,
        "phone_e164": e164,
        "phone_cc_spoken": "plus " + ", ".join(
            [digits_said(str(number.country_code))] + [digits_said(g) for g in intl_groups or [subscriber]]),
        "phone_international": international,
    }


def _hour12(hour: int) -> int:
    return hour % 12 or 12


def time_facts(t: time) -> dict[str, str]:
    """'the 9:15 one', 'nine fifteen', '2:30 pm', 'half past two'."""
    h = _hour12(t.hour)
    hour_words = num2words(h)
    if t.minute == 0:
        digits, words = f"{h} o'clock", f"{hour_words} o'clock"
        colloquial = f"{hour_words} o'clock"
    else:
        digits, words = f"{h}:{t.minute:02d}", f"{hour_words} {minute_words(t.minute)}"
        colloquial = {
            15: f"quarter past {hour_words}",
            30: f"half past {hour_words}",
            45: f"quarter to {num2words(_hour12(t.hour + 1))}",
        }.get(t.minute, words)
    return {
        "time_digits": digits,
        "time_words": words,
        "time_ampm": f"{h}{'' if t.minute == 0 else f':{t.minute:02d}'} {'am' if t.hour < 12 else 'pm'}",
        "time_colloquial": colloquial,
    }


def minute_words(minute: int) -> str:
    return f"oh {num2words(minute)}" if minute < 10 else num2words(minute)


def spelled(name: str) -> str:
    """'O'Brien-Núñez' -> 'O apostrophe B R I E N hyphen N U N E Z' (accents dropped, as letters are said)."""
    out = []
    for ch in unicodedata.normalize("NFD", name):
        if unicodedata.combining(ch):
            continue
        if ch.isalpha():
            out.append(ch.upper())
        elif ch in "'’":
            out.append("apostrophe")
        elif ch == "-":
            out.append("hyphen")
        elif ch == " ":
            out.append("space")
    return " ".join(out)


def with_article(phrase: str) -> str:
    """'a follow-up', 'an initial consultation'."""
    return f"{'an' if phrase[:1].lower() in 'aeiou' else 'a'} {phrase}"


def said_name(name: str) -> str:
    """A service or site name as it sounds in a sentence: 'Dental exam' -> 'dental exam', 'PT session' kept."""
    return " ".join(word if word.isupper() and len(word) > 1 else word.lower() for word in name.split())
