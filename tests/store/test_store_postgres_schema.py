"""The PostgreSQL schema on a real server: the same tables as SQLite's, and a database that refuses a double
booking by itself, from any writer and across concurrent transactions."""

import threading
import time

import pytest

psycopg = pytest.importorskip("psycopg")

from appliance.store.database import SCHEMA_VERSION, DatabaseFileError, open_database  # noqa: E402
from appliance.store.postgres_schema import create_schema, diary_imported_as_is, schema_version  # noqa: E402

BOOK = ("INSERT INTO appointments (id, patient_id, service_id, practitioner_id, location_id, start, minutes, status) "
        "VALUES (%s, %s, 'svc', %s, 'loc', %s, %s, %s)")


@pytest.fixture
def pg(postgres_dsn):
    """A connection to a new database holding the schema, one location, service, two practitioners and patients."""
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        create_schema(conn)
        conn.execute("INSERT INTO locations (id, position, name, address) VALUES ('loc', 0, 'L', 'A')")
        conn.execute("INSERT INTO services (id, position, name, minutes, price) VALUES ('svc', 0, 'S', 30, 0)")
        for n in range(2):
            conn.execute("INSERT INTO practitioners (id, position, name) VALUES (%s, %s, %s)", [f"dr{n}", n, f"D{n}"])
        for n in range(3):
            conn.execute("INSERT INTO patients (id, first_name, last_name, dob) VALUES (%s, 'A', 'B', '1980-01-01')",
                         [f"p{n}"])
        yield conn


def book(conn, id, start, *, patient="p0", practitioner="dr0", minutes=30, status="booked"):
    conn.execute(BOOK, [id, patient, practitioner, start, minutes, status])


def booked(conn):
    return conn.execute("SELECT id FROM appointments WHERE status = 'booked' ORDER BY id").fetchall()


def test_the_same_tables_and_columns_as_sqlite(pg):
    sqlite = open_database(":memory:")
    tables = [row[0] for row in sqlite.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()]
    for table in tables:
        expected = [row[1] for row in sqlite.execute(f'PRAGMA table_info("{table}")').fetchall()]
        columns = [row[0] for row in pg.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s ORDER BY ordinal_position",
            [table]).fetchall()]
        assert [c for c in columns if c != "rowid"] == expected, table     # rowid: SQLite's implicit one
    assert schema_version(pg) == SCHEMA_VERSION
    create_schema(pg)                     # idempotent: a second appliance starting on the same database
    assert pg.execute("SELECT count(*) FROM schema_version").fetchone()[0] == 1


def test_an_empty_database_has_no_schema_version(postgres_dsn):
    with psycopg.connect(postgres_dsn) as conn:
        assert schema_version(conn) is None


def test_a_newer_schema_is_refused(pg):
    pg.execute("UPDATE schema_version SET version = %s", [SCHEMA_VERSION + 1])
    with pytest.raises(DatabaseFileError, match="newer than this appliance"):
        create_schema(pg)


def test_an_overlapping_booking_of_one_practitioner_is_refused_by_the_database(pg):
    book(pg, "a1", "2026-11-24T10:00", minutes=30)
    with pytest.raises(psycopg.errors.ExclusionViolation, match="slot_taken_practitioner"):
        book(pg, "a2", "2026-11-24T10:15", patient="p1")
    book(pg, "a3", "2026-11-24T10:30", patient="p1")                           # back to back is free
    book(pg, "a4", "2026-11-24T10:15", patient="p2", practitioner="dr1")        # another practitioner
    book(pg, "a5", "2026-11-24T10:15", patient="p2", status="cancelled")       # a cancelled row holds no time
    with pytest.raises(psycopg.errors.ExclusionViolation):                     # nor may it be revived onto one
        pg.execute("UPDATE appointments SET status = 'booked' WHERE id = 'a5'")
    pg.execute("UPDATE appointments SET status = 'cancelled' WHERE id = 'a1'")
    book(pg, "a6", "2026-11-24T09:45", patient="p2", minutes=30)               # the freed time is bookable
    assert booked(pg) == [("a3",), ("a4",), ("a6",)]


def test_one_patient_is_never_booked_twice_at_the_same_start(pg):
    book(pg, "a1", "2026-11-24T10:00")
    with pytest.raises(psycopg.errors.UniqueViolation, match="slot_taken_patient"):
        book(pg, "a2", "2026-11-24T10:00", practitioner="dr1")
    book(pg, "a3", "2026-11-24T10:00", practitioner="dr1", status="cancelled")


def test_a_booking_inside_a_block_is_refused_unless_the_clinic_files_diary_is_loaded(pg):
    pg.execute("""INSERT INTO diary_blocks (id, practitioner_id, start, "end") """
               "VALUES ('b1', NULL, '2026-12-25T00:00', '2026-12-26T00:00')")
    with pytest.raises(psycopg.errors.CheckViolation, match="slot_blocked"):
        book(pg, "a1", "2026-12-25T09:00")
    with pg.transaction():
        with diary_imported_as_is(pg):
            book(pg, "a1", "2026-12-25T09:00")
        with pytest.raises(psycopg.errors.CheckViolation, match="slot_blocked"), pg.transaction():
            book(pg, "a2", "2026-12-25T11:00", patient="p1")
    assert booked(pg) == [("a1",)]


def test_free_text_past_its_limit_and_malformed_times_are_refused(pg):
    with pytest.raises(psycopg.errors.CheckViolation, match="too_long_patient_name"):
        pg.execute("INSERT INTO patients (id, first_name, last_name, dob) VALUES ('p9', %s, 'B', '1980-01-01')",
                   ["x" * 101])
    with pytest.raises(psycopg.errors.CheckViolation, match="bad_time_appointment_start"):
        book(pg, "a1", "24/11/2026 10:00")


def test_two_transactions_booking_the_same_slot_end_with_one_booking(pg, postgres_dsn):
    """The second writer waits on the first one's uncommitted booking, then is refused when it commits."""
    first = psycopg.connect(postgres_dsn)
    second = psycopg.connect(postgres_dsn)
    outcome = {}

    def second_books():
        try:
            with second.transaction():
                book(second, "b", "2026-11-24T10:10", patient="p1")
            outcome["second"] = "booked"
        except psycopg.errors.ExclusionViolation:
            outcome["second"] = "refused"

    try:
        with first.transaction():
            book(first, "a", "2026-11-24T10:00")
            racer = threading.Thread(target=second_books)
            racer.start()
            deadline = time.monotonic() + 10
            while not _waiting_on_a_lock(pg, second) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert _waiting_on_a_lock(pg, second), "the second transaction never reached the constraint"
        racer.join(10)
        assert outcome == {"second": "refused"}
        assert booked(pg) == [("a",)]
    finally:
        first.close()
        second.close()


def test_transactions_racing_for_one_slot_leave_exactly_one_booking(pg, postgres_dsn):
    connections = [psycopg.connect(postgres_dsn) for _ in range(4)]
    try:
        for round, start in enumerate(("2026-11-24T10:00", "2026-11-24T11:00", "2026-11-24T12:00")):
            gate = threading.Barrier(len(connections))
            results = []

            def race(conn, n):
                gate.wait()
                try:
                    with conn.transaction():   # each writer a few minutes off the others: every pair overlaps
                        book(conn, f"r{round}-{n}", start[:-2] + f"{n * 5:02d}", patient=f"p{n % 3}")
                    results.append("booked")
                except (psycopg.errors.ExclusionViolation, psycopg.errors.UniqueViolation,
                        psycopg.errors.DeadlockDetected):   # two crossing writers: the database aborts one
                    results.append("refused")
                except psycopg.Error as exc:
                    results.append(type(exc).__name__)

            racers = [threading.Thread(target=race, args=(conn, n)) for n, conn in enumerate(connections)]
            for racer in racers:
                racer.start()
            for racer in racers:
                racer.join(30)
            assert sorted(results) == ["booked"] + ["refused"] * (len(connections) - 1)
        assert len(booked(pg)) == 3
    finally:
        for conn in connections:
            conn.close()


def _waiting_on_a_lock(observer, conn) -> bool:
    row = observer.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s",
                           [conn.info.backend_pid]).fetchone()
    return row is not None and row[0] == "Lock"
