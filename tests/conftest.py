"""Shared fixtures: the SCENARIOS.md example clinic in an in-memory database; a real PostgreSQL for the tests
that run on the shared store too (`any_db`: both back ends)."""

from datetime import datetime
from pathlib import Path

import pytest
import yaml

from appliance.clinic import clinic_from_mapping
from appliance.engine.clock import CountingIds, FrozenClock
from appliance.engine.flow import load_flow
from appliance.store.clinic_store import ClinicStore
from appliance.store.database import open_database
from appliance.store.records import CallRecorder

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "tests" / "scenarios" / "example-reschedule.yaml"


@pytest.fixture(scope="session")
def flow():
    return load_flow(ROOT / "config" / "flows" / "clinic.yaml")


@pytest.fixture
def clinic_data():
    """The clinic block of SCENARIOS.md's example, as YAML parses it."""
    return yaml.safe_load(EXAMPLE.read_text())["clinic"]


@pytest.fixture
def example_clinic_data():
    data = yaml.safe_load(EXAMPLE.read_text())["clinic"]
    # a second patient on the same phone, and a second booking for the first patient
    data["patients"].append({"id": "p2", "first_name": "Tom", "last_name": "Johnson", "dob": "2010-07-01",
                             "phone": "+61400000001"})
    data["appointments"].append({"id": "a2", "patient": "p1", "service": "followup", "practitioner": "shah",
                                 "location": "north", "start": "2026-11-27T09:00"})
    return data


@pytest.fixture
def clock():
    return FrozenClock(datetime(2026, 11, 23, 9, 5))


@pytest.fixture
def db():
    return open_database(":memory:")


@pytest.fixture
def store(db, clock, example_clinic_data):
    s = ClinicStore(db, new_id=CountingIds(), now=clock.now)
    s.load_clinic(clinic_from_mapping(example_clinic_data))
    return s


@pytest.fixture
def recorder(db):
    return CallRecorder(db)


@pytest.fixture(scope="session")
def voice_data(tmp_path_factory):
    return tmp_path_factory.mktemp("voice-data")


@pytest.fixture(scope="session")
def runtime(voice_data):
    """The real voice models (Whisper base, Piper joe, Silero, Smart Turn; no LLM), loaded once per session."""
    pytest.importorskip("pipecat")
    from appliance.voice.runtime import VoiceRuntime, quiet_pipecat

    from voice.spoken import voice_settings

    quiet_pipecat("ERROR")
    return VoiceRuntime(voice_settings(voice_data), load_llm=False)


@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL (Debian's package) for the session, in a temporary folder; stopped at the end."""
    from store.postgres_server import PostgresServer, binaries

    pytest.importorskip("psycopg", reason="psycopg (the PostgreSQL driver) is not installed")
    bin_dir = binaries()
    if bin_dir is None:
        pytest.skip("PostgreSQL's server programs (initdb, pg_ctl) are not installed: apt-get install postgresql")
    server = PostgresServer(bin_dir)
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    yield server
    server.stop()


def _new_postgres_database(server, name: str) -> str:
    import psycopg

    with psycopg.connect(server.dsn(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    return server.dsn(name)


@pytest.fixture
def postgres_dsn(postgres_server, request):
    """The address of a new, empty database on the session's PostgreSQL, dropped after the test."""
    import re

    import psycopg

    name = "test_" + re.sub(r"[^a-z0-9_]", "_", request.node.name.lower())[:50]
    yield _new_postgres_database(postgres_server, name)
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def shared_store_dsn(postgres_server):
    """One database holding the appliance's tables for the session; `any_db` empties it before each test."""
    from appliance.store.postgres_database import open_postgres

    dsn = _new_postgres_database(postgres_server, "appliance_shared_store")
    open_postgres(dsn).close()
    return dsn


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db(request):
    """An empty appliance database on each back end in turn: SQLite in memory, then the shared store on
    PostgreSQL (emptied first; skipped, saying why, only where PostgreSQL cannot be started here)."""
    if request.param == "sqlite":
        database = open_database(":memory:")
        yield database
        database.close()
        return
    database = open_database(request.getfixturevalue("shared_store_dsn"))
    _empty(database)
    yield database
    database.close()


def _empty(database) -> None:
    """Every row deleted and every counter back at 1: as a new database, faster than TRUNCATE on small tables
    (waits at most the connection's lock wait for a test that left a transaction open)."""
    from appliance.store.migrate import IDENTITY_COLUMNS
    from appliance.store.postgres_schema import TABLES

    with database.atomic():
        for table in reversed(TABLES):
            if table != "schema_version":
                database.execute(f'DELETE FROM "{table}"')
        for table, column in IDENTITY_COLUMNS.items():
            database.execute(f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), 1, false)")
