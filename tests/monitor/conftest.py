import asyncio
import shutil

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
