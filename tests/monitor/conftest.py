import asyncio
import shutil
import uuid

import psycopg
import pytest

from appliance.monitor import MonitorApp

from .recorded_stream import load_stream
from .review_calls import add_calls_to_review
from .seeded_clinic import DAY, FLOW, seed_database

NO_SERVICE = "/run/appliance-test/monitor.sock"   # nothing answers there


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory):
    return seed_database(tmp_path_factory.mktemp("seed") / "appliance.db")


@pytest.fixture
def seeded_db(seeded_template, tmp_path):
    """A fresh copy of the seeded day for each test (tests mark callbacks done)."""
    path = tmp_path / "appliance.db"
    shutil.copy(seeded_template, path)
    return path


@pytest.fixture(scope="session")
def seeded_pg_template(postgres_server, seeded_template):
    """The seeded day moved into PostgreSQL (`appliance db migrate`), once: each test gets a copy of it."""
    return _pg_template(postgres_server, seeded_template, "monitor_seeded_day")


@pytest.fixture(scope="session")
def review_pg_template(postgres_server, review_template):
    return _pg_template(postgres_server, review_template, "monitor_review_day")


@pytest.fixture
def seeded_pg(postgres_server, seeded_pg_template):
    """A fresh copy of the seeded day on the shared store (PostgreSQL copies a template database quickly)."""
    yield from _pg_copy(postgres_server, seeded_pg_template)


def _on_each_back_end(request, day: str):
    """`day`'s database on the back end the fixture's parameter names: `<day>_db` or `<day>_pg`."""
    return request.getfixturevalue(f"{day}_db" if request.param == "sqlite" else f"{day}_pg")


@pytest.fixture(params=["sqlite", "postgresql"])
def seeded_store(request):
    """The seeded day on each back end in turn: the SQLite file's path, then a postgresql:// address."""
    return _on_each_back_end(request, "seeded")


@pytest.fixture
def review_pg(postgres_server, review_pg_template):
    yield from _pg_copy(postgres_server, review_pg_template)


@pytest.fixture(params=["sqlite", "postgresql"])
def review_store(request):
    """The seeded day with calls to review, on each back end in turn."""
    return _on_each_back_end(request, "review")


def _pg_template(server, sqlite_file, name: str) -> str:
    from appliance.store.migrate import migrate

    _drop_and_create(server, name)
    migrate(sqlite_file, server.dsn(name))
    return name


def _pg_copy(server, template: str):
    name = f"monitor_{uuid.uuid4().hex[:12]}"
    _drop_and_create(server, name, template=template)
    yield server.dsn(name)
    with psycopg.connect(server.dsn(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _drop_and_create(server, name: str, *, template: str | None = None) -> None:
    with psycopg.connect(server.dsn(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))


@pytest.fixture(scope="session")
def review_template(seeded_template, tmp_path_factory):
    path = tmp_path_factory.mktemp("review") / "appliance.db"
    shutil.copy(seeded_template, path)
    return add_calls_to_review(path)


@pytest.fixture
def review_db(review_template, tmp_path):
    """The seeded day with calls to review added (review_calls.py)."""
    path = tmp_path / "appliance.db"
    shutil.copy(review_template, path)
    return path


@pytest.fixture(scope="session")
def stream():
    return load_stream()


def make_app(db_path, *, now: float = 0.0, socket_path=NO_SERVICE, connect: bool = False, **kwargs) -> MonitorApp:
    """The monitor on a fixed day and a fixed wall clock, fed by hand unless `connect`."""
    return MonitorApp(db_path=db_path, socket_path=socket_path, flow=FLOW, user="alice", connect=connect,
                      clock=lambda: now, today=lambda: DAY, **kwargs)


def feed(app: MonitorApp, events, *, server: str = "recorded") -> None:
    """Give the app a recorded stream as if the service sent it on connecting."""
    app.receive("hello", {"type": "hello", "server": server, "database": None})
    for event in events:
        app.receive("event", event)
    app.receive("replay_done", {"type": "replay_done"})


def run(coroutine):
    return asyncio.run(coroutine)


async def settle(pilot, condition, tries: int = 100) -> bool:
    """Let the app work until `condition()` holds (messages chain through several hops; CI machines are busy)."""
    for _ in range(tries):
        if condition():
            return True
        await pilot.pause(0.05)
    return condition()


def read_rows(target, sql: str, params=()) -> list[tuple]:
    """Rows from the database at `target` (a file or a postgresql:// address), as the monitor opens it."""
    from appliance.monitor.database_access import open_for_monitor

    conn = open_for_monitor(target)
    try:
        return [tuple(row) for row in conn.execute(sql, list(params)).fetchall()]
    finally:
        conn.close()
