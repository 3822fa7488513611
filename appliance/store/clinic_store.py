"""The clinic store: the one place the appliance reads and writes clinic data.

The engine's tools call these methods. Reads return the immutable types of
`appliance.domain`; writes check their business rules inside one transaction
and raise a `StoreError` subclass when a rule says no. On SQLite the transaction
takes the write lock first (BEGIN IMMEDIATE), so two processes cannot both take
a slot; on PostgreSQL (the shared store) two boxes may both find a slot free,
and the database's exclusion constraint refuses the second booking, which is
the same `SlotTaken`. The SQL is the same on both back ends but for what the
connection's dialect says (sqlite_sql.py, postgres_sql.py).

Times are clinic-local naive datetimes, stored as ISO text. The store does not
judge what is past: queries take `now` from the engine's clock, and the
injected `now()` only stamps created_at/cancelled_at columns.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import uuid
from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import phonenumbers

from appliance.clinic.schema import Clinic, is_plausible_phone
from appliance.domain import (
    AppointmentRecord,
    Catalog,
    ClinicProfile,
    DiaryBlock,
    Location,
    PatientRecord,
    Practitioner,
    Service,
    Slot,
    TimeRange,
    TimeWindow,
    fold_name,
)
from appliance.store.backend import dialect_of
from appliance.store.database import MAX_NAME_CHARS, MAX_PHONE_CHARS, MAX_TEXT_CHARS
from appliance.store.slot_policy import (BookingIndex, SlotOffer, blocked_what, eligible_practitioners, is_candidate,
                                         offer_from_index)

HORIZON_DAYS = 90


@dataclasses.dataclass(frozen=True)
class DiaryEntry:
    """A booked appointment as the front desk's diary shows it."""

    appointment: AppointmentRecord
    first_name: str
    last_name: str
    by_phone: bool                   # made on a call
    confirmed_aloud: bool | None     # None: not made on a call; False: the caller may not have heard it


class StoreError(Exception):
    """A write (or a request) broke a business rule; the message says which."""


class NoClinic(StoreError):
    """The database holds no clinic yet (build it from a clinic file first)."""


class ClinicAlreadyLoaded(StoreError):
    """load_clinic on a database that already holds a clinic."""


class UnknownReference(StoreError):
    """A service, location, practitioner or patient id that the clinic does not have."""


class PatientNotFound(UnknownReference):
    pass


class InvalidPatient(StoreError):
    """New patient details that cannot be stored (empty name, future date of birth, bad phone)."""


class InvalidSlot(StoreError):
    """A slot the slot policy could never offer (outside hours, off the 15-minute grid, wrong practitioner)."""


class SlotTaken(StoreError):
    """The slot was free when offered but is booked now."""


class SlotBlocked(SlotTaken):
    """The slot lies in a block (the practitioner is away, the clinic is closed): as good as taken."""


class InvalidBlock(StoreError):
    """A block that cannot be stored (ends before it starts, an unknown practitioner)."""


class BlockNotFound(StoreError):
    pass


class AppointmentNotFound(StoreError):
    pass


class AlreadyCancelled(StoreError):
    pass


class CallbackNotFound(StoreError):
    pass


class TextTooLong(StoreError):
    """A name or number longer than anyone's (MAX_NAME_CHARS, MAX_PHONE_CHARS): refused, never stored."""


def check_length(what: str, text: str | None, limit: int) -> None:
    if text is not None and len(text) > limit:
        raise TextTooLong(f"{what} is {len(text)} characters long; the store keeps at most {limit}")


def clip_text(text: str | None, limit: int = MAX_TEXT_CHARS) -> str | None:
    """A caller's own words kept to `limit` characters (a callback is worth more than the end of a long message)."""
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


class CallbackAlreadyDone(StoreError):
    pass


def uuid_ids(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _minute_text(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M")


def _second_text(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def name_key(text: str) -> str:
    """How names are compared (`domain.fold_name`): case and accents folded, extra spaces ignored."""
    return fold_name(text)


class ClinicStore:
    def __init__(
        self,
        db: Any,                        # sqlite_utils.Database, or postgres_database.PostgresDatabase
        *,
        new_id: Callable[[str], str] | None = None,
        now: Callable[[], datetime] | None = None,
    ):
        self.db = db
        self._new_id = new_id or uuid_ids
        self._now = now
        self._profile: ClinicProfile | None = None
        self._catalog: Catalog | None = None
        self.sql = dialect_of(db.conn)
        self.sql.prepare(db, name_key)

    # -- plumbing ------------------------------------------------------------

    def now(self) -> datetime:
        if self._now is not None:
            return self._now()
        try:
            zone = ZoneInfo(self.profile().timezone)
        except NoClinic:
            return datetime.now().replace(microsecond=0)
        return datetime.now(zone).replace(tzinfo=None, microsecond=0)

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        """One write transaction: both or neither. Nested use becomes a savepoint."""
        conn = self.db.conn
        if conn.in_transaction:
            with self.db.atomic():
                yield
            return
        with self.sql.durable(conn):
            conn.execute(self.sql.BEGIN_WRITE)
            try:
                yield
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            else:
                conn.execute("COMMIT")

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """Several store writes as one transaction (made durable: see database.durable_commits)."""
        return self._write()

    def _rows(self, sql: str, params: list[Any] | tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        cursor = self.db.conn.execute(sql, params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]

    def _insert(self, table: str, row: dict[str, Any]) -> None:
        columns = ", ".join(f'"{name}"' for name in row)
        marks = ", ".join("?" for _ in row)
        self.db.conn.execute(f'INSERT INTO "{table}" ({columns}) VALUES ({marks})', list(row.values()))

    # -- the clinic ----------------------------------------------------------

    def load_clinic(self, clinic: Clinic) -> None:
        """Write every clinic table from a validated `Clinic`, in one transaction.

        Only into a database without a clinic: build a new database to change it."""
        profile = clinic.profile()
        with self._write():
            if self.db.conn.execute("SELECT 1 FROM clinic").fetchone():
                raise ClinicAlreadyLoaded(
                    "this database already holds a clinic: build a new database from the clinic file instead"
                )
            self._insert(
                "clinic",
                {
                    "id": 1,
                    "name": profile.name,
                    "timezone": profile.timezone,
                    "phone": profile.phone,
                    "emergency_number": profile.emergency_number,
                    "transfer_number": profile.transfer_number,
                    "crisis_number": profile.crisis_number,
                    "currency_symbol": profile.currency_symbol,
                    "region": profile.region,
                },
            )
            for weekday, ranges in profile.hours.items():
                for opening in ranges:
                    self._insert(
                        "opening_hours",
                        {"weekday": weekday, "start": f"{opening.start:%H:%M}", "end": f"{opening.end:%H:%M}"},
                    )
            catalog = clinic.catalog()
            for position, location in enumerate(catalog.locations):
                self._insert(
                    "locations",
                    {
                        "id": location.id,
                        "position": position,
                        "name": location.name,
                        "address": location.address,
                        "aliases": json.dumps(list(location.aliases)),
                    },
                )
            for position, service in enumerate(catalog.services):
                self._insert(
                    "services",
                    {
                        "id": service.id,
                        "position": position,
                        "name": service.name,
                        "minutes": service.minutes,
                        "price": service.price,
                        "aliases": json.dumps(list(service.aliases)),
                        "description": service.description,
                    },
                )
            for position, practitioner in enumerate(catalog.practitioners):
                self._insert(
                    "practitioners",
                    {
                        "id": practitioner.id,
                        "position": position,
                        "name": practitioner.name,
                        "aliases": json.dumps(list(practitioner.aliases)),
                    },
                )
                for index, service_id in enumerate(practitioner.services):
                    self._insert(
                        "practitioner_services",
                        {"practitioner_id": practitioner.id, "service_id": service_id, "position": index},
                    )
                for index, location_id in enumerate(practitioner.locations):
                    self._insert(
                        "practitioner_locations",
                        {"practitioner_id": practitioner.id, "location_id": location_id, "position": index},
                    )
            for patient in clinic.patient_records():
                self._insert(
                    "patients",
                    {
                        "id": patient.id,
                        "first_name": patient.first_name,
                        "last_name": patient.last_name,
                        "dob": patient.dob.isoformat(),
                        "phone": patient.phone,
                    },
                )
            with self.sql.diary_as_is(self.db.conn):
                self._insert_diary(clinic)
            for block in clinic.block_records():
                self._insert_block(block, created_by="clinic file")
        self._profile = None
        self._catalog = None

    def _insert_diary(self, clinic: Clinic) -> None:
        for appointment in clinic.appointment_records():
            self._insert(
                "appointments",
                {
                    "id": appointment.id,
                    "patient_id": appointment.patient_id,
                    "service_id": appointment.service_id,
                    "practitioner_id": appointment.practitioner_id,
                    "location_id": appointment.location_id,
                    "start": _minute_text(appointment.start),
                    "minutes": appointment.minutes,
                    "status": appointment.status,
                },
            )

    def profile(self) -> ClinicProfile:
        if self._profile is None:
            rows = self._rows("SELECT * FROM clinic WHERE id = 1")
            if not rows:
                raise NoClinic("the database holds no clinic: build it from a clinic file first")
            row = rows[0]
            hours: dict[int, list[TimeRange]] = {}
            for item in self._rows('SELECT weekday, start, "end" FROM opening_hours ORDER BY weekday, start'):
                hours.setdefault(item["weekday"], []).append(
                    TimeRange(_time(item["start"]), _time(item["end"]))
                )
            self._profile = ClinicProfile(
                name=row["name"],
                timezone=row["timezone"],
                phone=row["phone"],
                emergency_number=row["emergency_number"],
                transfer_number=row["transfer_number"],
                crisis_number=row["crisis_number"],
                region=row["region"],
                currency_symbol=row["currency_symbol"],
                hours={weekday: tuple(ranges) for weekday, ranges in hours.items()},
            )
        return self._profile

    def catalog(self) -> Catalog:
        if self._catalog is None:
            links: dict[tuple[str, str], list[str]] = {}
            for table, column in (("practitioner_services", "service_id"), ("practitioner_locations", "location_id")):
                for row in self._rows(f"SELECT practitioner_id, {column} AS ref FROM {table} ORDER BY position"):
                    links.setdefault((table, row["practitioner_id"]), []).append(row["ref"])
            self._catalog = Catalog(
                services=tuple(
                    Service(
                        id=row["id"],
                        name=row["name"],
                        minutes=row["minutes"],
                        price=row["price"],
                        aliases=tuple(json.loads(row["aliases"])),
                        description=row["description"],
                    )
                    for row in self._rows("SELECT * FROM services ORDER BY position")
                ),
                locations=tuple(
                    Location(
                        id=row["id"], name=row["name"], address=row["address"], aliases=tuple(json.loads(row["aliases"]))
                    )
                    for row in self._rows("SELECT * FROM locations ORDER BY position")
                ),
                practitioners=tuple(
                    Practitioner(
                        id=row["id"],
                        name=row["name"],
                        services=tuple(links.get(("practitioner_services", row["id"]), ())),
                        locations=tuple(links.get(("practitioner_locations", row["id"]), ())),
                        aliases=tuple(json.loads(row["aliases"])),
                    )
                    for row in self._rows("SELECT * FROM practitioners ORDER BY position")
                ),
            )
        return self._catalog

    # -- patients ------------------------------------------------------------

    def _normal_phone(self, phone: str | None, *, strict: bool) -> str | None:
        """E.164 for a number in the clinic's region; strict=False passes unparsable text through."""
        if phone is None or not str(phone).strip():
            return None
        try:
            region = self.profile().region
        except NoClinic:
            region = None
        try:
            number = phonenumbers.parse(str(phone), region)
            if not is_plausible_phone(number):
                raise phonenumbers.NumberParseException(0, "not possible")
        except phonenumbers.NumberParseException:
            if strict:
                raise InvalidPatient(f"{phone!r} is not a phone number") from None
            return str(phone).strip()
        return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)

    def patient(self, patient_id: str) -> PatientRecord | None:
        rows = self._rows("SELECT * FROM patients WHERE id = ?", [patient_id])
        return _patient(rows[0]) if rows else None

    def patients_with_phone(self, phone_e164: str) -> list[PatientRecord]:
        phone = self._normal_phone(phone_e164, strict=False)
        if phone is None:
            return []
        return [_patient(row) for row in self._rows("SELECT * FROM patients WHERE phone = ? ORDER BY rowid", [phone])]

    def patients_born_on(self, dob: date) -> list[PatientRecord]:
        return [_patient(row) for row in self._rows("SELECT * FROM patients WHERE dob = ? ORDER BY rowid", [dob.isoformat()])]

    def patients_named(self, first: str | None, last: str) -> list[PatientRecord]:
        """Patients whose last name (and first given name, when given) match, ignoring case and accents."""
        if not last or not name_key(last):
            return []
        cursor = self.sql.patients_with_name_key(self.db.conn, name_key(last), name_key)
        names = [d[0] for d in cursor.description]
        patients = [_patient(dict(zip(names, row))) for row in cursor.fetchall()]
        if first and name_key(first):
            # the first given name is enough: "Jane" on file is "Jane Ann" said, and the other way round
            wanted = name_key(first).split()[0]
            patients = [p for p in patients if name_key(p.first_name).split()[:1] == [wanted]]
        return patients

    def create_patient(
        self, *, first_name: str, last_name: str, dob: date, phone: str | None, call_id: str | None = None
    ) -> PatientRecord:
        first = " ".join(str(first_name or "").split())
        last = " ".join(str(last_name or "").split())
        if not first or not last:
            raise InvalidPatient("a new patient needs a first and a last name")
        try:
            check_length("the first name", first, MAX_NAME_CHARS)
            check_length("the last name", last, MAX_NAME_CHARS)
            check_length("the phone number", phone, MAX_PHONE_CHARS)
        except TextTooLong as error:
            raise InvalidPatient(str(error)) from None
        if not isinstance(dob, date) or isinstance(dob, datetime):
            raise InvalidPatient(f"date of birth must be a date, not {dob!r}")
        created = self.now()
        if dob > created.date():
            raise InvalidPatient(f"date of birth {dob.isoformat()} is in the future")
        record = PatientRecord(
            id=self._new_id("pat"),
            first_name=first,
            last_name=last,
            dob=dob,
            phone=self._normal_phone(phone, strict=True),
        )
        with self._write():
            self._insert(
                "patients",
                {
                    "id": record.id,
                    "first_name": record.first_name,
                    "last_name": record.last_name,
                    "dob": record.dob.isoformat(),
                    "phone": record.phone,
                    "created_at": _second_text(created),
                    "created_by_call": call_id,
                },
            )
        return record

    def patients_created_by_call(self, call_id: str) -> list[PatientRecord]:
        return [
            _patient(row) for row in self._rows("SELECT * FROM patients WHERE created_by_call = ? ORDER BY rowid", [call_id])
        ]

    # -- appointments --------------------------------------------------------

    def appointment(self, appointment_id: str) -> AppointmentRecord | None:
        rows = self._rows("SELECT * FROM appointments WHERE id = ?", [appointment_id])
        return _appointment(rows[0]) if rows else None

    def upcoming_appointments(self, patient_id: str, now: datetime) -> list[AppointmentRecord]:
        rows = self._rows(
            "SELECT * FROM appointments WHERE patient_id = ? AND status = 'booked' AND start >= ? ORDER BY start, rowid",
            [patient_id, _minute_text(now)],
        )
        return [a for a in map(_appointment, rows) if a.start >= now]

    def appointments_for_call(self, call_id: str) -> list[AppointmentRecord]:
        """Every appointment row the call created or cancelled, in the order written."""
        rows = self._rows(
            "SELECT * FROM appointments WHERE created_by_call = ? OR cancelled_by_call = ? ORDER BY rowid",
            [call_id, call_id],
        )
        return [_appointment(row) for row in rows]

    def _booked_for(self, practitioner_ids: list[str], since: datetime, until: datetime | None) -> list[AppointmentRecord]:
        if not practitioner_ids:
            return []
        marks = ", ".join("?" for _ in practitioner_ids)
        sql = (
            "SELECT id, patient_id, service_id, practitioner_id, location_id, start, minutes, status, rescheduled_from "
            f"FROM appointments WHERE status = 'booked' AND practitioner_id IN ({marks}) AND start >= ?"
        )
        params: list[Any] = [*practitioner_ids, _minute_text(since)]
        if until is not None:
            sql += " AND start < ?"
            params.append(_minute_text(until))
        return [_appointment(row) for row in self._rows(sql, params)]

    def find_slots(
        self,
        *,
        service_id: str,
        location_id: str,
        practitioner_id: str | None,
        window: TimeWindow,
        now: datetime,
        count: int = 2,
    ) -> SlotOffer:
        """The slots to offer (SCENARIOS.md policy, see slot_policy.py). Bookings are
        read a week at a time as the search reaches them, so a soonest search on a
        full diary reads only the first week."""
        catalog = self.catalog()
        self._check_ids(catalog, service_id=service_id, location_id=location_id, practitioner_id=practitioner_id)
        practitioners = eligible_practitioners(catalog, service_id, location_id, practitioner_id)
        return offer_from_index(
            catalog=catalog,
            hours=self.profile().hours,
            bookings=_DiaryIndex(self, [p.id for p in practitioners], now.date()),
            service_id=service_id,
            location_id=location_id,
            practitioner_id=practitioner_id,
            window=window,
            now=now,
            count=count,
            horizon_days=HORIZON_DAYS,
        )

    def _check_ids(self, catalog: Catalog, *, service_id: str, location_id: str, practitioner_id: str | None) -> None:
        if not any(s.id == service_id for s in catalog.services):
            raise UnknownReference(f"unknown service {service_id!r}")
        if not any(loc.id == location_id for loc in catalog.locations):
            raise UnknownReference(f"unknown location {location_id!r}")
        if practitioner_id not in (None, "anyone") and not any(p.id == practitioner_id for p in catalog.practitioners):
            raise UnknownReference(f"unknown practitioner {practitioner_id!r}")

    def _slot_problem(self, slot: Slot) -> tuple[type[StoreError], str] | None:
        catalog = self.catalog()
        try:
            self._check_ids(
                catalog, service_id=slot.service_id, location_id=slot.location_id, practitioner_id=slot.practitioner_id
            )
        except UnknownReference as error:
            return InvalidSlot, str(error)
        day = datetime.combine(slot.start.date(), datetime.min.time())
        booked = self._booked_for([slot.practitioner_id], day - timedelta(days=1), day + timedelta(days=1))
        problem = is_candidate(catalog=catalog, hours=self.profile().hours, booked=(), slot=slot)
        if problem is not None:
            return InvalidSlot, f"{slot.key}: {problem}"
        problem = is_candidate(catalog=catalog, hours=self.profile().hours, booked=booked, slot=slot)
        if problem is not None:
            return SlotTaken, f"{slot.start:%Y-%m-%d %H:%M} with {slot.practitioner_id} is no longer free"
        end = slot.start + timedelta(minutes=slot.minutes)
        block = BookingIndex.of((), None, self.blocks_between(slot.start, end)).block_at(slot.practitioner_id,
                                                                                         slot.start, end)
        if block is not None:
            return SlotBlocked, f"{slot.start:%Y-%m-%d %H:%M} with {slot.practitioner_id} is blocked ({blocked_what(block)})"
        return None

    def slot_is_free(self, slot: Slot) -> bool:
        """True when `slot` is a start the policy could offer and nobody has booked over it.
        (Whether it is in the past is the caller's clock's business.)"""
        return self._slot_problem(slot) is None

    def _insert_appointment(
        self, *, patient_id: str, slot: Slot, call_id: str | None, rescheduled_from: str | None = None
    ) -> AppointmentRecord:
        record = AppointmentRecord(
            id=self._new_id("apt"),
            patient_id=patient_id,
            service_id=slot.service_id,
            practitioner_id=slot.practitioner_id,
            location_id=slot.location_id,
            start=slot.start.replace(second=0, microsecond=0),
            minutes=slot.minutes,
            status="booked",
            rescheduled_from=rescheduled_from,
        )
        row = {
                "id": record.id,
                "patient_id": record.patient_id,
                "service_id": record.service_id,
                "practitioner_id": record.practitioner_id,
                "location_id": record.location_id,
                "start": _minute_text(record.start),
                "minutes": record.minutes,
                "status": "booked",
                "rescheduled_from": rescheduled_from,
                "created_at": _second_text(self.now()),
                "created_by_call": call_id,
                # made on a call: not yet heard by the caller (records.py marks it once the reply was heard)
                "confirmed_aloud": 0 if call_id else None,
            }
        try:
            self._insert("appointments", row)
        except self.sql.INTEGRITY_ERRORS as error:
            # the database's own guards: SQLite's triggers (database.py), PostgreSQL's constraints and trigger
            # (postgres_schema.py), named alike
            if "slot_taken" in str(error):
                raise SlotTaken(f"{slot.start:%Y-%m-%d %H:%M} with {slot.practitioner_id} is no longer free") from None
            if "slot_blocked" in str(error):
                raise SlotBlocked(f"{slot.start:%Y-%m-%d %H:%M} with {slot.practitioner_id} is blocked") from None
            raise
        return record

    def create_appointment(self, *, patient_id: str, slot: Slot, call_id: str | None = None) -> AppointmentRecord:
        with self._write():
            if self.patient(patient_id) is None:
                raise PatientNotFound(f"no patient {patient_id!r}")
            problem = self._slot_problem(slot)
            if problem is not None:
                kind, message = problem
                raise kind(message)
            return self._insert_appointment(patient_id=patient_id, slot=slot, call_id=call_id)

    def _cancel(self, appointment_id: str, call_id: str | None) -> AppointmentRecord:
        current = self.appointment(appointment_id)
        if current is None:
            raise AppointmentNotFound(f"no appointment {appointment_id!r}")
        if current.status == "cancelled":
            raise AlreadyCancelled(f"appointment {appointment_id!r} is already cancelled")
        self.db.conn.execute(
            "UPDATE appointments SET status = 'cancelled', cancelled_at = ?, cancelled_by_call = ? WHERE id = ?",
            [_second_text(self.now()), call_id, appointment_id],
        )
        return dataclasses.replace(current, status="cancelled")

    def cancel_appointment(self, appointment_id: str, *, call_id: str | None = None) -> AppointmentRecord:
        with self._write():
            return self._cancel(appointment_id, call_id)

    def reschedule_appointment(
        self, appointment_id: str, slot: Slot, *, call_id: str | None = None
    ) -> tuple[AppointmentRecord, AppointmentRecord]:
        """Cancel the old appointment and book `slot` for the same patient, in one
        transaction: both happen or neither. The old booking does not block the new slot."""
        with self._write():
            old = self._cancel(appointment_id, call_id)
            problem = self._slot_problem(slot)
            if problem is not None:
                kind, message = problem
                raise kind(message)
            new = self._insert_appointment(
                patient_id=old.patient_id, slot=slot, call_id=call_id, rescheduled_from=old.id
            )
        return old, new

    # -- blocks: closures, leave, meetings, holidays ---------------------------

    def _insert_block(self, block: DiaryBlock, *, created_by: str) -> None:
        self._insert("diary_blocks", {
            "id": block.id, "practitioner_id": block.practitioner_id, "start": _minute_text(block.start),
            "end": _minute_text(block.end), "reason": block.reason, "created_at": _second_text(self.now()),
            "created_by": created_by})

    def blocks_between(self, since: datetime, until: datetime) -> list[DiaryBlock]:
        """Blocks in force that overlap [since, until), earliest first."""
        rows = self._rows('SELECT * FROM diary_blocks WHERE removed_at IS NULL AND start < ? AND "end" > ? '
                          "ORDER BY start, rowid", [_minute_text(until), _minute_text(since)])
        return [_block(row) for row in rows]

    def block(self, block_id: str) -> DiaryBlock | None:
        rows = self._rows("SELECT * FROM diary_blocks WHERE id = ? AND removed_at IS NULL", [block_id])
        return _block(rows[0]) if rows else None

    def add_block(self, *, practitioner_id: str | None, start: datetime, end: datetime, reason: str | None,
                  created_by: str) -> tuple[DiaryBlock, list[AppointmentRecord]]:
        """Block [start, end) for one practitioner (None: the whole clinic). Returns the block and the booked
        appointments already in it, which stay booked for staff to move or cancel: a block stops new bookings."""
        start, end = start.replace(second=0, microsecond=0), end.replace(second=0, microsecond=0)
        if not start < end:
            raise InvalidBlock(f"a block must end after it starts ({start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M})")
        if practitioner_id is not None and not any(p.id == practitioner_id for p in self.catalog().practitioners):
            raise InvalidBlock(f"unknown practitioner {practitioner_id!r}")
        reason = " ".join((reason or "").split()) or None
        check_length("the reason", reason, MAX_NAME_CHARS)
        block = DiaryBlock(id=self._new_id("blk"), practitioner_id=practitioner_id, start=start, end=end, reason=reason)
        with self._write():
            self._insert_block(block, created_by=created_by)
            clashes = [a for a in self.booked_between(start - timedelta(days=1), end)
                       if block.covers(a.practitioner_id, a.start, a.start + timedelta(minutes=a.minutes))]
        return block, clashes

    def remove_block(self, block_id: str, *, removed_by: str) -> DiaryBlock:
        with self._write():
            block = self.block(block_id)
            if block is None:
                raise BlockNotFound(f"no block {block_id!r} in force")
            self.db.conn.execute("UPDATE diary_blocks SET removed_at = ?, removed_by = ? WHERE id = ?",
                                 [_second_text(self.now()), removed_by, block_id])
        return block

    def booked_between(self, since: datetime, until: datetime) -> list[AppointmentRecord]:
        """Booked appointments starting in [since, until), by start."""
        rows = self._rows("SELECT * FROM appointments WHERE status = 'booked' AND start >= ? AND start < ? "
                          "ORDER BY start, rowid", [_minute_text(since), _minute_text(until)])
        return [_appointment(row) for row in rows]

    def diary_between(self, since: datetime, until: datetime) -> list[DiaryEntry]:
        """Booked appointments overlapping [since, until) with their patient's name, by start."""
        rows = self._rows(
            "SELECT a.*, p.first_name, p.last_name FROM appointments a JOIN patients p ON p.id = a.patient_id "
            "WHERE a.status = 'booked' AND a.start >= ? AND a.start < ? ORDER BY a.start, a.rowid",
            [_minute_text(since - timedelta(days=1)), _minute_text(until)])
        entries = [DiaryEntry(_appointment(row), row["first_name"], row["last_name"], row["created_by_call"] is not None,
                              None if row["confirmed_aloud"] is None else bool(row["confirmed_aloud"]))
                   for row in rows]
        return [e for e in entries if e.appointment.start + timedelta(minutes=e.appointment.minutes) > since]

    def diary_fingerprint(self) -> tuple[int, ...]:
        """Changes whenever the diary does (appointments are never deleted, only cancelled; blocks only removed)."""
        appointments = self.db.conn.execute(
            "SELECT count(*), count(CASE WHEN status = 'cancelled' THEN 1 END) FROM appointments").fetchone()
        blocks = self.db.conn.execute("SELECT count(*), count(removed_at) FROM diary_blocks").fetchone()
        return (*appointments, *blocks)

    # -- callbacks and waitlist ----------------------------------------------

    def add_callback_request(
        self,
        *,
        call_id: str | None,
        patient_id: str | None,
        name: str | None,
        phone: str | None,
        reason: str | None,
        urgency: str = "normal",
        unless_open_within: timedelta | None = None,
    ) -> str:
        """The new request's id. `unless_open_within`: when an open request with the same phone and reason was
        made that recently, that one's id instead, and nothing is written (one row for a caller who tries
        again and again)."""
        if urgency not in ("normal", "urgent"):
            raise ValueError(f"urgency must be 'normal' or 'urgent', not {urgency!r}")
        row = self.callback_row(call_id=call_id, patient_id=patient_id, name=name, phone=phone, reason=reason,
                                urgency=urgency)
        callback_id, phone, now = row["id"], row["phone"], datetime.fromisoformat(row["created_at"])
        with self._write():
            if patient_id is not None and self.patient(patient_id) is None:
                raise PatientNotFound(f"no patient {patient_id!r}")
            if unless_open_within is not None and phone is not None:
                rows = self._rows("SELECT id FROM callback_requests WHERE status = 'open' AND phone = ? "
                                  f"AND {self.sql.same('reason')} AND created_at >= ? ORDER BY created_at DESC LIMIT 1",
                                  [phone, reason, _second_text(now - unless_open_within)])
                if rows:
                    return rows[0]["id"]
            self._insert("callback_requests", row)
        return callback_id

    def callback_row(self, *, call_id: str | None, patient_id: str | None, name: str | None, phone: str | None,
                     reason: str | None, urgency: str = "normal") -> dict[str, Any]:
        """The row a new callback request is written as (checked, the number normalised, the words clipped):
        also what the fallback journal keeps when the database refuses it."""
        name = " ".join(name.split()) if name else name
        check_length("the caller's name", name, MAX_NAME_CHARS)
        phone = self._normal_phone(phone, strict=False)
        check_length("the phone number", phone, MAX_PHONE_CHARS)
        return {"id": self._new_id("cb"), "call_id": call_id, "patient_id": patient_id, "name": name, "phone": phone,
                "reason": clip_text(reason), "urgency": urgency, "created_at": _second_text(self.now()),
                "status": "open"}

    def callback_requests(self, status: str | None = "open", *, call_id: str | None = None) -> list[dict]:
        """Callback requests, urgent first, then oldest first. status None = all; call_id filters to one call."""
        if status not in (None, "open", "done"):
            raise ValueError(f"status must be 'open', 'done' or None, not {status!r}")
        where, params = [], []
        if status is not None:
            where.append("status = ?")
            params.append(status)
        if call_id is not None:
            where.append("call_id = ?")
            params.append(call_id)
        sql = "SELECT * FROM callback_requests"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY urgency = 'urgent' DESC, created_at, rowid"
        return self._rows(sql, params)

    def mark_callback_done(self, callback_id: str, *, done_by: str, note: str | None = None) -> None:
        with self._write():
            rows = self._rows("SELECT status FROM callback_requests WHERE id = ?", [callback_id])
            if not rows:
                raise CallbackNotFound(f"no callback request {callback_id!r}")
            if rows[0]["status"] == "done":
                raise CallbackAlreadyDone(f"callback request {callback_id!r} is already done")
            self.db.conn.execute(
                "UPDATE callback_requests SET status = 'done', done_by = ?, done_at = ?, note = ? WHERE id = ?",
                [done_by, _second_text(self.now()), clip_text(note, 2 * MAX_TEXT_CHARS), callback_id],
            )
            # calling the caller back is when staff confirm what their call booked (records.py: confirmed_aloud)
            self.db.conn.execute(
                "UPDATE appointments SET confirmed_aloud = 1 WHERE confirmed_aloud = 0 AND created_by_call IS NOT NULL "
                "AND created_by_call = (SELECT call_id FROM callback_requests WHERE id = ?)", [callback_id])

    def add_to_waitlist(
        self,
        *,
        call_id: str | None,
        patient_id: str | None,
        service_id: str | None,
        location_id: str | None,
        note: str | None,
    ) -> str:
        catalog = self.catalog()
        if service_id is not None and not any(s.id == service_id for s in catalog.services):
            raise UnknownReference(f"unknown service {service_id!r}")
        if location_id is not None and not any(loc.id == location_id for loc in catalog.locations):
            raise UnknownReference(f"unknown location {location_id!r}")
        entry_id = self._new_id("wl")
        with self._write():
            if patient_id is not None and self.patient(patient_id) is None:
                raise PatientNotFound(f"no patient {patient_id!r}")
            self._insert(
                "waitlist",
                {
                    "id": entry_id,
                    "call_id": call_id,
                    "patient_id": patient_id,
                    "service_id": service_id,
                    "location_id": location_id,
                    "note": note,
                    "created_at": _second_text(self.now()),
                },
            )
        return entry_id

    def waitlist(self) -> list[dict]:
        return self._rows("SELECT * FROM waitlist ORDER BY created_at, rowid")


class _DiaryIndex(BookingIndex):
    """Booked appointments read from the database a week at a time, when the policy first asks about that week."""

    WEEK = 7

    def __init__(self, store: ClinicStore, practitioner_ids: list[str], first_day: date):
        super().__init__()
        self._store = store
        self._ids = practitioner_ids
        self._first_day = first_day
        self._loaded: set[int] = set()
        self._seen: set[str] = set()

    def free(self, practitioner_id: str, start: datetime, end: datetime) -> bool:
        week = (start.date() - self._first_day).days // self.WEEK
        if week not in self._loaded:
            self._load(week)
        return super().free(practitioner_id, start, end)

    def _load(self, week: int) -> None:
        self._loaded.add(week)
        if not self._ids:
            return
        # From the day before: an appointment late that night may run into the week.
        since = self._first_day + timedelta(days=week * self.WEEK - 1)
        until = self._first_day + timedelta(days=(week + 1) * self.WEEK)
        marks = ", ".join("?" for _ in self._ids)
        rows = self._store.db.conn.execute(
            "SELECT id, practitioner_id, start, minutes FROM appointments "
            f"WHERE status = 'booked' AND practitioner_id IN ({marks}) AND start >= ? AND start < ?",
            [*self._ids, since.isoformat(), until.isoformat()],
        ).fetchall()
        for appointment_id, practitioner_id, start, minutes in rows:
            if appointment_id not in self._seen:
                self._seen.add(appointment_id)
                self.add(practitioner_id, datetime.fromisoformat(start), minutes)
        midnight = datetime.min.time()
        for block in self._store.blocks_between(datetime.combine(since, midnight), datetime.combine(until, midnight)):
            self.add_block(block)


def _time(text: str):
    return datetime.strptime(text, "%H:%M").time()


def _patient(row: dict[str, Any]) -> PatientRecord:
    return PatientRecord(
        id=row["id"],
        first_name=row["first_name"],
        last_name=row["last_name"],
        dob=date.fromisoformat(row["dob"]),
        phone=row["phone"],
    )


def _block(row: dict[str, Any]) -> DiaryBlock:
    return DiaryBlock(id=row["id"], practitioner_id=row["practitioner_id"], start=datetime.fromisoformat(row["start"]),
                      end=datetime.fromisoformat(row["end"]), reason=row["reason"])


def _appointment(row: dict[str, Any]) -> AppointmentRecord:
    return AppointmentRecord(
        id=row["id"],
        patient_id=row["patient_id"],
        service_id=row["service_id"],
        practitioner_id=row["practitioner_id"],
        location_id=row["location_id"],
        start=datetime.fromisoformat(row["start"]),
        minutes=row["minutes"],
        status=row["status"],
        rescheduled_from=row["rescheduled_from"],
    )
