"""One monitor for the group: the live calls of several services on one board, each row naming its box and each
action sent to the box the call is on; a box on another machine over TLS with client certificates; a box that
cannot be reached shown as such; and, on the shared PostgreSQL store, a callback raised on one box on every desk."""

from __future__ import annotations

import os
import pwd
import ssl
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from appliance.events import EventBus, MonitorServer, StaffActionLog, StaffCommandHandler
from appliance.events.monitor_client import MonitorClient
from appliance.events.monitor_tls import client_context, server_context
from appliance.events.staff_action_log import staff_actions
from appliance.monitor.database_access import open_for_monitor
from appliance.monitor.screens.confirm_prompt import ConfirmPrompt
from appliance.monitor.screens.text_prompt import TextPrompt
from appliance.monitor.watched_services import socket_link, tls_link
from appliance.monitor.widgets.status_line import StatusLine
from certificates import TestCa

from .conftest import make_app, read_rows, run, settle
from .recorded_stream import until

ROOT = Path(__file__).resolve().parents[2]


def cell(app, call_id: str, column: str) -> str:
    return app.query_one("#live-table").get_cell(call_id, column).plain


def publish(bus: EventBus, events) -> None:
    for event in events:
        bus.publish(event.kind, event.call_id, event.fields)


def recorded_actions(target) -> list[tuple]:
    conn = open_for_monitor(target)
    try:
        return [(a["user"], a["claimed_user"], a["action"], a["ok"], a["via"]) for a in reversed(staff_actions(conn))]
    finally:
        conn.close()


def test_the_board_shows_every_services_calls_by_box_and_acts_on_the_box_the_call_is_on(seeded_db, stream):
    folder = Path(tempfile.mkdtemp(dir="/tmp"))
    part = until(stream, lambda e: e.kind == "turn" and e.call_id == "call-2")
    main_bus, north_bus = EventBus(), EventBus()
    publish(main_bus, [e for e in part if e.call_id == "call-1"])
    publish(north_bus, [e for e in part if e.call_id == "call-2"])
    done: list[tuple[str, str]] = []
    handlers = {}
    for box, call_id in (("main", "call-1"), ("north", "call-2")):
        handlers[box] = StaffCommandHandler(seeded_db)
        handlers[box].control_call(call_id,
                                   transfer_now=lambda user, box=box, call_id=call_id: done.append((box, call_id)))
    main = MonitorServer(main_bus, folder / "main.sock", handler=handlers["main"])
    north = MonitorServer(north_bus, folder / "north.sock", handler=handlers["north"])

    async def scenario():
        with main, north:
            app = make_app(seeded_db, connect=True, retry_seconds=0.05, services=[
                socket_link(folder / "main.sock", "main"), socket_link(folder / "north.sock", "north"),
                socket_link(folder / "south.sock", "south")])                  # nothing serves there
            async with app.run_test(size=(110, 30)) as pilot:
                assert await settle(pilot, lambda: app.query_one("#live-table").row_count == 2)
                assert (cell(app, "call-1", "box"), cell(app, "call-2", "box")) == ("main", "north")
                message = str(app.query_one("#live-message").render())
                assert "2 calls in progress" in message and "! south not reachable at" in message
                status = str(app.query_one(StatusLine).render())
                assert "2 of 3 services" in status and "NOT REACHABLE: south" in status
                await pilot.press("down", "t")                                 # call-2, on north
                assert await settle(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
                assert "(on north)" in app.screen.question
                await pilot.press("y")
                assert await settle(pilot, lambda: done == [("north", "call-2")])
                north.close()                                                  # north goes away: the rest stays
                assert await settle(pilot, lambda: app.query_one("#live-table").row_count == 1)
                assert "NOT REACHABLE: north, south" in str(app.query_one(StatusLine).render())
                await pilot.press("t", "y")
                assert await settle(pilot, lambda: done == [("north", "call-2"), ("main", "call-1")])

    run(scenario())
    for name in ("main.sock", "north.sock"):
        (folder / name).unlink(missing_ok=True)
    folder.rmdir()


@pytest.fixture
def tls_files(tmp_path):
    ca = TestCa(tmp_path / "ca")
    stranger = TestCa(tmp_path / "other-ca", name="another CA")
    return SimpleNamespace(ca=ca.cert, service=ca.issue("north-box"), desk=ca.issue("desk", common_name="desk-2"),
                           stranger=stranger.issue("desk-9", common_name="desk-9"))


def test_a_remote_service_over_tls_serves_a_desk_with_a_certificate_and_refuses_one_without(seeded_db, stream,
                                                                                            tls_files):
    folder = Path(tempfile.mkdtemp(dir="/tmp"))
    bus = EventBus()
    publish(bus, until(stream, lambda e: e.kind == "turn" and e.call_id == "call-1"))
    server = MonitorServer(bus, folder / "m.sock", handler=StaffCommandHandler(seeded_db),
                           action_log=StaffActionLog(seeded_db),
                           tls=("127.0.0.1", 0, server_context(tls_files.service.cert, tls_files.service.key,
                                                               tls_files.ca)))

    async def hello_without(context: ssl.SSLContext) -> bytes:
        """What a monitor without an accepted certificate reads: never the hello (the handshake refuses it)."""
        try:
            client = await MonitorClient.connect_tls("127.0.0.1", server.tls_address[1], context)
        except OSError:
            return b""
        try:
            return await client.reader.readline()
        except (OSError, ConnectionError):
            return b""
        finally:
            await client.close()

    async def scenario():
        with server:
            host, port = server.tls_address
            no_certificate = ssl.create_default_context(cafile=tls_files.ca)
            assert await hello_without(no_certificate) == b""
            assert await hello_without(client_context(tls_files.stranger.cert, tls_files.stranger.key,
                                                      tls_files.ca)) == b""
            desk = client_context(tls_files.desk.cert, tls_files.desk.key, tls_files.ca)
            app = make_app(seeded_db, connect=True, retry_seconds=0.05, services=[tls_link("north", host, port, desk)])
            async with app.run_test(size=(100, 30)) as pilot:
                assert await settle(pilot, lambda: app.connected and app.query_one("#live-table").row_count == 1)
                await pilot.press("2", "d")                                    # the urgent callback, through north
                assert await settle(pilot, lambda: isinstance(app.screen, TextPrompt))
                await pilot.press("enter")
                assert await settle(pilot, lambda: app.query_one("#callbacks-table").row_count == 1)

    run(scenario())
    (folder / "m.sock").unlink(missing_ok=True)
    folder.rmdir()
    # recorded as the desk the certificate names, with the OS user that desk's monitor named
    assert recorded_actions(seeded_db) == [("desk-2", "alice", "mark_callback_done", 1, "remote")]


def test_a_callback_raised_on_one_box_shows_on_every_desk_and_is_done_through_another(postgres_dsn, monkeypatch):
    from appliance.events.socket_file import SOCKET_ENV
    from appliance.settings import load_settings
    from appliance.sip.service import PhoneService

    monkeypatch.delenv(SOCKET_ENV, raising=False)
    folder = Path(tempfile.mkdtemp(dir="/tmp"))

    def box(name: str) -> PhoneService:
        (folder / name).mkdir()
        config = folder / name / "appliance.toml"
        config.write_text(f'[data]\ndatabase = "{postgres_dsn}"\n[paths]\ndata_dir = "{folder / name}"\n'
                          f'clinic = "{ROOT / "config" / "clinic.demo.yaml"}"\n')
        service = PhoneService(load_settings(config, warn=False))
        service.runtime = SimpleNamespace(classifier=None)
        service._prepare_clinic()
        return service

    main, north = box("main"), box("north")
    main._serve_monitor(main.database)                         # as start() does, on the shared store too
    north._callback_request("call-busy", "0491 570 006")      # all of north's lines were busy
    me = pwd.getpwuid(os.getuid()).pw_name

    async def scenario():
        app = make_app(postgres_dsn, connect=True, retry_seconds=0.05, services=[
            socket_link(folder / "main" / "monitor.sock", "main"), socket_link(folder / "north" / "monitor.sock",
                                                                             "north")])
        async with app.run_test(size=(100, 30)) as pilot:
            assert await settle(pilot, lambda: app.connected)
            await pilot.press("2")
            assert app.query_one("#callbacks-table").row_count == 1    # north's, read from the shared store
            await pilot.press("d")
            assert await settle(pilot, lambda: isinstance(app.screen, TextPrompt))
            await pilot.press(*"rang back", "enter")                   # through main's service: north's is not up
            assert await settle(pilot, lambda: app.query_one("#callbacks-table").row_count == 0)

    try:
        run(scenario())
    finally:
        main.feed.close()
    assert read_rows(postgres_dsn, "SELECT status, done_by, phone FROM callback_requests") == [
        ("done", me, "+61491570006")]
    assert recorded_actions(postgres_dsn) == [(me, "alice", "mark_callback_done", 1, "service")]
    import shutil

    shutil.rmtree(folder)
