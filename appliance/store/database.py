"""The appliance's one SQLite file: opening it safely and building it from a clinic file.

The file holds patient data, so a new one is created (0640: the service's user
writes it, the front desk's group `appliance-staff` reads it for the monitor,
nobody else) before SQLite touches it. It runs in WAL mode (the monitor reads
while a call writes) with foreign keys on. The tables, triggers and added
columns are created if missing, so opening is idempotent and upgrades an older
file in place.

Durability: a commit that changes the clinic's data (a booking, a cancellation,
a new patient, a callback request) is made with `synchronous = FULL`
(`durable_commits`), so it is on the disk before the caller hears it; the call
record's own commits use NORMAL (safe against a crash of the process; a power
cut may lose the last turns, never a booking, since the next FULL commit
flushes the log up to itself).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import sqlite_utils

SCHEMA_VERSION = 3        # 3: diary_blocks (closures, leave, meetings, holidays)
DATABASE_MODE = 0o640     # the service's user writes; the front desk's group reads (the monitor)

# Longest free text the store keeps (characters); the triggers below refuse longer rows from any writer.
MAX_NAME_CHARS = 100
MAX_PHONE_CHARS = 40
MAX_TEXT_CHARS = 2000

# Timestamps are clinic-local ISO text ("2026-11-24T10:00"), so text order is time order.
SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS clinic (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL,
    timezone TEXT NOT NULL,
    phone TEXT NOT NULL,
    emergency_number TEXT NOT NULL,
    transfer_number TEXT,
    crisis_number TEXT NOT NULL,
    currency_symbol TEXT NOT NULL,
    region TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS locations (
    id TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    address TEXT NOT NULL,
    aliases TEXT NOT NULL DEFAULT '[]'
);

CREATE TABLE IF NOT EXISTS services (
    id TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    minutes INTEGER NOT NULL CHECK (minutes > 0),
    price REAL NOT NULL CHECK (price >= 0),
    aliases TEXT NOT NULL DEFAULT '[]',
    description TEXT
);

CREATE TABLE IF NOT EXISTS practitioners (
    id TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    aliases TEXT NOT NULL DEFAULT '[]'
);

CREATE TABLE IF NOT EXISTS practitioner_services (
    practitioner_id TEXT NOT NULL REFERENCES practitioners(id),
    service_id TEXT NOT NULL REFERENCES services(id),
    position INTEGER NOT NULL,
    PRIMARY KEY (practitioner_id, service_id)
);

CREATE TABLE IF NOT EXISTS practitioner_locations (
    practitioner_id TEXT NOT NULL REFERENCES practitioners(id),
    location_id TEXT NOT NULL REFERENCES locations(id),
    position INTEGER NOT NULL,
    PRIMARY KEY (practitioner_id, location_id)
);

CREATE TABLE IF NOT EXISTS opening_hours (
    weekday INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
    start TEXT NOT NULL,
    "end" TEXT NOT NULL,
    PRIMARY KEY (weekday, start)
);

CREATE TABLE IF NOT EXISTS patients (
    id TEXT PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    dob TEXT NOT NULL,
    phone TEXT,
    created_at TEXT,
    created_by_call TEXT
);
CREATE INDEX IF NOT EXISTS patients_by_phone ON patients (phone);
CREATE INDEX IF NOT EXISTS patients_by_dob ON patients (dob);
CREATE INDEX IF NOT EXISTS patients_by_call ON patients (created_by_call);

CREATE TABLE IF NOT EXISTS appointments (
    id TEXT PRIMARY KEY,
    patient_id TEXT NOT NULL REFERENCES patients(id),
    service_id TEXT NOT NULL REFERENCES services(id),
    practitioner_id TEXT NOT NULL REFERENCES practitioners(id),
    location_id TEXT NOT NULL REFERENCES locations(id),
    start TEXT NOT NULL,
    minutes INTEGER NOT NULL CHECK (minutes > 0),
    status TEXT NOT NULL DEFAULT 'booked' CHECK (status IN ('booked', 'cancelled')),
    rescheduled_from TEXT REFERENCES appointments(id),
    created_at TEXT,
    created_by_call TEXT,
    cancelled_at TEXT,
    cancelled_by_call TEXT,
    confirmed_aloud INTEGER
);
CREATE INDEX IF NOT EXISTS appointments_by_practitioner ON appointments (practitioner_id, start);
CREATE INDEX IF NOT EXISTS appointments_by_patient ON appointments (patient_id, start);
CREATE INDEX IF NOT EXISTS appointments_by_created_call ON appointments (created_by_call);
CREATE INDEX IF NOT EXISTS appointments_by_cancelled_call ON appointments (cancelled_by_call);

CREATE TABLE IF NOT EXISTS callback_requests (
    id TEXT PRIMARY KEY,
    call_id TEXT,
    patient_id TEXT REFERENCES patients(id),
    name TEXT,
    phone TEXT,
    reason TEXT,
    urgency TEXT NOT NULL DEFAULT 'normal' CHECK (urgency IN ('normal', 'urgent')),
    created_at TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done')),
    done_by TEXT,
    done_at TEXT,
    note TEXT
);
CREATE INDEX IF NOT EXISTS callback_requests_by_status ON callback_requests (status, created_at);
CREATE INDEX IF NOT EXISTS callback_requests_by_call ON callback_requests (call_id);

CREATE TABLE IF NOT EXISTS waitlist (
    id TEXT PRIMARY KEY,
    call_id TEXT,
    patient_id TEXT REFERENCES patients(id),
    service_id TEXT REFERENCES services(id),
    location_id TEXT REFERENCES locations(id),
    note TEXT,
    created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS calls (
    id TEXT PRIMARY KEY,
    clinic TEXT,
    caller_id TEXT,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    outcome TEXT,
    final_state TEXT,
    end_action TEXT,
    end_reason TEXT,
    ended_by TEXT,
    summary TEXT,
    review_flags TEXT,
    box TEXT
);
CREATE INDEX IF NOT EXISTS calls_by_start ON calls (started_at);

CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY,
    call_id TEXT NOT NULL REFERENCES calls(id),
    seq INTEGER NOT NULL,
    caller_text TEXT,
    agent_text TEXT,
    state TEXT,
    waiting_for TEXT,
    trigger_route TEXT,
    trigger_confidence TEXT,
    trigger_evidence TEXT,
    at TEXT,
    speech_start TEXT,
    speech_end TEXT,
    stt_ms REAL,
    engine_ms REAL,
    llm_ms REAL,
    tts_first_audio_ms REAL,
    agent_speech_start TEXT,
    agent_speech_end TEXT,
    UNIQUE (call_id, seq)
);

CREATE TABLE IF NOT EXISTS transitions (
    id INTEGER PRIMARY KEY,
    call_id TEXT NOT NULL REFERENCES calls(id),
    turn_seq INTEGER,
    from_state TEXT,
    to_state TEXT,
    trigger_route TEXT,
    trigger_confidence TEXT,
    trigger_evidence TEXT,
    at TEXT
);
CREATE INDEX IF NOT EXISTS transitions_by_call ON transitions (call_id, id);

CREATE TABLE IF NOT EXISTS tool_calls (
    id INTEGER PRIMARY KEY,
    call_id TEXT NOT NULL REFERENCES calls(id),
    turn_seq INTEGER,
    state TEXT,
    name TEXT NOT NULL,
    arguments TEXT NOT NULL DEFAULT '{}',
    result_kind TEXT NOT NULL CHECK (result_kind IN ('ok', 'guard', 'pms', 'other')),
    result TEXT NOT NULL DEFAULT '{}',
    duration_ms REAL,
    at TEXT
);
CREATE INDEX IF NOT EXISTS tool_calls_by_call ON tool_calls (call_id, id);

-- Time nobody may be booked in: one practitioner's, or the whole clinic's when practitioner_id is NULL (a
-- closure day, a holiday). From the clinic file (created_by 'clinic file') or staff (their OS user). A removed
-- block stays, with who removed it, so the diary's history can be read back.
CREATE TABLE IF NOT EXISTS diary_blocks (
    id TEXT PRIMARY KEY,
    practitioner_id TEXT REFERENCES practitioners(id),
    start TEXT NOT NULL,
    "end" TEXT NOT NULL,
    reason TEXT,
    created_at TEXT,
    created_by TEXT,
    removed_at TEXT,
    removed_by TEXT,
    CHECK (start < "end")
);
CREATE INDEX IF NOT EXISTS diary_blocks_by_time ON diary_blocks (start, "end");

CREATE TABLE IF NOT EXISTS journal_replayed (
    id TEXT PRIMARY KEY,
    replayed_at TEXT NOT NULL
);
"""

# Columns added after schema 1 (table, column, declaration): added in place to an older file.
ADDED_COLUMNS = (
    ("calls", "end_reason", "TEXT"),
    ("calls", "ended_by", "TEXT"),
    ("appointments", "confirmed_aloud", "INTEGER"),
    ("calls", "summary", "TEXT"),           # call_review: written when the call ends
    ("calls", "review_flags", "TEXT"),
    ("calls", "box", "TEXT"),               # the appliance (host name) that took the call: recovery on a shared store
)

_END = "strftime('%Y-%m-%dT%H:%M', {row}.start, '+' || {row}.minutes || ' minutes')"
_OVERLAP = ("a.status = 'booked' AND a.id != NEW.id AND a.start < " + _END.format(row="NEW")
            + " AND NEW.start < " + _END.format(row="a"))


def _guard_trigger(name: str, event: str, table: str, when: str, checks: list[tuple[str, str]]) -> str:
    body = "".join(f"    SELECT RAISE(ABORT, '{message}') WHERE {condition};\n" for condition, message in checks)
    return f"CREATE TRIGGER IF NOT EXISTS {name} BEFORE {event} ON {table} WHEN {when}\nBEGIN\n{body}END"


# The database refuses what the store's own checks refuse, whoever writes: two booked appointments of one
# practitioner that overlap, one patient booked twice at the same time, and free text past its limit.
_APPOINTMENT_CHECKS = [
    (f"EXISTS (SELECT 1 FROM appointments a WHERE a.practitioner_id = NEW.practitioner_id AND {_OVERLAP})",
     "slot_taken: the practitioner already has a booking then"),
    ("EXISTS (SELECT 1 FROM appointments a WHERE a.patient_id = NEW.patient_id AND a.status = 'booked' "
     "AND a.id != NEW.id AND a.start = NEW.start)", "slot_taken: the patient is already booked at that time"),
]
_PATIENT_CHECKS = [(f"length(NEW.first_name) > {MAX_NAME_CHARS} OR length(NEW.last_name) > {MAX_NAME_CHARS}",
                    "too_long: a name is longer than the store keeps"),
                   (f"length(NEW.phone) > {MAX_PHONE_CHARS}", "too_long: the phone number is longer than the store keeps")]
_CALLBACK_CHECKS = [(f"length(NEW.name) > {MAX_NAME_CHARS} OR length(NEW.phone) > {MAX_PHONE_CHARS} "
                     f"OR length(NEW.reason) > {MAX_TEXT_CHARS} OR length(NEW.note) > 2 * {MAX_TEXT_CHARS}",
                     "too_long: callback text is longer than the store keeps")]
# A booking in a block is refused too (blocks themselves may be laid over bookings: staff then move those).
_BLOCK_CHECKS = [
    ("EXISTS (SELECT 1 FROM diary_blocks b WHERE b.removed_at IS NULL AND (b.practitioner_id IS NULL OR "
     "b.practitioner_id = NEW.practitioner_id) AND b.start < " + _END.format(row="NEW") + ' AND NEW.start < b."end")',
     "slot_blocked: the practitioner is away or the clinic is closed then"),
]
_BOOKING_CHANGES = "UPDATE OF status, start, minutes, practitioner_id, patient_id"
APPOINTMENT_TRIGGERS = [
    _guard_trigger("appointments_no_overlap_insert", "INSERT", "appointments", "NEW.status = 'booked'",
                   _APPOINTMENT_CHECKS),
    _guard_trigger("appointments_no_overlap_update", _BOOKING_CHANGES, "appointments",
                   "NEW.status = 'booked'", _APPOINTMENT_CHECKS),
    _guard_trigger("appointments_not_blocked_insert", "INSERT", "appointments", "NEW.status = 'booked'",
                   _BLOCK_CHECKS),
    _guard_trigger("appointments_not_blocked_update", _BOOKING_CHANGES, "appointments",
                   "NEW.status = 'booked'", _BLOCK_CHECKS),
]
TRIGGERS = APPOINTMENT_TRIGGERS + [
    _guard_trigger("patients_text_insert", "INSERT", "patients", "1", _PATIENT_CHECKS),
    _guard_trigger("patients_text_update", "UPDATE", "patients", "1", _PATIENT_CHECKS),
    _guard_trigger("callback_requests_text_insert", "INSERT", "callback_requests", "1", _CALLBACK_CHECKS),
    _guard_trigger("callback_requests_text_update", "UPDATE OF name, phone, reason, note", "callback_requests", "1",
                   _CALLBACK_CHECKS),
]


@contextlib.contextmanager
def diary_imported_as_is(conn: sqlite3.Connection) -> Iterator[None]:
    """Inside a transaction: the clinic file's own diary is loaded as the clinic keeps it (its checks are the
    clinic schema's); the booking guards are back before the transaction commits."""
    for name in ("appointments_no_overlap_insert", "appointments_no_overlap_update",
                 "appointments_not_blocked_insert", "appointments_not_blocked_update"):
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    yield
    for trigger in APPOINTMENT_TRIGGERS:
        conn.execute(trigger)



class DatabaseFileError(ValueError):
    """The database file cannot be used (not SQLite, made by a newer version, unreadable)."""


def open_database(path: str | Path) -> sqlite_utils.Database:
    """Open (creating if needed) the appliance database, with every table present.

    A new file is created with mode 0640 (DATABASE_MODE); an existing file keeps its mode.
    ":memory:" gives a private in-memory database (tests). A `postgresql://` address opens the shared store
    on PostgreSQL instead (postgres_database.py), which the store's code uses the same way."""
    from .backend import is_postgres

    if is_postgres(path):
        from .postgres_database import open_postgres

        return open_postgres(path)  # type: ignore[return-value]
    if str(path) == ":memory:":
        db = sqlite_utils.Database(memory=True)
    else:
        path = Path(path)
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, DATABASE_MODE)
        except FileExistsError:
            pass
        except OSError as error:
            raise DatabaseFileError(f"{path}: cannot create the database file: {error.strerror}") from None
        else:
            os.close(fd)
        db = sqlite_utils.Database(path)
    try:
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA busy_timeout = 5000")
        if not db.memory:
            _enable_wal(db)
            # WAL + NORMAL: a crashed process loses nothing committed; a power cut can lose the last record
            # commits, never a clinic write (`durable_commits` makes those FULL: see the module's docstring)
            db.execute("PRAGMA synchronous = NORMAL")
        _create_schema(db)
    except sqlite3.DatabaseError as error:
        db.close()
        raise DatabaseFileError(f"{path}: cannot open it as the appliance database: {error}") from None
    return db


def _enable_wal(db: sqlite_utils.Database, *, patience_s: float = 5.0) -> None:
    """Switch the file to WAL. The switch needs the file to itself for a moment, and SQLite answers "database
    is locked" at once, without waiting out busy_timeout, while another process is opening it too (the demo and
    its monitor feed both open a new file): so wait a little and try again, within the same patience."""
    deadline = time.monotonic() + patience_s
    while True:
        try:
            db.enable_wal()
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def _create_schema(db: sqlite_utils.Database) -> None:
    # a deferred transaction: on a file already made, every statement here is a no-op that needs no write lock,
    # so the appliance still opens its database while a long write holds the lock (the call goes on, holding)
    with db.atomic():
        for statement in SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        row = db.execute("SELECT max(version) FROM schema_version").fetchone()
        version = row[0]
        if version is not None and version > SCHEMA_VERSION:
            raise DatabaseFileError(
                f"the database has schema version {version}, newer than this appliance understands ({SCHEMA_VERSION}): "
                "update the appliance software"
            )
        for table, column, declaration in ADDED_COLUMNS:
            present = {info[1] for info in db.execute(f'PRAGMA table_info("{table}")').fetchall()}
            if column not in present:
                db.execute(f'ALTER TABLE "{table}" ADD COLUMN "{column}" {declaration}')
        for trigger in TRIGGERS:
            db.execute(trigger)
        if version is None:
            db.execute("INSERT INTO schema_version (version) VALUES (?)", [SCHEMA_VERSION])
        elif version < SCHEMA_VERSION:
            db.execute("UPDATE schema_version SET version = ?", [SCHEMA_VERSION])


@contextlib.contextmanager
def durable_commits(conn: sqlite3.Connection) -> Iterator[None]:
    """Commits made inside are flushed to the disk before they return (synchronous = FULL): for writes the
    caller is told about. The connection goes back to NORMAL afterwards (see the module's docstring)."""
    if conn.in_transaction:          # the outer transaction decides
        yield
        return
    conn.execute("PRAGMA synchronous = FULL")
    try:
        yield
    finally:
        try:
            conn.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.Error:
            pass


def build_database(clinic, db_path: str | Path, *, replace: bool = False) -> Path:
    """Build a new database file at `db_path` from a validated `Clinic`.

    The database is written to a temporary file beside the target and renamed
    into place only when complete, so a failure leaves nothing behind (and an
    existing database untouched). Refuses to overwrite unless `replace`. A `postgresql://` address loads the
    clinic into that database instead, in one transaction (postgres_database.build_postgres)."""
    from appliance.store.clinic_store import ClinicStore

    from .backend import is_postgres

    if is_postgres(db_path):
        from .postgres_database import build_postgres

        return build_postgres(clinic, db_path, replace=replace)  # type: ignore[return-value]

    target = Path(db_path)
    if target.exists() and not replace:
        raise ValueError(f"{target} already exists: use --replace to overwrite it, or choose another path")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".building")
    os.fchmod(fd, DATABASE_MODE)  # open_database keeps the mode the file has
    os.close(fd)
    temp = Path(temp_name)
    try:
        db = open_database(temp)
        try:
            ClinicStore(db).load_clinic(clinic)
        finally:
            db.close()  # the last connection checkpoints and removes the -wal file
        for suffix in ("-wal", "-shm"):
            # A stale WAL of the old database would be replayed into the new one.
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        os.replace(temp, target)
    except BaseException:
        for leftover in (temp, Path(f"{temp}-wal"), Path(f"{temp}-shm"), Path(f"{temp}-journal")):
            leftover.unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)
    return target


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
