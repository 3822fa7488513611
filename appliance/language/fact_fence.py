"""The fence around the LLM's rewording: it may change the words, never the facts.

A pure function, no model. A rewording of a template reply is accepted only
when every fact of the reply is in it (times, dates, weekdays, months, prices,
numbers, phone numbers, and names: those given in `keep` and any other
capitalised name), nothing of those kinds appears that the reply did not say,
it asks a question exactly when the reply does, and it is one short line.
Spacing and case do not matter: "12:15 pm", "12:15pm" and "12:15 p.m." are the
same time, "$85" and "$85.00" the same price.

Reasons name the kind of fact only ("dropped a time"), never the words, so they
can be logged without patient data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Iterable

from ..understanding.common_words import STOP_WORDS

MAX_GROWTH = 1.5     # a rewording may be at most this many times the reply's words ...
EXTRA_WORDS = 4      # ... plus this many

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
RELATIVE_DAYS = ("today", "tomorrow", "tonight", "yesterday", "weekend")
DAY_PARTS = ("morning", "afternoon", "evening")
NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
}
# words that start a sentence without being a name, beyond the understanding module's ordinary words
_OPENERS = frozenset({"welcome", "noted", "understood", "got", "excellent", "awesome", "brilliant", "terrific",
                      "i", "i'm", "i'll", "i've", "i'd", "ok", "hmm", "ah", "oh"})
_NOT_NAMES = frozenset({"i", "i'm", "i'll", "i've", "i'd", "ok"})

_PHONE = re.compile(r"(?<![\w$£€.:])\+?\(?\d[\d\s().-]{5,}\d(?![\w:])")
_TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s?m\b\.?", re.I)
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_NOON = re.compile(r"\b(noon|midday|midnight)\b", re.I)
_PRICE = re.compile(r"([$£€])\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d{1,2})?")
_PRICE_WORDS = re.compile(r"\b(\d+)(\.\d{1,2})?\s*(dollars|bucks)\b", re.I)
_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b", re.I)
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)*\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


@dataclass(frozen=True)
class FenceVerdict:
    accepted: bool
    reason: str  # "ok", or what was wrong ("dropped a time", "added a name", "too long", ...)

    def __bool__(self) -> bool:
        return self.accepted


def check_rewording(template: str, rewording: str | None, keep: Iterable[str] = ()) -> FenceVerdict:
    """Accept `rewording` in place of `template` only if it keeps every fact and adds none."""
    if rewording is None or not rewording.strip():
        return FenceVerdict(False, "empty")
    if "\n" in rewording.strip():
        return FenceVerdict(False, "more than one line")
    template, rewording = _tidy(template), _tidy(rewording)
    template_words, reworded_words = len(_WORD.findall(template)), len(_WORD.findall(rewording))
    if reworded_words == 0:
        return FenceVerdict(False, "empty")
    if reworded_words > template_words * MAX_GROWTH + EXTRA_WORDS:
        return FenceVerdict(False, "too long")
    phrases = _keep_phrases(keep)
    said, written = facts(template, phrases), facts(rewording, phrases)
    for kind in _KINDS:
        if any(fact[0] == kind for fact in said - written):
            return FenceVerdict(False, f"dropped a {kind}")
        if any(fact[0] == kind for fact in written - said):
            return FenceVerdict(False, f"added a {kind}")
    said_names, written_names = names(template, phrases), names(rewording, phrases)
    template_text, rewording_text = _plain(template), _plain(rewording)
    if any(not _contains(rewording_text, name) for name in said_names):
        return FenceVerdict(False, "dropped a name")
    if any(not _contains(template_text, name) for name in written_names):
        return FenceVerdict(False, "added a name")
    if ("?" in template) != ("?" in rewording):
        return FenceVerdict(False, "dropped the question" if "?" in template else "added a question")
    return FenceVerdict(True, "ok")


_KINDS = ("phone number", "time", "price", "date", "number")


def facts(text: str, keep: tuple[str, ...] = ()) -> set[tuple[str, str]]:
    """The checkable facts of a text as (kind, normalised value) pairs (names are separate: `names`)."""
    found: set[tuple[str, str]] = set()
    work = _mask_keep(_tidy(text), keep)

    def take(pattern: re.Pattern, kind: str, value) -> None:
        nonlocal work
        for match in list(pattern.finditer(work)):
            normalised = value(match)
            if normalised is None:
                continue
            found.add((kind, normalised))
            work = work[:match.start()] + " " * (match.end() - match.start()) + work[match.end():]

    take(_PRICE, "price", lambda m: m[1] + _amount(m[2].replace(",", "") + (m[3] or "")))
    take(_PRICE_WORDS, "price", lambda m: "$" + _amount(m[1] + (m[2] or "")))
    take(_TIME, "time", lambda m: f"{int(m[1])}:{m[2] or '00'} {m[3].lower()}m")
    take(_PHONE, "phone number", lambda m: d if len(d := re.sub(r"\D", "", m[0])) >= 8 else None)
    take(_CLOCK, "time", lambda m: f"{int(m[1])}:{m[2]}")
    take(_NOON, "time", lambda m: "12:00 am" if m[1].lower() == "midnight" else "12:00 pm")
    take(_ORDINAL, "number", lambda m: str(int(m[1])))
    take(_NUMBER, "number", lambda m: _amount(m[0].replace(",", "")))
    for match in _WORD.finditer(work):
        word = match[0].lower()
        if word in NUMBER_WORDS:
            found.add(("number", str(NUMBER_WORDS[word])))
        elif word.rstrip("s") in WEEKDAYS:
            found.add(("date", word.rstrip("s")))
        elif word in RELATIVE_DAYS or word in DAY_PARTS:
            found.add(("date", word))
        elif word in MONTHS and _is_month(work, match):
            found.add(("date", word))
    return found


def names(text: str, keep: tuple[str, ...] = ()) -> set[str]:
    """Names in a text, lower case: the `keep` phrases it contains and any other capitalised name."""
    text = _tidy(text)
    plain = _plain(text)
    found = {phrase for phrase in keep if _contains(plain, phrase)}
    work = _mask_keep(text, keep)
    for match in _WORD.finditer(work):
        word = match[0].removesuffix("'s")
        lower = word.lower()
        if not word[0].isupper() or lower in _NOT_NAMES or lower.rstrip("s") in WEEKDAYS:
            continue
        if lower in MONTHS and _is_month(work, match):
            continue
        if _sentence_start(work, match.start()) and (lower in STOP_WORDS or lower in _OPENERS
                                                     or lower.split("'")[0] in STOP_WORDS):
            continue
        found.add(lower)
    return found


def _tidy(text: str) -> str:
    return " ".join(text.replace("\u2019", "'").replace("\u2018", "'").replace("\u00a0", " ").split())


def _plain(text: str) -> str:
    """Lower case, punctuation to spaces (keeps apostrophes and hyphens), single spaces."""
    return " " + " ".join(re.sub(r"[^\w'$£€:-]+", " ", text.lower()).split()) + " "


def _contains(plain_text: str, phrase: str) -> bool:
    return f" {phrase} " in plain_text


def _keep_phrases(keep: Iterable[str]) -> tuple[str, ...]:
    phrases = {_plain(item).strip() for item in keep if item and _plain(item).strip()}
    return tuple(sorted(phrases, key=len, reverse=True))


def _mask_keep(text: str, keep: tuple[str, ...]) -> str:
    """Blank out the keep phrases (so "Dr Roe" is not also read as a capitalised name)."""
    for phrase in keep:
        pattern = r"(?<!\w)" + r"[\s.,]+".join(re.escape(part) for part in phrase.split()) + r"(?!\w)"
        text = re.sub(pattern, lambda m: " " * len(m[0]), text, flags=re.I)
    return text


def _sentence_start(text: str, index: int) -> bool:
    before = text[:index].rstrip(" \"'(")
    return not before or before[-1] in ".!?:;"


def _is_month(text: str, match: re.Match) -> bool:
    """"May" the month, not "may" the verb: capitalised mid-sentence, or beside a day number."""
    if match[0].lower() != "may":
        return True
    after = text[match.end():match.end() + 6]
    if re.match(r"\s+\d", after) or re.search(r"\d(st|nd|rd|th)?\s+of\s+$", text[:match.start()]):
        return True
    return match[0][0] == "M" and not _sentence_start(text, match.start())


def _amount(text: str) -> str:
    try:
        value = Decimal(text)
    except InvalidOperation:
        return text
    return str(value.quantize(Decimal(1))) if value == value.to_integral_value() else str(value.normalize())
