"""The appliance's tables on PostgreSQL: the shared store of several appliances (docs/scale.md).

The same tables, columns and schema version as the SQLite file (database.py), so data moves between the two
as it is. Times stay clinic-local ISO text ("2026-11-24T10:00", collated "C" so text order is time order);
`appliance_slot()` reads one as a time range for the constraints.

The database refuses a double booking itself, whichever appliance writes and however the transactions
interleave: an exclusion constraint (btree_gist) keeps two `booked` appointments of one practitioner from
overlapping, a unique index keeps one patient from being booked twice at the same start. The constraint
names carry the same reason words as SQLite's trigger messages (`slot_taken`, `slot_blocked`, `too_long`),
so a store can tell the caller why.

Tables whose rows SQLite keeps in the order written (its implicit `rowid`, which the store orders by) have
a `rowid` column here, filled in that order (ROWID_TABLES); `db migrate` copies SQLite's into it.

`staff_actions` (the monitor's log of staff actions, made on SQLite by events/staff_action_log.py when first
needed) is here from the start, so a migration keeps it.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from appliance.store.database import (ADDED_COLUMNS, MAX_NAME_CHARS, MAX_PHONE_CHARS, MAX_TEXT_CHARS,
                                      SCHEMA_VERSION, DatabaseFileError)

if TYPE_CHECKING:
    import psycopg

# Two appliances creating the schema at once take turns (pg_advisory_xact_lock's key: "appliance" in ASCII).
_SCHEMA_LOCK = 0x6170706C69616E63

_MINUTE = r"'^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$'"


def _minute_check(name: str, *columns: str) -> str:
    condition = " AND ".join(f"{column} ~ {_MINUTE}" for column in columns)
    return f"CONSTRAINT {name} CHECK ({condition})"


# Each statement on its own: psycopg sends one statement at a time, and function bodies hold semicolons.
STATEMENTS = (
    "CREATE EXTENSION IF NOT EXISTS btree_gist",
    # make_timestamp and substr are immutable, so the range may sit in an index (a text-to-timestamp cast is not)
    """CREATE OR REPLACE FUNCTION appliance_minute(moment TEXT) RETURNS timestamp
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT make_timestamp(substr(moment, 1, 4)::int, substr(moment, 6, 2)::int, substr(moment, 9, 2)::int,
                          substr(moment, 12, 2)::int, substr(moment, 15, 2)::int, 0)
    $$""",
    """CREATE OR REPLACE FUNCTION appliance_slot(start TEXT, minutes INTEGER) RETURNS tsrange
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT tsrange(appliance_minute(start), appliance_minute(start) + make_interval(mins => minutes))
    $$""",
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
    """CREATE TABLE IF NOT EXISTS clinic (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL,
    timezone TEXT NOT NULL,
    phone TEXT NOT NULL,
    emergency_number TEXT NOT NULL,
    transfer_number TEXT,
    crisis_number TEXT NOT NULL,
    currency_symbol TEXT NOT NULL,
    region TEXT NOT NULL
)""",
    """CREATE TABLE IF NOT EXISTS locations (
    id TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    address TEXT NOT NULL,
    aliases TEXT NOT NULL DEFAULT '[]'
)""",
    """CREATE TABLE IF NOT EXISTS services (
    id TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    minutes INTEGER NOT NULL CHECK (minutes > 0),
    price DOUBLE PRECISION NOT NULL CHECK (price >= 0),
    aliases TEXT NOT NULL DEFAULT '[]',
    description TEXT
)""",
    """CREATE TABLE IF NOT EXISTS practitioners (
    id TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    aliases TEXT NOT NULL DEFAULT '[]'
)""",
    """CREATE TABLE IF NOT EXISTS practitioner_services (
    practitioner_id TEXT NOT NULL REFERENCES practitioners(id),
    service_id TEXT NOT NULL REFERENCES services(id),
    position INTEGER NOT NULL,
    PRIMARY KEY (practitioner_id, service_id)
)""",
    """CREATE TABLE IF NOT EXISTS practitioner_locations (
    practitioner_id TEXT NOT NULL REFERENCES practitioners(id),
    location_id TEXT NOT NULL REFERENCES locations(id),
    position INTEGER NOT NULL,
    PRIMARY KEY (practitioner_id, location_id)
)""",
    """CREATE TABLE IF NOT EXISTS opening_hours (
    weekday INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
    start TEXT COLLATE "C" NOT NULL,
    "end" TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (weekday, start)
)""",
    f"""CREATE TABLE IF NOT EXISTS patients (
    id TEXT PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    dob TEXT COLLATE "C" NOT NULL,
    phone TEXT,
    created_at TEXT COLLATE "C",
    created_by_call TEXT,
    CONSTRAINT too_long_patient_name CHECK (char_length(first_name) <= {MAX_NAME_CHARS}
                                            AND char_length(last_name) <= {MAX_NAME_CHARS}),
    CONSTRAINT too_long_patient_phone CHECK (char_length(phone) <= {MAX_PHONE_CHARS})
)""",
    "CREATE INDEX IF NOT EXISTS patients_by_phone ON patients (phone)",
    "CREATE INDEX IF NOT EXISTS patients_by_dob ON patients (dob)",
    "CREATE INDEX IF NOT EXISTS patients_by_call ON patients (created_by_call)",
    f"""CREATE TABLE IF NOT EXISTS appointments (
    id TEXT PRIMARY KEY,
    patient_id TEXT NOT NULL REFERENCES patients(id),
    service_id TEXT NOT NULL REFERENCES services(id),
    practitioner_id TEXT NOT NULL REFERENCES practitioners(id),
    location_id TEXT NOT NULL REFERENCES locations(id),
    start TEXT COLLATE "C" NOT NULL,
    minutes INTEGER NOT NULL CHECK (minutes > 0),
    status TEXT NOT NULL DEFAULT 'booked' CHECK (status IN ('booked', 'cancelled')),
    rescheduled_from TEXT REFERENCES appointments(id),
    created_at TEXT COLLATE "C",
    created_by_call TEXT,
    cancelled_at TEXT COLLATE "C",
    cancelled_by_call TEXT,
    confirmed_aloud INTEGER,
    {_minute_check("bad_time_appointment_start", "start")},
    CONSTRAINT slot_taken_practitioner EXCLUDE USING gist
        (practitioner_id WITH =, appliance_slot(start, minutes) WITH &&) WHERE (status = 'booked')
)""",
    "CREATE UNIQUE INDEX IF NOT EXISTS slot_taken_patient ON appointments (patient_id, start) "
    "WHERE status = 'booked'",
    "CREATE INDEX IF NOT EXISTS appointments_by_practitioner ON appointments (practitioner_id, start)",
    "CREATE INDEX IF NOT EXISTS appointments_by_patient ON appointments (patient_id, start)",
    "CREATE INDEX IF NOT EXISTS appointments_by_created_call ON appointments (created_by_call)",
    "CREATE INDEX IF NOT EXISTS appointments_by_cancelled_call ON appointments (cancelled_by_call)",
    f"""CREATE TABLE IF NOT EXISTS callback_requests (
    id TEXT PRIMARY KEY,
    call_id TEXT,
    patient_id TEXT REFERENCES patients(id),
    name TEXT,
    phone TEXT,
    reason TEXT,
    urgency TEXT NOT NULL DEFAULT 'normal' CHECK (urgency IN ('normal', 'urgent')),
    created_at TEXT COLLATE "C" NOT NULL,
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done')),
    done_by TEXT,
    done_at TEXT COLLATE "C",
    note TEXT,
    CONSTRAINT too_long_callback CHECK (char_length(name) <= {MAX_NAME_CHARS}
        AND char_length(phone) <= {MAX_PHONE_CHARS} AND char_length(reason) <= {MAX_TEXT_CHARS}
        AND char_length(note) <= 2 * {MAX_TEXT_CHARS})
)""",
    "CREATE INDEX IF NOT EXISTS callback_requests_by_status ON callback_requests (status, created_at)",
    "CREATE INDEX IF NOT EXISTS callback_requests_by_call ON callback_requests (call_id)",
    """CREATE TABLE IF NOT EXISTS waitlist (
    id TEXT PRIMARY KEY,
    call_id TEXT,
    patient_id TEXT REFERENCES patients(id),
    service_id TEXT REFERENCES services(id),
    location_id TEXT REFERENCES locations(id),
    note TEXT,
    created_at TEXT COLLATE "C" NOT NULL
)""",
    """CREATE TABLE IF NOT EXISTS calls (
    id TEXT PRIMARY KEY,
    clinic TEXT,
    caller_id TEXT,
    started_at TEXT COLLATE "C" NOT NULL,
    ended_at TEXT COLLATE "C",
    outcome TEXT,
    final_state TEXT,
    end_action TEXT,
    end_reason TEXT,
    ended_by TEXT,
    summary TEXT,
    review_flags TEXT,
    box TEXT
)""",
    "CREATE INDEX IF NOT EXISTS calls_by_start ON calls (started_at)",
    """CREATE TABLE IF NOT EXISTS turns (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    call_id TEXT NOT NULL REFERENCES calls(id),
    seq INTEGER NOT NULL,
    caller_text TEXT,
    agent_text TEXT,
    state TEXT,
    waiting_for TEXT,
    trigger_route TEXT,
    trigger_confidence TEXT,
    trigger_evidence TEXT,
    at TEXT COLLATE "C",
    speech_start TEXT COLLATE "C",
    speech_end TEXT COLLATE "C",
    stt_ms DOUBLE PRECISION,
    engine_ms DOUBLE PRECISION,
    llm_ms DOUBLE PRECISION,
    tts_first_audio_ms DOUBLE PRECISION,
    agent_speech_start TEXT COLLATE "C",
    agent_speech_end TEXT COLLATE "C",
    UNIQUE (call_id, seq)
)""",
    """CREATE TABLE IF NOT EXISTS transitions (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    call_id TEXT NOT NULL REFERENCES calls(id),
    turn_seq INTEGER,
    from_state TEXT,
    to_state TEXT,
    trigger_route TEXT,
    trigger_confidence TEXT,
    trigger_evidence TEXT,
    at TEXT COLLATE "C"
)""",
    "CREATE INDEX IF NOT EXISTS transitions_by_call ON transitions (call_id, id)",
    """CREATE TABLE IF NOT EXISTS tool_calls (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    call_id TEXT NOT NULL REFERENCES calls(id),
    turn_seq INTEGER,
    state TEXT,
    name TEXT NOT NULL,
    arguments TEXT NOT NULL DEFAULT '{}',
    result_kind TEXT NOT NULL CHECK (result_kind IN ('ok', 'guard', 'pms', 'other')),
    result TEXT NOT NULL DEFAULT '{}',
    duration_ms DOUBLE PRECISION,
    at TEXT COLLATE "C"
)""",
    "CREATE INDEX IF NOT EXISTS tool_calls_by_call ON tool_calls (call_id, id)",
    # see database.py: a practitioner's blocked time, or the whole clinic's (practitioner_id NULL)
    f"""CREATE TABLE IF NOT EXISTS diary_blocks (
    id TEXT PRIMARY KEY,
    practitioner_id TEXT REFERENCES practitioners(id),
    start TEXT COLLATE "C" NOT NULL,
    "end" TEXT COLLATE "C" NOT NULL,
    reason TEXT,
    created_at TEXT COLLATE "C",
    created_by TEXT,
    removed_at TEXT COLLATE "C",
    removed_by TEXT,
    {_minute_check("bad_time_block", "start", '"end"')},
    CHECK (start < "end")
)""",
    'CREATE INDEX IF NOT EXISTS diary_blocks_by_time ON diary_blocks (start, "end")',
    """CREATE TABLE IF NOT EXISTS staff_actions (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    at TEXT COLLATE "C" NOT NULL,
    "user" TEXT NOT NULL,
    claimed_user TEXT,
    action TEXT NOT NULL,
    call_id TEXT,
    callback_id TEXT,
    note TEXT,
    ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
    message TEXT,
    via TEXT NOT NULL
)""",
    "CREATE INDEX IF NOT EXISTS staff_actions_by_at ON staff_actions (at)",
    """CREATE TABLE IF NOT EXISTS journal_replayed (
    id TEXT PRIMARY KEY,
    replayed_at TEXT COLLATE "C" NOT NULL
)""",
    # A booking inside a block is refused (blocks may be laid over bookings: staff then move those), except
    # while the clinic file's own diary is loaded as the clinic keeps it (diary_imported_as_is).
    # (a malformed start is left to the table's own check, which runs after this trigger)
    f"""CREATE OR REPLACE FUNCTION appliance_booking_not_blocked() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF NEW.status <> 'booked' OR NEW.start !~ {_MINUTE}
           OR current_setting('appliance.diary_as_is', true) = 'on' THEN
            RETURN NEW;
        END IF;
        IF EXISTS (SELECT 1 FROM diary_blocks b
                       WHERE b.removed_at IS NULL
                         AND (b.practitioner_id IS NULL OR b.practitioner_id = NEW.practitioner_id)
                         AND tsrange(appliance_minute(b.start), appliance_minute(b."end"))
                             && appliance_slot(NEW.start, NEW.minutes)) THEN
            RAISE EXCEPTION 'slot_blocked: the practitioner is away or the clinic is closed then'
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END
    $$""",
    "DROP TRIGGER IF EXISTS appointments_not_blocked ON appointments",
    """CREATE TRIGGER appointments_not_blocked
    BEFORE INSERT OR UPDATE OF status, start, minutes, practitioner_id, patient_id ON appointments
    FOR EACH ROW EXECUTE FUNCTION appliance_booking_not_blocked()""",
)


# Every table, in an order in which each one's references come before it (for copying data in).
TABLES = tuple(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", "\n".join(STATEMENTS)))
# SQLite's implicit rowid, made a column (see the module's docstring)
ROWID_TABLES = ("patients", "appointments", "callback_requests", "waitlist", "calls", "diary_blocks")


def create_schema(conn: psycopg.Connection) -> None:
    """Create every table, constraint and trigger that is missing, in one transaction; idempotent.

    Refuses (DatabaseFileError) a database whose schema is newer than this appliance's."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [_SCHEMA_LOCK])
        for statement in STATEMENTS:
            conn.execute(statement)
        version = conn.execute("SELECT max(version) FROM schema_version").fetchone()[0]
        if version is not None and version > SCHEMA_VERSION:
            raise DatabaseFileError(
                f"the PostgreSQL database has schema version {version}, newer than this appliance understands "
                f"({SCHEMA_VERSION}): update the appliance software")
        for table, column, declaration in ADDED_COLUMNS:
            conn.execute(f'ALTER TABLE "{table}" ADD COLUMN IF NOT EXISTS "{column}" {declaration}')
        for table in ROWID_TABLES:
            conn.execute(f'ALTER TABLE "{table}" ADD COLUMN IF NOT EXISTS rowid '
                         "BIGINT GENERATED BY DEFAULT AS IDENTITY")
        if version is None:
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", [SCHEMA_VERSION])
        elif version < SCHEMA_VERSION:
            conn.execute("UPDATE schema_version SET version = %s", [SCHEMA_VERSION])


def schema_version(conn: psycopg.Connection) -> int | None:
    """The database's schema version; None where the appliance's tables are not there yet."""
    if conn.execute("SELECT to_regclass('schema_version')").fetchone()[0] is None:
        return None
    return conn.execute("SELECT max(version) FROM schema_version").fetchone()[0]


@contextlib.contextmanager
def diary_imported_as_is(conn: psycopg.Connection) -> Iterator[None]:
    """Inside a transaction: the clinic file's own diary is loaded as the clinic keeps it, bookings inside
    its blocks included; the block check is back before the transaction commits. (The overlap constraints
    stay: the clinic file's own checks refuse overlapping appointments too.)"""
    conn.execute("SELECT set_config('appliance.diary_as_is', 'on', true)")
    yield
    conn.execute("SELECT set_config('appliance.diary_as_is', 'off', true)")
