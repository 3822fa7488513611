"""The Diary screen driven from the keyboard: what it shows, and blocks, moves, cancellations and bookings made
through the store's guards, each recorded with who did it."""

import os
import pwd
import tempfile
from datetime import date, datetime
from pathlib import Path

from textual.coordinate import Coordinate
from textual.widgets import DataTable

from appliance.domain import Slot, TimeWindow
from appliance.events import EventBus, MonitorServer, StaffActionLog, StaffCommandHandler
from appliance.events.staff_action_log import staff_actions
from appliance.monitor.database_access import open_for_monitor
from appliance.monitor.screens.confirm_prompt import ConfirmPrompt
from appliance.monitor.screens.form_prompt import FormPrompt
from appliance.store import ClinicStore, open_database

from .conftest import make_app, read_rows, run, settle

WEDNESDAY = date(2026, 11, 25)   # the day after the seeded day: D. Patel's initial consultation with Dr Lee, 08:00


def put_cursor(app, practitioner: str, location: str, hhmm: str) -> None:
    table = app.query_one("#diary-table", DataTable)
    keys = [column.key.value for column in table.ordered_columns]
    rows = [row.key.value for row in table.ordered_rows]
    table.cursor_coordinate = Coordinate(rows.index(f"{WEDNESDAY}T{hhmm}:00"), keys.index(f"{practitioner}@{location}"))


def cell(app, practitioner: str, location: str, hhmm: str) -> str:
    table = app.query_one("#diary-table", DataTable)
    return table.get_cell(f"{WEDNESDAY}T{hhmm}:00", f"{practitioner}@{location}").plain


def actions(db_path):
    conn = open_for_monitor(db_path)
    try:
        return [(a["user"], a["action"], a["ok"], a["via"], a["note"], a["message"])
                for a in reversed(staff_actions(conn))]
    finally:
        conn.close()


def appointments(db_path, where="1 = 1"):
    return read_rows(db_path, f"SELECT id, practitioner_id, location_id, start, status, rescheduled_from "
                              f"FROM appointments WHERE {where} ORDER BY rowid")


async def open_wednesday(app, pilot):
    await pilot.press("6", "right_square_bracket")
    assert await settle(pilot, lambda: "Wednesday 25 November" in str(app.query_one("#diary-title").render()))


def test_a_day_shows_a_column_per_practitioner_and_location_with_phone_bookings_marked(seeded_db):
    store = ClinicStore(open_database(seeded_db))
    store.db.conn.execute("UPDATE appointments SET confirmed_aloud = 0 WHERE id = 'apt-3'")
    store.db.conn.commit()

    async def scenario():
        app = make_app(seeded_db)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_wednesday(app, pilot)
            table = app.query_one("#diary-table", DataTable)
            keys = [column.key.value for column in table.ordered_columns]
            assert keys == ["time", "lee@quay", "shah@quay", "shah@neutral-bay", "nguyen@neutral-bay", "nguyen@quay",
                            "oconnor@quay", "oconnor@neutral-bay"]
            assert cell(app, "lee", "quay", "08:00") == "☎? D. Patel"        # by phone, not yet heard
            assert cell(app, "lee", "quay", "08:15") == "│ Initial physiotherapy consultation"
            assert cell(app, "lee", "quay", "08:45") == ""
            assert cell(app, "shah", "quay", "08:00") == ""
            await pilot.press("left_curly_bracket")                            # a week back
            assert await settle(pilot, lambda: "Wednesday 18 November" in str(app.query_one("#diary-title").render()))
            await pilot.press("0")
            assert await settle(pilot, lambda: "(today)" in str(app.query_one("#diary-title").render()))

    run(scenario())


def test_a_blocked_time_is_drawn_recorded_and_never_offered_to_a_caller(seeded_store):
    async def scenario():
        app = make_app(seeded_store)
        async with app.run_test(size=(100, 30)) as pilot:
            await open_wednesday(app, pilot)
            put_cursor(app, "shah", "quay", "10:00")
            await pilot.press("b")
            assert await settle(pilot, lambda: isinstance(app.screen, FormPrompt))
            await pilot.press("enter", "enter", *"meeting", "enter")           # 10:00 to 11:00, as offered
            assert await settle(pilot, lambda: cell(app, "shah", "quay", "10:00") == "░░ meeting")
            assert cell(app, "shah", "neutral-bay", "10:45") == "░░"         # he is away from both sites
            assert cell(app, "shah", "quay", "11:00") == ""

    run(scenario())
    store = ClinicStore(open_database(seeded_store))
    offer = store.find_slots(service_id="followup", location_id="quay", practitioner_id="shah",
                             window=TimeWindow("day", start=datetime(2026, 11, 25, 9, 30), end=datetime(2026, 11, 26)),
                             now=datetime(2026, 11, 24, 9))
    assert [f"{s.start:%H:%M}" for s in offer.slots] == ["09:30", "11:00"]
    [(user, action, ok, via, note, message)] = actions(seeded_store)
    assert (user, action, ok, via) == ("alice", "block_time", 1, "monitor")
    assert note == "start=2026-11-25T10:00 end=2026-11-25T11:00 reason=meeting practitioner=shah"


def test_an_appointment_is_moved_and_a_move_onto_a_booking_is_refused(seeded_store):
    store = ClinicStore(open_database(seeded_store))
    store.create_appointment(patient_id="p-tmorgan", slot=Slot(datetime(2026, 11, 25, 11), "followup", "lee", "quay", 30))

    async def scenario():
        app = make_app(seeded_store)
        async with app.run_test(size=(100, 30)) as pilot:
            await open_wednesday(app, pilot)
            put_cursor(app, "lee", "quay", "08:00")
            await pilot.press("m")
            assert "Moving D. Patel" in str(app.query_one("#diary-title").render())
            put_cursor(app, "lee", "quay", "10:45")                            # 45 minutes would run into 11:00
            await pilot.press("enter")
            assert await settle(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
            await pilot.press("y")
            assert await settle(pilot, lambda: len(actions(seeded_store)) == 1)
            assert cell(app, "lee", "quay", "08:00") == "☎ D. Patel"          # still there
            put_cursor(app, "lee", "quay", "08:00")
            await pilot.press("m")
            put_cursor(app, "lee", "quay", "09:30")
            await pilot.press("m", "y")
            assert await settle(pilot, lambda: cell(app, "lee", "quay", "09:30") == "D. Patel")
            assert cell(app, "lee", "quay", "08:00") == ""

    run(scenario())
    refused, moved = actions(seeded_store)
    assert refused[:4] == ("alice", "move_appointment", 0, "monitor") and "no longer free" in refused[5]
    assert moved[:4] == ("alice", "move_appointment", 1, "monitor")
    assert [row[1:] for row in appointments(seeded_store, "id = 'apt-3' OR rescheduled_from = 'apt-3'")] == [
        ("lee", "quay", "2026-11-25T08:00", "cancelled", "a-1005"),     # itself moved by a call the day before
        ("lee", "quay", "2026-11-25T09:30", "booked", "apt-3")]


def test_booking_finds_the_patient_by_name_and_date_of_birth_or_writes_nothing(seeded_db):
    before = appointments(seeded_db)

    async def scenario():
        app = make_app(seeded_db)
        async with app.run_test(size=(100, 30)) as pilot:
            await open_wednesday(app, pilot)
            put_cursor(app, "shah", "neutral-bay", "14:00")
            await pilot.press("n")
            assert await settle(pilot, lambda: isinstance(app.screen, FormPrompt))
            await pilot.press(*"Sarah Johnson", "enter", *"1985-03-05", "enter", "enter")     # a day out
            assert await settle(pilot, lambda: len(actions(seeded_db)) == 1)
            await pilot.press("n", *"sarah johnson", "enter", *"1985-03-04", "enter", "enter")
            assert await settle(pilot, lambda: cell(app, "shah", "neutral-bay", "14:00") == "S. Johnson")

    run(scenario())
    refused, booked = actions(seeded_db)
    assert refused[2] == 0 and "no patient with that name and date of birth" in refused[5]
    assert "Johnson" not in refused[4] + refused[5] and "1985" not in refused[4]      # the log names no patient
    assert booked[2] == 1 and "patient p-sjohnson" in booked[5]
    added = [row for row in appointments(seeded_db) if row not in before]
    assert [row[1:5] for row in added] == [("shah", "neutral-bay", "2026-11-25T14:00", "booked")]


def test_the_whole_clinic_is_closed_for_a_day_then_opened_again(seeded_db):
    async def scenario():
        app = make_app(seeded_db)
        async with app.run_test(size=(100, 30)) as pilot:
            await open_wednesday(app, pilot)
            await pilot.press("h")
            assert await settle(pilot, lambda: isinstance(app.screen, FormPrompt))
            await pilot.press("enter", "enter", "enter")                      # the day shown, "public holiday"
            assert await settle(pilot, lambda: cell(app, "nguyen", "quay", "12:00") == "░░")
            assert cell(app, "lee", "quay", "08:00").startswith("☎⚠")        # booked before the block came
            assert "block_time" in actions(seeded_db)[0][1]
            put_cursor(app, "oconnor", "quay", "12:00")
            await pilot.press("u")
            assert await settle(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
            assert "the whole clinic" in app.screen.question
            await pilot.press("y")
            assert await settle(pilot, lambda: cell(app, "nguyen", "quay", "12:00") == "")

    run(scenario())
    assert [a[1:3] for a in actions(seeded_db)] == [("block_time", 1), ("unblock_time", 1)]
    assert "still booked in it" in actions(seeded_db)[0][5]


def test_through_the_running_service_a_cancellation_is_recorded_as_the_os_user(seeded_db):
    folder = Path(tempfile.mkdtemp(dir="/tmp"))
    server = MonitorServer(EventBus(), folder / "m.sock", handler=StaffCommandHandler(seeded_db),
                           action_log=StaffActionLog(seeded_db))

    async def scenario():
        with server:
            app = make_app(seeded_db, socket_path=folder / "m.sock", connect=True)
            async with app.run_test(size=(100, 30)) as pilot:
                assert await settle(pilot, lambda: app.connected)
                await open_wednesday(app, pilot)
                put_cursor(app, "lee", "quay", "08:30")
                await pilot.press("x")
                assert await settle(pilot, lambda: isinstance(app.screen, ConfirmPrompt))
                await pilot.press("y")
                assert await settle(pilot, lambda: cell(app, "lee", "quay", "08:00") == "")

    run(scenario())
    folder.rmdir()
    me = pwd.getpwuid(os.getuid()).pw_name
    assert [a[:4] for a in actions(seeded_db)] == [(me, "cancel_appointment", 1, "service")]
    assert appointments(seeded_db, "id = 'apt-3'")[0][4] == "cancelled"
