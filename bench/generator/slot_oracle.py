"""Which slots the agent should offer, worked out from shared/SCENARIOS.md alone.

This is the generator's own reading of "Which slots the agent offers", written
apart from the product's slot code so that a scenario's expected slot is an
independent check of it:

- candidates every 15 minutes from the start of each opening range, where the whole
  service fits inside the range, the practitioner has no booked appointment
  overlapping it, and it starts after `now`;
- the two earliest distinct start times in the caller's window, across the
  practitioners who give the service at the site; at each time the practitioner
  listed first in the clinic file who is free takes it;
- when the window has none, the two earliest candidates after the window.

It works on the scenario format's clinic mapping (hours as "HH:MM-HH:MM" text).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

STEP = timedelta(minutes=15)
DAY_KEYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


@dataclass(frozen=True)
class Window:
    """The times a caller asked for: starts in [start, end), and, when given, a time of day
    in [day_from, day_to) ("morning" is before 12:00)."""

    start: datetime
    end: datetime | None = None
    day_from: time | None = None
    day_to: time | None = None

    def contains(self, moment: datetime) -> bool:
        if moment < self.start or (self.end is not None and moment >= self.end):
            return False
        if self.day_from is not None and moment.time() < self.day_from:
            return False
        return not (self.day_to is not None and moment.time() >= self.day_to)

    def over_at(self) -> datetime | None:
        """When the window is over: "Tuesday morning" is over at Tuesday 12:00."""
        if self.end is None:
            return None
        if self.day_to is not None:
            last_day = (self.end - timedelta(microseconds=1)).date()
            return min(self.end, datetime.combine(last_day, self.day_to))
        return self.end


@dataclass(frozen=True)
class Slot:
    start: datetime
    practitioner: str
    location: str
    service: str


@dataclass(frozen=True)
class Offer:
    slots: tuple[Slot, ...]
    in_window: bool  # False: the window had nothing and these are the first after it


def opening_ranges(clinic: dict[str, Any], day: date) -> list[tuple[datetime, datetime]]:
    ranges = []
    for text in (clinic.get("hours") or {}).get(DAY_KEYS[day.weekday()], []) or []:
        first, last = (part.strip() for part in text.split("-"))
        ranges.append((datetime.combine(day, time.fromisoformat(first)), datetime.combine(day, time.fromisoformat(last))))
    return sorted(ranges)


def candidate_starts(clinic: dict[str, Any], day: date, minutes: int) -> list[datetime]:
    """Every quarter hour from each range's opening where `minutes` fit before that range closes."""
    length = timedelta(minutes=minutes)
    starts = []
    for opens, closes in opening_ranges(clinic, day):
        moment = opens
        while moment + length <= closes:
            starts.append(moment)
            moment += STEP
    return sorted(set(starts))


def booked_times(clinic: dict[str, Any]) -> dict[str, list[tuple[datetime, datetime]]]:
    """Practitioner -> (start, end) of each booked appointment, at any site."""
    minutes = {s["id"]: s["minutes"] for s in clinic["services"]}
    booked: dict[str, list[tuple[datetime, datetime]]] = {}
    for appt in clinic.get("appointments") or []:
        if appt.get("status", "booked") != "booked":
            continue
        start = _as_datetime(appt["start"])
        booked.setdefault(appt["practitioner"], []).append((start, start + timedelta(minutes=minutes[appt["service"]])))
    return booked


def _as_datetime(value: Any) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


def who_takes(clinic: dict[str, Any], service: str, location: str, start: datetime,
              practitioner: str | None = None, booked: dict[str, list[tuple[datetime, datetime]]] | None = None) -> str | None:
    """The practitioner listed first who gives `service` at `location` and is free then."""
    booked = booked_times(clinic) if booked is None else booked
    minutes = next(s["minutes"] for s in clinic["services"] if s["id"] == service)
    end = start + timedelta(minutes=minutes)
    for p in clinic["practitioners"]:
        if service not in p["services"] or location not in p["locations"]:
            continue
        if practitioner is not None and p["id"] != practitioner:
            continue
        if not any(start < taken_end and taken_start < end for taken_start, taken_end in booked.get(p["id"], ())):
            return p["id"]
    return None


def candidates(clinic: dict[str, Any], service: str, location: str, now: datetime, *,
               practitioner: str | None = None, days: int = 60):
    """Bookable slots from `now` on, earliest first, for `days` days."""
    minutes = next(s["minutes"] for s in clinic["services"] if s["id"] == service)
    booked = booked_times(clinic)
    for offset in range(days + 1):
        day = now.date() + timedelta(days=offset)
        for start in candidate_starts(clinic, day, minutes):
            if start <= now:
                continue
            taker = who_takes(clinic, service, location, start, practitioner, booked)
            if taker is not None:
                yield Slot(start, taker, location, service)


def offer(clinic: dict[str, Any], service: str, location: str, window: Window, now: datetime, *,
          practitioner: str | None = None, count: int = 2, days: int = 60) -> Offer:
    """The slots the agent offers for this request (see the module docstring)."""
    inside: list[Slot] = []
    after: list[Slot] = []
    over = window.over_at()
    for slot in candidates(clinic, service, location, now, practitioner=practitioner, days=days):
        if window.contains(slot.start):
            inside.append(slot)
            if len(inside) == count:
                break
        elif over is not None and slot.start >= over and len(after) < count:
            after.append(slot)
        if window.end is not None and slot.start >= window.end and (inside or len(after) >= count):
            break
    if inside:
        return Offer(tuple(inside), True)
    return Offer(tuple(after), False)
