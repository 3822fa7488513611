import pytest

@pytest.fixture
def clinic(clinic_data):
    from appliance.clinic import clinic_from_mapping

    return clinic_from_mapping(clinic_data)


class Ids:
    """Deterministic ids: apt-1, pat-2, ..."""

    def __init__(self):
        self.n = 0

    def __call__(self, prefix):
        self.n += 1
        return f"{prefix}-{self.n}"


class Clock:
    def __init__(self, moment):
        self.moment = moment

    def __call__(self):
        return self.moment


@pytest.fixture
def clock():
    from datetime import datetime

    return Clock(datetime(2026, 11, 23, 9, 5))


@pytest.fixture
def db():
    from appliance.store import open_database

    database = open_database(":memory:")
    yield database
    database.close()


@pytest.fixture
def store(db, clinic, clock):
    from appliance.store import ClinicStore

    s = ClinicStore(db, new_id=Ids(), now=clock)
    s.load_clinic(clinic)
    return s


@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL (Debian's package) for the session, in a temporary folder; stopped at the end."""
    from postgres_server import PostgresServer, binaries

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


@pytest.fixture
def postgres_dsn(postgres_server, request):
    """The address of a new, empty database on the session's PostgreSQL, dropped after the test."""
    import re

    import psycopg

    name = "test_" + re.sub(r"[^a-z0-9_]", "_", request.node.name.lower())[:50]
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    yield postgres_server.dsn(name)
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
