"""Practitioners' calendars: one iCalendar file per practitioner, for any calendar app to subscribe to.

`<data folder>/calendars/<practitioner id>.ics` holds the practitioner's
booked appointments and blocks (their own and the whole clinic's) from
`DAYS_BACK` days ago to `DAYS_AHEAD` days ahead, in the clinic's timezone. A
feed names no patient: an appointment is its service; with `[data]
calendar_initials = true` the patient's initials are added ("S.J."), never
more. Files are written whole and renamed into place (a subscriber never reads
half a file), 0640 like the database, and only when the diary has changed
since they were last written (`CalendarFeeds.refresh`).
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar

from ..store.backend import is_postgres
from ..store.clinic_store import ClinicStore, DiaryEntry
from ..store.database import DATABASE_MODE, open_database

log = logging.getLogger("appliance.calendars")

DAYS_BACK = 30
DAYS_AHEAD = 180
PRODUCT_ID = "-//Clinic receptionist appliance//practitioner diary//EN"
FOLDER_MODE = 0o750


def calendar_folder(db_path: str | Path) -> Path:
    """Beside the database, in the data folder: <data>/calendars. With the shared PostgreSQL store, which has no
    folder, the box's own data folder ([paths] data_dir): each box writes the whole group's diary there."""
    if is_postgres(db_path):
        from ..settings import load_settings

        return load_settings(warn=False).paths.data_dir / "calendars"
    return Path(db_path).resolve().parent / "calendars"


def initials(first_name: str, last_name: str) -> str:
    return "".join(f"{part[0].upper()}." for part in (*first_name.split()[:1], last_name) if part)


def practitioner_calendar(store: ClinicStore, practitioner_id: str, *, since: datetime, until: datetime,
                          with_initials: bool = False, entries: list[DiaryEntry] | None = None) -> icalendar.Calendar:
    """The practitioner's diary over [since, until) (clinic-local times) as a calendar."""
    catalog = store.catalog()
    zone = ZoneInfo(store.profile().timezone)
    practitioner = next(p for p in catalog.practitioners if p.id == practitioner_id)
    services = {s.id: s for s in catalog.services}
    locations = {loc.id: loc for loc in catalog.locations}
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODUCT_ID)
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", f"{practitioner.name} ({store.profile().name})")
    calendar.add("x-wr-timezone", str(zone))
    stamp = datetime.now(ZoneInfo("UTC")).replace(microsecond=0)
    for entry in entries if entries is not None else store.diary_between(since, until):
        appointment = entry.appointment
        if appointment.practitioner_id != practitioner_id:
            continue
        service, location = services[appointment.service_id], locations[appointment.location_id]
        event = icalendar.Event()
        event.add("uid", f"{appointment.id}@appliance")
        event.add("dtstamp", stamp)
        event.add("dtstart", appointment.start.replace(tzinfo=zone))
        event.add("dtend", (appointment.start + timedelta(minutes=appointment.minutes)).replace(tzinfo=zone))
        who = f" – {initials(entry.first_name, entry.last_name)}" if with_initials else ""
        event.add("summary", f"{service.name}{who}")
        event.add("location", f"{location.name}, {location.address}")
        event.add("status", "CONFIRMED")
        event.add("categories", ["appointment"])
        calendar.add_component(event)
    for block in store.blocks_between(since, until):
        if block.practitioner_id not in (None, practitioner_id):
            continue
        event = icalendar.Event()
        event.add("uid", f"{block.id}@appliance")
        event.add("dtstamp", stamp)
        event.add("dtstart", block.start.replace(tzinfo=zone))
        event.add("dtend", block.end.replace(tzinfo=zone))
        whose = "Clinic closed" if block.practitioner_id is None else "Blocked"
        event.add("summary", f"{whose}: {block.reason}" if block.reason else whose)
        event.add("transp", "OPAQUE")
        event.add("categories", ["block"])
        calendar.add_component(event)
    calendar.add_missing_timezones()
    return calendar


def write_feeds(store: ClinicStore, folder: str | Path, *, now: datetime, with_initials: bool = False) -> list[Path]:
    """Write every practitioner's feed into `folder` (created 0750); returns the files written."""
    folder = Path(folder)
    folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    since = datetime.combine(now.date() - timedelta(days=DAYS_BACK), datetime.min.time())
    until = since + timedelta(days=DAYS_BACK + DAYS_AHEAD)
    entries = store.diary_between(since, until)
    written = []
    for practitioner in store.catalog().practitioners:
        calendar = practitioner_calendar(store, practitioner.id, since=since, until=until,
                                         with_initials=with_initials, entries=entries)
        target = folder / f"{practitioner.id}.ics"
        _write_whole(target, calendar.to_ical())
        written.append(target)
    return written


def _write_whole(target: Path, data: bytes) -> None:
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".writing")
    try:
        os.fchmod(fd, DATABASE_MODE)
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _initials_setting() -> bool:
    try:
        from ..settings import load_settings

        return load_settings(warn=False).data.calendar_initials
    except Exception:    # a broken config is reported by the service itself; the feeds stay nameless
        return False


class CalendarFeeds:
    """Keeps the feeds of the database at `db_path` (a file, or the shared store's address) up to date:
    `refresh()` after anything that may have changed the diary; it rewrites them only when the diary did
    change. Safe from any thread."""

    def __init__(self, db_path: str | Path, *, folder: str | Path | None = None, with_initials: bool | None = None):
        self.db_path = db_path if is_postgres(db_path) else Path(db_path)
        self.folder = Path(folder) if folder is not None else calendar_folder(db_path)
        self.with_initials = _initials_setting() if with_initials is None else with_initials
        self._lock = threading.Lock()
        self._written: tuple | None = None

    def refresh(self) -> bool:
        """True when the feeds were rewritten. Never raises: a feed problem must not undo a booking's success."""
        with self._lock:
            try:
                db = open_database(self.db_path)
            except Exception as exc:
                log.error("calendar feeds not written: %s", exc)
                return False
            try:
                store = ClinicStore(db)
                now = store.now()
                fingerprint = (now.date(), *store.diary_fingerprint())
                if fingerprint == self._written:
                    return False
                write_feeds(store, self.folder, now=now, with_initials=self.with_initials)
                self._written = fingerprint
                return True
            except Exception as exc:
                log.error("calendar feeds not written to %s: %s: %s", self.folder, type(exc).__name__, exc)
                return False
            finally:
                db.close()
