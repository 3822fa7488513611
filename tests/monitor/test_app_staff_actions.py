"""Staff actions from the keyboard: written to the database (directly, or through the service) with who did it."""

import os
import pwd
import tempfile
from pathlib import Path

from appliance.events import EventBus, MonitorServer, StaffActionLog, StaffCommandHandler
from appliance.events.staff_action_log import staff_actions
from appliance.monitor.database_access import open_for_monitor
from appliance.monitor.screens.confirm_prompt import ConfirmPrompt
from appliance.monitor.screens.text_prompt import TextPrompt

from .conftest import feed, make_app, run
from .recorded_stream import until


def callback(db_path, name):
    conn = open_for_monitor(db_path)
    try:
        row = conn.execute("SELECT status, done_by, note FROM callback_requests WHERE name = ?", [name]).fetchone()
        actions = [(a["user"], a["claimed_user"], a["action"], a["ok"], a["via"])
                   for a in reversed(staff_actions(conn))]
    finally:
        conn.close()
    return row, actions


async def wait_for(pilot, condition, tries=60):
    for _ in range(tries):
        await pilot.pause(0.05)
        if condition():
            return True
    return False


def test_a_callback_is_marked_done_in_the_database_when_the_service_is_not_running(seeded_store):
    async def scenario():
        app = make_app(seeded_store)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("2")
            assert app.query_one("#callbacks-table").row_count == 2
            await pilot.press("d")                                     # the first: Priya Shah, urgent
            assert await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
            await pilot.press(*"called back", "enter")
            assert await wait_for(pilot, lambda: app.query_one("#callbacks-table").row_count == 1)

    run(scenario())
    row, actions = callback(seeded_store, "Priya Shah")
    assert row == ("done", "alice", "alice: called back")
    assert actions == [("alice", "alice", "mark_callback_done", 1, "monitor")]


def test_a_note_is_added_and_the_callback_stays_open(seeded_db):
    async def scenario():
        app = make_app(seeded_db)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("2", "down", "n")
            await pilot.press("enter")                                  # an empty note is not taken
            assert isinstance(app.screen, TextPrompt)
            await pilot.press(*"no answer", "enter")
            await wait_for(pilot, lambda: not isinstance(app.screen, TextPrompt))
            assert await wait_for(pilot, lambda: "alice" in (callback(seeded_db, "Maria Rossi")[0][2] or ""))

    run(scenario())
    row, actions = callback(seeded_db, "Maria Rossi")
    status, done_by, note = row
    assert (status, done_by) == ("open", None)
    summary, added = note.split("\n")          # the call's summary was its first note; staff notes follow it
    assert summary.startswith("Summary: Maria Rossi") and added == "alice: no answer"
    assert actions == [("alice", "alice", "add_callback_note", 1, "monitor")]


def test_escape_changes_nothing(seeded_db):
    async def scenario():
        app = make_app(seeded_db)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("2", "d", "escape")
            await pilot.pause()

    run(scenario())
    assert callback(seeded_db, "Priya Shah") == (("open", None, None), [])


def test_through_the_running_service_the_action_is_recorded_as_the_os_user(seeded_store):
    folder = Path(tempfile.mkdtemp(dir="/tmp"))
    server = MonitorServer(EventBus(), folder / "m.sock", handler=StaffCommandHandler(seeded_store),
                           action_log=StaffActionLog(seeded_store))

    async def scenario():
        with server:
            app = make_app(seeded_store, socket_path=folder / "m.sock", connect=True)
            async with app.run_test(size=(100, 30)) as pilot:
                assert await wait_for(pilot, lambda: app.connected)
                await pilot.press("2", "d", "enter")
                assert await wait_for(pilot, lambda: app.query_one("#callbacks-table").row_count == 1)

    run(scenario())
    folder.rmdir()
    me = pwd.getpwuid(os.getuid()).pw_name
    row, actions = callback(seeded_store, "Priya Shah")
    assert row == ("done", me, None)
    assert actions == [(me, "alice", "mark_callback_done", 1, "service")]


def test_transfer_and_end_a_live_call_go_to_the_service_after_a_yes(seeded_db, stream):
    folder = Path(tempfile.mkdtemp(dir="/tmp"))
    done = []
    handler = StaffCommandHandler(seeded_db)
    handler.control_call("call-1", transfer_now=lambda user: done.append("transfer"),
                         end_call=lambda user: done.append("end"))
    bus = EventBus()
    for event in until(stream, lambda e: e.kind == "turn" and e.call_id == "call-2"):
        bus.publish(event.kind, event.call_id, event.fields)

    async def scenario():
        with MonitorServer(bus, folder / "m.sock", handler=handler, action_log=StaffActionLog(seeded_db)):
            app = make_app(seeded_db, socket_path=folder / "m.sock", connect=True)
            async with app.run_test(size=(100, 30)) as pilot:
                assert await wait_for(pilot, lambda: app.query_one("#live-table").row_count == 2)
                await pilot.press("t")
                assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
                assert "front desk" in app.screen.question
                await pilot.press("n")                                   # no: nothing happens
                await pilot.press("t", "y")
                assert await wait_for(pilot, lambda: done == ["transfer"])
                await pilot.press("enter", "x", "y")                    # from the transcript
                assert await wait_for(pilot, lambda: done == ["transfer", "end"])
                await pilot.press("escape", "down", "x", "y")            # call-2 has no line here: refused
                await pilot.pause(0.3)

    run(scenario())
    folder.rmdir()
    _row, actions = callback(seeded_db, "Priya Shah")
    assert [(a[2], a[3]) for a in actions] == [("transfer_now", 1), ("end_call", 1), ("end_call", 0)]


def test_without_the_service_a_live_call_cannot_be_transferred(seeded_db, stream):
    async def scenario():
        app = make_app(seeded_db)
        async with app.run_test(size=(100, 30)) as pilot:
            feed(app, until(stream, lambda e: e.kind == "turn"))
            await pilot.pause()
            result = app.staff.perform_without_service(app.staff.command("transfer_now", call_id="call-1"))
            assert not result.ok and "not running" in result.message

    run(scenario())


def test_listen_in_and_take_over_from_a_live_transcript_go_to_the_service_after_a_yes(seeded_db, stream):
    folder = Path(tempfile.mkdtemp(dir="/tmp"))
    done = []
    handler = StaffCommandHandler(seeded_db)
    handler.control_call("call-1", listen_in=lambda user: done.append(("listen", user)),
                         take_over=lambda user: done.append(("take", user)))
    bus = EventBus()
    for event in until(stream, lambda e: e.kind == "turn" and e.call_id == "call-2"):
        bus.publish(event.kind, event.call_id, event.fields)
    me = pwd.getpwuid(os.getuid()).pw_name

    async def scenario():
        with MonitorServer(bus, folder / "m.sock", handler=handler, action_log=StaffActionLog(seeded_db)):
            app = make_app(seeded_db, socket_path=folder / "m.sock", connect=True)
            async with app.run_test(size=(100, 30)) as pilot:
                assert await wait_for(pilot, lambda: app.query_one("#live-table").row_count == 2)
                await pilot.press("enter", "l")
                assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
                assert "listen in" in app.screen.question and "muted" in app.screen.question
                await pilot.press("y")
                assert await wait_for(pilot, lambda: done == [("listen", me)])
                await pilot.press("t")
                assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
                assert "Take over" in app.screen.question
                await pilot.press("y")
                assert await wait_for(pilot, lambda: done == [("listen", me), ("take", me)])

    run(scenario())
    folder.rmdir()
    _row, actions = callback(seeded_db, "Priya Shah")
    assert [(a[0], a[2], a[3]) for a in actions] == [(me, "listen_in", 1), (me, "take_over", 1)]
