import socket
import tempfile
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from appliance import paths
from appliance.clinic import clinic_from_mapping
from appliance.engine.clock import CountingIds, FrozenClock
from appliance.engine.engine import Engine
from appliance.engine.flow import load_flow
from appliance.engine.types import CallInfo
from appliance.store.clinic_store import ClinicStore
from appliance.store.database import open_database
from appliance.store.records import CallRecorder

DEMO_LINES = ["Hi, I'd like to book a remedial massage please", "Sarah Johnson",
              "the fourth of March, nineteen eighty five", "Neutral Bay please", "Thursday afternoon",
              "the first one", "yes please", "no, that's all, thanks"]


@pytest.fixture(scope="session")
def demo_flow():
    return load_flow(paths.REPO_ROOT / "config" / "flows" / "clinic.yaml")


@pytest.fixture
def short_dir():
    """Unix socket paths must be short: a folder right under /tmp."""
    folder = Path(tempfile.mkdtemp(prefix="ev-", dir="/tmp"))
    yield folder
    for child in sorted(folder.rglob("*"), reverse=True):
        child.unlink() if not child.is_dir() else child.rmdir()
    folder.rmdir()


class DemoClinic:
    """The demo clinic in a database file, and engines for calls to it."""

    def __init__(self, db_path: Path, flow):
        self.db_path = db_path
        self.flow = flow
        self.clock = FrozenClock(datetime(2026, 11, 24, 9, 10))
        self.ids = CountingIds()
        self.db = open_database(db_path)
        self.store = ClinicStore(self.db, new_id=self.ids, now=self.clock.now)
        self.store.load_clinic(clinic_from_mapping(yaml.safe_load(
            (paths.REPO_ROOT / "config" / "clinic.demo.yaml").read_text())))
        self.recorder = CallRecorder(self.db)

    def engine(self, recorder) -> Engine:
        return Engine(flow=self.flow, store=self.store, clock=self.clock, new_id=self.ids, recorder=recorder)

    def start(self, recorder, caller_id: str = "0491 570 006") -> Engine:
        engine = self.engine(recorder)
        engine.start(CallInfo(caller_id=caller_id))
        return engine


@pytest.fixture
def clinic(tmp_path, demo_flow):
    return DemoClinic(tmp_path / "appliance.db", demo_flow)


def read_messages(sock: socket.socket, until, timeout: float = 5.0) -> list[dict]:
    """Read JSON lines from a raw socket until `until(messages)` holds (or fail after `timeout`)."""
    import json
    import time

    sock.settimeout(0.2)
    buffer = b""
    messages: list[dict] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        if not chunk:
            break
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        messages.extend(json.loads(line) for line in lines if line)
        if until(messages):
            return messages
    raise AssertionError(f"gave up waiting; got {[m.get('kind', m['type']) for m in messages]}")
