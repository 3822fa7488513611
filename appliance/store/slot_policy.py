"""Which slots the agent offers: SCENARIOS.md "Which slots the agent offers", exactly.

A pure function of the catalog, the opening hours, the booked appointments,
the request and `now`, so that a scenario can name the slot it expects.

- Candidate start times lie every 15 minutes from the start of each opening
  range; a candidate counts where the whole service fits inside that range,
  overlaps none of that practitioner's booked appointments (at any location),
  and starts strictly after `now`.
- A candidate that overlaps a block of its practitioner's (leave, a meeting)
  or a block of the whole clinic's (a closure day, a holiday) does not count
  for that practitioner.
- Practitioners considered: those who offer the service at the location (or
  only the one asked for), in clinic-file order; at each start time the first
  listed who is free takes it.
- The `count` earliest distinct start times inside the window are offered.
  When the window has no candidate within the horizon, the `count` earliest
  candidates after it are offered instead (`in_window=False`): from
  `window.end` when the window has an end, otherwise from the window's start
  (or `now`) ignoring its time-of-day filter.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from appliance.domain import ANYONE, AppointmentRecord, Catalog, DiaryBlock, Practitioner, Slot, TimeRange, TimeWindow

STEP = timedelta(minutes=15)


@dataclass(frozen=True)
class SlotOffer:
    slots: tuple[Slot, ...]  # at most `count`, earliest first, distinct start times
    in_window: bool  # False when the window had no candidate and these are the earliest after it

    @property
    def empty(self) -> bool:
        return not self.slots


def eligible_practitioners(
    catalog: Catalog, service_id: str, location_id: str, practitioner_id: str | None
) -> tuple[Practitioner, ...]:
    """Who can give this service at this site, in clinic-file order (only `practitioner_id` if given)."""
    chosen = None if practitioner_id in (None, ANYONE) else practitioner_id
    return tuple(
        p
        for p in catalog.practitioners
        if service_id in p.services and location_id in p.locations and (chosen is None or p.id == chosen)
    )


class BookingIndex:
    """Booked and blocked intervals per practitioner per day, for quick overlap checks.

    `offer_slots` builds one from a list; the store feeds one lazily from the
    database (a week at a time) through `offer_from_index`."""

    def __init__(self) -> None:
        self._by_day: dict[tuple[str, date], list[tuple[datetime, datetime]]] = defaultdict(list)
        self._blocks: dict[str, DiaryBlock] = {}

    @classmethod
    def of(cls, booked: Iterable[AppointmentRecord], practitioner_ids: set[str] | None = None,
           blocks: Iterable[DiaryBlock] = ()) -> BookingIndex:
        index = cls()
        for appointment in booked:
            if appointment.status == "booked" and (practitioner_ids is None or appointment.practitioner_id in practitioner_ids):
                index.add(appointment.practitioner_id, appointment.start, appointment.minutes)
        for block in blocks:
            index.add_block(block)
        return index

    def add_block(self, block: DiaryBlock) -> None:
        self._blocks[block.id] = block

    def block_at(self, practitioner_id: str, start: datetime, end: datetime) -> DiaryBlock | None:
        """The first block that takes [start, end) away from this practitioner, if any."""
        return next((b for b in self._blocks.values() if b.covers(practitioner_id, start, end)), None)

    def add(self, practitioner_id: str, start: datetime, minutes: int) -> None:
        end = start + timedelta(minutes=minutes)
        day = start.date()
        while True:  # an appointment past midnight blocks both days
            self._by_day[(practitioner_id, day)].append((start, end))
            day += timedelta(days=1)
            if datetime.combine(day, datetime.min.time()) >= end:
                break

    def booked(self, practitioner_id: str, start: datetime, end: datetime) -> bool:
        return any(start < booked_end and booked_start < end
                   for booked_start, booked_end in self._by_day.get((practitioner_id, start.date()), ()))

    def free(self, practitioner_id: str, start: datetime, end: datetime) -> bool:
        return not self.booked(practitioner_id, start, end) and self.block_at(practitioner_id, start, end) is None


def _starts_in(day: date, ranges: tuple[TimeRange, ...], length: timedelta) -> list[tuple[datetime, datetime]]:
    """(start, end) of every 15-minute candidate on `day` where `length` fits inside its range."""
    starts: dict[datetime, datetime] = {}
    for opening in ranges:
        start = datetime.combine(day, opening.start)
        close = datetime.combine(day, opening.end)
        while start + length <= close:
            starts.setdefault(start, start + length)
            start += STEP
    return sorted(starts.items())


def offer_slots(
    *,
    catalog: Catalog,
    hours: dict[int, tuple[TimeRange, ...]],
    booked: Iterable[AppointmentRecord],
    service_id: str,
    location_id: str,
    practitioner_id: str | None,
    window: TimeWindow,
    now: datetime,
    count: int = 2,
    horizon_days: int = 90,
    blocks: Iterable[DiaryBlock] = (),
) -> SlotOffer:
    """The slots to offer for one request (see the module docstring for the policy)."""
    ids = {p.id for p in eligible_practitioners(catalog, service_id, location_id, practitioner_id)}
    return offer_from_index(
        catalog=catalog,
        hours=hours,
        bookings=BookingIndex.of(booked, ids, blocks),
        service_id=service_id,
        location_id=location_id,
        practitioner_id=practitioner_id,
        window=window,
        now=now,
        count=count,
        horizon_days=horizon_days,
    )


def window_close(window: TimeWindow) -> datetime | None:
    """When the window is over: "Tuesday morning" closes at Tuesday 12:00, not at midnight."""
    if window.end is None:
        return None
    if window.time_to is not None:
        last_day = (window.end - timedelta(microseconds=1)).date()
        return min(window.end, datetime.combine(last_day, window.time_to))
    return window.end


def offer_from_index(
    *,
    catalog: Catalog,
    hours: dict[int, tuple[TimeRange, ...]],
    bookings: BookingIndex,
    service_id: str,
    location_id: str,
    practitioner_id: str | None,
    window: TimeWindow,
    now: datetime,
    count: int = 2,
    horizon_days: int = 90,
) -> SlotOffer:
    """`offer_slots` with the bookings already indexed (or loaded on demand)."""
    try:
        service = catalog.service(service_id)
    except StopIteration:
        raise ValueError(f"unknown service {service_id!r}") from None
    practitioners = eligible_practitioners(catalog, service_id, location_id, practitioner_id)
    if count <= 0 or not practitioners:
        return SlotOffer((), True)
    length = timedelta(minutes=service.minutes)

    # Nothing before the window's start can be offered, in or after the window.
    first_day = now.date()
    if window.start is not None and window.start.date() > first_day:
        first_day = window.start.date()
    fallback_from = window_close(window) or max(now, window.start or now)

    inside: list[Slot] = []
    after: list[Slot] = []
    last_day = now.date() + timedelta(days=horizon_days)
    day = first_day
    while day < last_day:
        if window.end is not None and datetime.combine(day, datetime.min.time()) >= window.end:
            # Past the window: no more candidates inside it.
            if inside or len(after) >= count:
                break
        for start, end in _starts_in(day, hours.get(day.weekday(), ()), length):
            if start <= now or day in window.not_on:   # a day the caller cannot do is never offered, even after
                continue
            is_inside = window.contains(start)
            if not is_inside and (start < fallback_from or len(after) >= count):
                continue
            taker = next((p for p in practitioners if bookings.free(p.id, start, end)), None)
            if taker is None:
                continue
            slot = Slot(start=start, service_id=service_id, practitioner_id=taker.id, location_id=location_id, minutes=service.minutes)
            if is_inside:
                inside.append(slot)
                if len(inside) >= count:
                    return SlotOffer(tuple(inside), True)
            else:
                after.append(slot)
        day += timedelta(days=1)

    if inside:
        return SlotOffer(tuple(inside), True)
    return SlotOffer(tuple(after[:count]), False)


def is_candidate(
    *,
    catalog: Catalog,
    hours: dict[int, tuple[TimeRange, ...]],
    booked: Iterable[AppointmentRecord],
    slot: Slot,
    blocks: Iterable[DiaryBlock] = (),
) -> str | None:
    """Why `slot` is not a bookable candidate under this policy, or None when it is.

    (`now` is not checked here: the caller's clock decides what is past.)"""
    try:
        service = catalog.service(slot.service_id)
    except StopIteration:
        return f"unknown service {slot.service_id!r}"
    if not eligible_practitioners(catalog, slot.service_id, slot.location_id, slot.practitioner_id) or (
        slot.practitioner_id in (None, ANYONE)
    ):
        return (
            f"practitioner {slot.practitioner_id!r} does not offer {slot.service_id!r} at location {slot.location_id!r}"
        )
    if slot.minutes != service.minutes:
        return f"the slot is {slot.minutes} minutes but {slot.service_id!r} takes {service.minutes}"
    length = timedelta(minutes=service.minutes)
    end = slot.start + length
    if not any(start == slot.start for start, _ in _starts_in(slot.start.date(), hours.get(slot.start.weekday(), ()), length)):
        return "the slot is not a start time within opening hours"
    index = BookingIndex.of(booked, {slot.practitioner_id}, blocks)
    if index.booked(slot.practitioner_id, slot.start, end):
        return "the practitioner is booked at that time"
    block = index.block_at(slot.practitioner_id, slot.start, end)
    if block is not None:
        return f"the time is blocked ({blocked_what(block)})"
    return None


def blocked_what(block: DiaryBlock) -> str:
    """A block in words for a refusal: whose, when and why (no patient data in it)."""
    whose = block.practitioner_id or "the whole clinic"
    return f"{whose} {block.start:%Y-%m-%d %H:%M} to {block.end:%Y-%m-%d %H:%M}" + (
        f": {block.reason}" if block.reason else "")
