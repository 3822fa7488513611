"""One day of the diary as the Diary screen draws it: a column per practitioner and location, a row per
15 minutes, from the store (the same reads the phone path uses)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from ..domain import DiaryBlock
from ..store.backend import database_over
from ..store.clinic_store import ClinicStore, DiaryEntry, NoClinic
from .database_access import Connection

STEP = timedelta(minutes=15)
DEFAULT_HOURS = (8, 18)     # the rows shown on a day the clinic is not open, so blocks can still be seen


@dataclass(frozen=True)
class DiaryColumn:
    practitioner_id: str
    practitioner: str
    location_id: str
    location: str
    services: tuple[str, ...]      # service ids the practitioner gives (a booking's default is the first)


@dataclass
class DiaryDay:
    day: date
    columns: list[DiaryColumn]
    rows: list[datetime]
    entries: list[DiaryEntry]
    blocks: list[DiaryBlock]
    open_ranges: list[tuple[datetime, datetime]]
    service_names: dict[str, str] = field(default_factory=dict)
    note: str | None = None

    def entry_at(self, column: DiaryColumn, row: datetime) -> DiaryEntry | None:
        """The appointment in this column that covers the row's 15 minutes."""
        for entry in self.entries:
            a = entry.appointment
            if (a.practitioner_id == column.practitioner_id and a.location_id == column.location_id
                    and a.start < row + STEP and row < a.start + timedelta(minutes=a.minutes)):
                return entry
        return None

    def block_at(self, column: DiaryColumn, row: datetime) -> DiaryBlock | None:
        return next((b for b in self.blocks if b.covers(column.practitioner_id, row, row + STEP)), None)

    def is_open(self, row: datetime) -> bool:
        return any(start <= row < end for start, end in self.open_ranges)

    def in_block(self, entry: DiaryEntry) -> bool:
        a = entry.appointment
        end = a.start + timedelta(minutes=a.minutes)
        return any(b.covers(a.practitioner_id, a.start, end) for b in self.blocks)


def clinic_store(conn: Connection) -> ClinicStore:
    """The store over the monitor's own connection (read-only when that is all the monitor may do)."""
    return ClinicStore(database_over(conn))


def diary_day(store: ClinicStore, day: date) -> DiaryDay:
    midnight = datetime.combine(day, datetime.min.time())
    following = midnight + timedelta(days=1)
    try:
        catalog, hours = store.catalog(), store.profile().hours
    except NoClinic:
        return DiaryDay(day, [], [], [], [], [], note="the database holds no clinic")
    locations = {loc.id: loc.name for loc in catalog.locations}
    columns = [DiaryColumn(p.id, p.name, loc_id, locations.get(loc_id, loc_id), p.services)
               for p in catalog.practitioners for loc_id in p.locations]
    entries = store.diary_between(midnight, following)
    blocks = store.blocks_between(midnight, following)
    open_ranges = [(datetime.combine(day, r.start), datetime.combine(day, r.end)) for r in hours.get(day.weekday(), ())]
    note = None if open_ranges else "the clinic is not open on this weekday"
    first = min((start for start, _ in open_ranges), default=midnight.replace(hour=DEFAULT_HOURS[0]))
    last = max((end for _, end in open_ranges), default=midnight.replace(hour=DEFAULT_HOURS[1]))
    for entry in entries:     # an appointment outside the hours is still shown
        a = entry.appointment
        first = min(first, max(midnight, a.start))
        last = max(last, min(following, a.start + timedelta(minutes=a.minutes)))
    first = first.replace(minute=first.minute - first.minute % 15)
    rows = []
    row = first
    while row < last:
        rows.append(row)
        row += STEP
    return DiaryDay(day, columns, rows, entries, blocks, open_ranges,
                    {s.id: s.name for s in catalog.services}, note)
