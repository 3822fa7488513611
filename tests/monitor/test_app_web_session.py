"""The monitor as a browser session runs it (`staff_account`): its actions are the signed-in person's."""

import os
import pwd
import tempfile
from pathlib import Path

from appliance.events import EventBus, MonitorServer, StaffActionLog, StaffCommandHandler
from appliance.monitor.screens.text_prompt import TextPrompt

from .conftest import make_app, run
from .test_app_staff_actions import callback, wait_for

ME = pwd.getpwuid(os.getuid()).pw_name


def test_through_the_service_the_action_is_the_signed_in_accounts(seeded_db):
    folder = Path(tempfile.mkdtemp(dir="/tmp"))
    server = MonitorServer(EventBus(), folder / "m.sock", handler=StaffCommandHandler(seeded_db),
                           action_log=StaffActionLog(seeded_db))

    async def scenario():
        with server:
            app = make_app(seeded_db, socket_path=folder / "m.sock", connect=True, staff_account="carol")
            async with app.run_test(size=(100, 30)) as pilot:
                assert await wait_for(pilot, lambda: app.connected)
                assert "you: carol" in str(app.query_one("#status").render())
                await pilot.press("2", "d")
                assert await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
                await pilot.press(*"rang back", "enter")
                assert await wait_for(pilot, lambda: app.query_one("#callbacks-table").row_count == 1)

    run(scenario())
    folder.rmdir()
    row, actions = callback(seeded_db, "Priya Shah")
    assert row == ("done", "carol", "carol: rang back")
    assert actions == [("carol", ME, "mark_callback_done", 1, "web")]


def test_without_the_service_the_web_monitor_writes_it_as_the_account(seeded_db):
    async def scenario():
        app = make_app(seeded_db, staff_account="carol")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("2", "d")
            assert await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt))
            await pilot.press("enter")
            assert await wait_for(pilot, lambda: app.query_one("#callbacks-table").row_count == 1)

    run(scenario())
    row, actions = callback(seeded_db, "Priya Shah")
    assert row == ("done", "carol", None)
    assert actions == [("carol", "alice", "mark_callback_done", 1, "web")]   # alice: the process's OS user here
