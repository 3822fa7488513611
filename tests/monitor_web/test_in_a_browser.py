"""In a real browser: headless Chromium (the distribution's) signs in to `appliance monitor --serve` over HTTPS,
sees a call in progress in Live calls, and marks a callback done; the database has it under her name.

The service side is the real one in this process: the monitor socket as `appliance run` serves it
(`serve_monitors`) and a call the engine is taking, turn by turn, published to it. The web monitor is the real
command in a process of its own. Playwright's Python package drives Chromium through the DevTools protocol
(`executable_path`: it never downloads a browser). The monitor draws on a canvas, so what the person sees is read
from the terminal output the page received over its websocket; the screenshots are kept as test artefacts
(`var/test-artefacts/`, or `$APPLIANCE_TEST_ARTEFACTS`).
"""

from __future__ import annotations

import codecs
import os
import re
import shutil
import signal
import socket
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import time
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
from appliance.events import serve_monitors
from appliance.monitor_web.staff_accounts import StaffAccounts
from appliance.store.clinic_store import ClinicStore
from appliance.store.database import open_database
from appliance.store.records import CallRecorder
from certificates import TestCa

from .conftest import PASSWORD

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium (installer/dev-setup.sh installs Debian's)")

ARTEFACTS = Path(os.environ.get("APPLIANCE_TEST_ARTEFACTS") or paths.REPO_ROOT / "var" / "test-artefacts")
CALLER = "0491 570 006"
ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])")


class ClinicService:
    """The demo clinic's database with an open callback, its monitor socket served as `appliance run` does, and a
    call in progress."""

    def __init__(self, folder: Path, socket_path: Path):
        self.db_path = folder / "appliance.db"
        clock, ids = FrozenClock(datetime(2026, 11, 24, 9, 10)), CountingIds()
        self.db = open_database(self.db_path)
        store = ClinicStore(self.db, new_id=ids, now=clock.now)
        store.load_clinic(clinic_from_mapping(yaml.safe_load((paths.REPO_ROOT / "config" / "clinic.demo.yaml")
                                                             .read_text())))
        self.callback_id = store.add_callback_request(call_id=None, patient_id=None, name="Maria Rossi",
                                                      phone="0491 570 158", reason="a question about an invoice")
        self.feed = serve_monitors(self.db_path, socket_path=socket_path)
        flow = load_flow(paths.REPO_ROOT / "config" / "flows" / "clinic.yaml")
        self.engine = Engine(flow=flow, store=store, clock=clock, new_id=ids,
                             recorder=self.feed.publisher_for(CallRecorder(self.db)))
        self.engine.start(CallInfo(caller_id=CALLER))
        self.engine.turn("Hi, I'd like to book a remedial massage please")

    def close(self) -> None:
        if not self.engine.ended:
            self.engine.hangup()
        self.feed.close()
        self.db.close()

    def callback(self) -> tuple:
        conn = sqlite3.connect(self.db_path)
        try:
            row = conn.execute("SELECT status, done_by, note FROM callback_requests WHERE id = ?",
                               [self.callback_id]).fetchone()
            actions = conn.execute("SELECT user, action, ok, via FROM staff_actions").fetchall()
        except sqlite3.OperationalError:     # no staff action recorded yet
            actions = []
        finally:
            conn.close()
        return row, actions


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_served(process: subprocess.Popen, port: int, timeout: float = 60.0) -> None:
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"appliance monitor --serve exited: {process.stderr.read()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as raw:
                with context.wrap_socket(raw):
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("appliance monitor --serve did not start listening")


@pytest.fixture
def web_monitor(tmp_path):
    socket_folder = Path(tempfile.mkdtemp(prefix="mw-", dir="/tmp"))     # a Unix socket path must be short
    service = ClinicService(tmp_path, socket_folder / "m.sock")
    issued = TestCa(tmp_path / "tls").issue("monitor-web")
    StaffAccounts(tmp_path / "staff-accounts").add("alice", PASSWORD)
    port = free_port()
    config = tmp_path / "appliance.toml"
    config.write_text(f'[monitor_web]\nlisten = ["127.0.0.1:{port}"]\ncertificate = "{issued.cert}"\n'
                      f'key = "{issued.key}"\nstaff_file = "{tmp_path / "staff-accounts"}"\n'
                      f'session_idle_minutes = 5\n[paths]\ndata_dir = "{tmp_path}"\ndatabase = "{service.db_path}"\n')
    env = {**os.environ, "APPLIANCE_CONFIG": str(config), "PYTHONPATH": str(paths.REPO_ROOT)}
    env.pop("APPLIANCE_DB", None)
    process = subprocess.Popen([sys.executable, "-c", "from appliance.cli import main; main()", "monitor", "--serve",
                                "--socket", str(socket_folder / "m.sock")], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_until_served(process, port)
        yield f"https://127.0.0.1:{port}", service
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)      # the server and the monitor processes it started
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(5)
        service.close()
        shutil.rmtree(socket_folder, ignore_errors=True)


class Screen:
    """What the monitor drew in the page, as text: its terminal output received over the websocket."""

    def __init__(self, page) -> None:
        self.text = ""
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        page.on("websocket", lambda ws: ws.on("framereceived", self._received))

    def _received(self, payload) -> None:
        if isinstance(payload, bytes):
            self.text += ANSI.sub("", self._decode(payload))

    def wait_for(self, page, *texts: str, timeout: float = 45.0) -> None:
        start = len(self.text)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(text in self.text for text in texts):
                return
            page.wait_for_timeout(200)
        raise AssertionError(f"never drew {texts}; drew last: {self.text[max(start, len(self.text) - 2000):]!r}")


def test_a_member_of_staff_signs_in_sees_the_live_call_and_marks_a_callback_done(web_monitor):
    url, service = web_monitor
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        # no GPU here: WebGL (the terminal's renderer) in software
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"])
        try:
            page = browser.new_context(ignore_https_errors=True, viewport={"width": 1280, "height": 760}).new_page()
            screen = Screen(page)
            page.goto(url + "/")
            assert page.url == url + "/sign-in"                      # nothing without signing in

            page.fill("#name", "alice")
            page.fill("#password", "not her password")
            page.click("#sign-in")
            assert "do not match an account" in page.inner_text("#message")

            page.fill("#password", PASSWORD)
            page.click("#sign-in")
            page.wait_for_selector("#who")
            assert page.url == url + "/" and "signed in as alice" in page.inner_text("#who")

            screen.wait_for(page, "1 call in progress", CALLER, "you: alice")
            page.wait_for_timeout(500)                               # let the canvas catch up with the stream
            page.screenshot(path=str(ARTEFACTS / "monitor-web-live-calls.png"))

            page.click("#terminal")
            page.keyboard.press("2")
            screen.wait_for(page, "Maria Rossi")
            page.keyboard.press("d")
            screen.wait_for(page, "Mark the callback")
            page.keyboard.type("rang back")
            page.keyboard.press("Enter")
            deadline = time.monotonic() + 30
            while service.callback()[0][0] != "done" and time.monotonic() < deadline:
                page.wait_for_timeout(200)
            screen.wait_for(page, "Done: callback")
            page.screenshot(path=str(ARTEFACTS / "monitor-web-callback-done.png"))
        finally:
            browser.close()

    row, actions = service.callback()
    assert row == ("done", "alice", "alice: rang back")
    assert actions == [("alice", "mark_callback_done", 1, "web")]
    assert (ARTEFACTS / "monitor-web-live-calls.png").stat().st_size > 10_000
