"""Value types shared by the clinic store, the understanding rules and the engine.

Everything here is plain, immutable data with no I/O, so every layer can
import it without pulling in another layer. Times are clinic-local and naive:
the clinic's timezone is applied once, by the clock, at the edge.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime, time

from anyascii import anyascii

# The one value a caller can give for "practitioner" that is not a practitioner.
ANYONE = "anyone"


@dataclass(frozen=True)
class Location:
    id: str
    name: str
    address: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Service:
    id: str
    name: str
    minutes: int
    price: float
    aliases: tuple[str, ...] = ()
    description: str | None = None


@dataclass(frozen=True)
class Practitioner:
    id: str
    name: str
    services: tuple[str, ...]
    locations: tuple[str, ...]
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Catalog:
    """What the clinic offers: enough to understand and answer a caller,
    with no patient data in it. Order is the clinic file's order, which the
    slot policy uses to break ties between practitioners."""

    services: tuple[Service, ...]
    locations: tuple[Location, ...]
    practitioners: tuple[Practitioner, ...]

    def service(self, service_id: str) -> Service:
        return next(s for s in self.services if s.id == service_id)

    def location(self, location_id: str) -> Location:
        return next(loc for loc in self.locations if loc.id == location_id)

    def practitioner(self, practitioner_id: str) -> Practitioner:
        return next(p for p in self.practitioners if p.id == practitioner_id)


@dataclass(frozen=True)
class TimeRange:
    start: time
    end: time


@dataclass(frozen=True)
class Region:
    """What differs between countries: how dates and phone numbers are written and which words callers use
    for paying (config/regions.yaml; `appliance/clinic/regions.py` reads it)."""

    code: str                                  # ISO country code, e.g. "GB"
    date_order: str = "DMY"                    # "DMY" or "MDY": how a date in figures is read
    phone_region: str = ""                     # numbering plan for a number said without country code
    currency_symbol: str = "$"
    crisis_number: str | None = None
    billing_terms: tuple[str, ...] = ()        # this country's words for paying for care
    words: tuple[tuple[str, str], ...] = ()    # (regional word, the general word it means)
    clipped_endings: tuple[str, ...] = ()      # endings callers clip a place's name to (its first letters + "o")
    town_centre_names: tuple[str, ...] = ()    # words in the name of a site in the middle of town ("city", "cbd")
    town_centre_said: tuple[str, ...] = ()     # how callers say they mean it ("in town", "downtown")

    @property
    def day_first(self) -> bool:
        return self.date_order == "DMY"


@dataclass(frozen=True)
class ClinicProfile:
    """The clinic's public facts: what the receptionist may say to anyone."""

    name: str
    timezone: str
    phone: str
    emergency_number: str
    transfer_number: str | None
    crisis_number: str
    region: str  # ISO country code for phone numbers and date order, e.g. "AU"
    currency_symbol: str
    # weekday index (0 = Monday) -> open ranges; a missing day is closed
    hours: dict[int, tuple[TimeRange, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class TimeWindow:
    """When the caller wants to be seen, as a filter on slot start times.

    `start`/`end` bound the start datetime (end exclusive, None = open);
    `time_from`/`time_to` restrict the time of day (time_to exclusive).
    A window with nothing set means "soonest"."""

    label: str
    start: datetime | None = None
    end: datetime | None = None
    time_from: time | None = None
    time_to: time | None = None
    not_on: tuple[date, ...] = ()   # days the caller said they cannot do

    def contains(self, moment: datetime) -> bool:
        if self.not_on and moment.date() in self.not_on:
            return False
        if self.start is not None and moment < self.start:
            return False
        if self.end is not None and moment >= self.end:
            return False
        if self.time_from is not None and moment.time() < self.time_from:
            return False
        if self.time_to is not None and moment.time() >= self.time_to:
            return False
        return True


@dataclass(frozen=True)
class Slot:
    """A bookable start time for one service with one practitioner at one site."""

    start: datetime
    service_id: str
    practitioner_id: str
    location_id: str
    minutes: int

    @property
    def key(self) -> str:
        return f"{self.start:%Y-%m-%dT%H:%M}|{self.service_id}|{self.practitioner_id}|{self.location_id}"


@dataclass(frozen=True)
class PatientRecord:
    id: str
    first_name: str
    last_name: str
    dob: date
    phone: str | None

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}"


@dataclass(frozen=True)
class AppointmentRecord:
    id: str
    patient_id: str
    service_id: str
    practitioner_id: str
    location_id: str
    start: datetime
    minutes: int
    status: str  # "booked" | "cancelled"
    rescheduled_from: str | None = None


@dataclass(frozen=True)
class DiaryBlock:
    """Time nobody may be booked in: one practitioner's (leave, a meeting) or, with no practitioner, the whole
    clinic's (a closure, a public holiday). `end` is exclusive."""

    id: str
    practitioner_id: str | None
    start: datetime
    end: datetime
    reason: str | None = None

    def covers(self, practitioner_id: str, start: datetime, end: datetime) -> bool:
        """True when [start, end) with `practitioner_id` overlaps this block."""
        mine = self.practitioner_id is None or self.practitioner_id == practitioner_id
        return mine and start < self.end and self.start < end


def fold_name(text: str) -> str:
    """How names are compared everywhere: in the Latin letters a caller says them with ("Søren Ødegaard" as
    "soren odegaard", "Dóe" as "doe"), case-folded, single-spaced. Names are stored as given; only
    comparisons fold."""
    return " ".join(anyascii(unicodedata.normalize("NFC", text)).casefold().split())
