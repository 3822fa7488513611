"""What a caller's time preference means, as a window the slot oracle can use.

The generator only says a day in a way that has one reading: a weekday is never
today's (so "Thursday" is the coming one), "next Tuesday" is only said where the
coming Tuesday falls in the next calendar week and "this Friday" only where it
falls in this one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from .slot_oracle import Window
from .spoken import WEEKDAYS, ordinal_suffix

PARTS = {"morning": (None, time(12, 0)), "afternoon": (time(12, 0), time(17, 0)), "evening": (time(17, 0), None)}


@dataclass(frozen=True)
class Preference:
    window: Window
    facts: dict[str, str]  # weekday, part, day_th for the phrasing
    described: str  # in plain words for the scenario's name: "Thursday afternoon"
    day: datetime | None  # the one day meant, when it is one day


def _midnight(moment: datetime) -> datetime:
    return datetime.combine(moment.date(), time())


def _day_window(day: datetime, part: str | None) -> Window:
    day_from, day_to = PARTS[part] if part else (None, None)
    return Window(day, day + timedelta(days=1), day_from, day_to)


def coming(now: datetime, weekday: int) -> datetime:
    """The next `weekday` after today (never today)."""
    ahead = (weekday - now.weekday()) % 7 or 7
    return _midnight(now) + timedelta(days=ahead)


def meaning_days(meaning: str, now: datetime, open_days: list[int]) -> list[int]:
    """The weekdays a phrasing with this meaning can name without a second reading."""
    today = now.weekday()
    others = [d for d in open_days if d != today]
    if meaning == "this_day":
        return [d for d in others if d > today]
    if meaning == "next_day_part":
        return [d for d in others if d < today]
    return others


def preference(meaning: str, now: datetime, rng: random.Random, open_days: list[int], *,
               weekday: int | None = None, part: str | None = None) -> Preference | None:
    """A window for `meaning` (phrasings.yaml time_preference `window`), drawn with `rng`;
    None where the meaning cannot be said today without a second reading."""
    today = _midnight(now)
    if meaning in ("soonest",):
        return Preference(Window(now), {}, "the soonest time", None)
    if meaning == "next_week":
        monday = today + timedelta(days=7 - now.weekday())
        return Preference(Window(monday, monday + timedelta(days=7)), {}, "any time next week", None)
    if meaning in ("tomorrow", "tomorrow_part"):
        day = today + timedelta(days=1)
        chosen = (part or rng.choice(list(PARTS))) if meaning == "tomorrow_part" else None
        described = f"tomorrow {chosen}" if chosen else "tomorrow"
        return Preference(_day_window(day, chosen), {"part": chosen or ""}, described, day)
    days = meaning_days(meaning, now, open_days)
    if weekday is not None:
        days = [d for d in days if d == weekday]
    if not days:
        return None
    chosen_day = rng.choice(days)
    day = coming(now, chosen_day)
    chosen_part = (part or rng.choice(list(PARTS))) if meaning in ("day_part", "next_day_part") else None
    facts = {"weekday": WEEKDAYS[chosen_day], "part": chosen_part or "", "day_th": ordinal_suffix(day.day)}
    described = WEEKDAYS[chosen_day] + (f" {chosen_part}" if chosen_part else "")
    if meaning == "date":
        described = f"{WEEKDAYS[chosen_day]} the {facts['day_th']}"
    return Preference(_day_window(day, chosen_part), facts, described, day)


def said_when(pref: Preference) -> str:
    """A short way to name the day in another sentence ("Thursday afternoon")."""
    return pref.described
