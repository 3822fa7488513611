"""The diary's staff commands on the wire: what each needs, what goes in the log, refusals that write nothing."""

import pytest

from appliance.clinic import clinic_from_mapping
from appliance.events.diary_commands import apply_diary_command
from appliance.events.messages import BadMessage, StaffCommand
from appliance.store import ClinicStore, open_database


@pytest.fixture
def store(clinic_data):
    store = ClinicStore(open_database(":memory:"))
    store.load_clinic(clinic_from_mapping(clinic_data))
    return store


def test_a_diary_command_travels_with_its_details_and_logs_none_of_the_patients():
    command = StaffCommand(action="book_appointment", user="alice", details={
        "name": "Sarah Johnson", "dob": "1985-03-04", "service": "followup", "practitioner": "lee",
        "location": "city", "start": "2026-11-25T09:00"})
    again = StaffCommand.from_wire(command.to_wire())
    assert again == command
    assert "Johnson" not in command.recorded_note() and "1985" not in command.recorded_note()
    assert "start=2026-11-25T09:00" in command.describe()


@pytest.mark.parametrize("action, details, problem", [
    ("block_time", {"start": "2026-11-25T09:00"}, "missing end"),
    ("move_appointment", {"appointment_id": "a1", "start": "x", "room": "2"}, "unknown room"),
    ("cancel_appointment", None, "missing appointment_id"),
])
def test_a_command_missing_what_it_needs_is_not_a_command(action, details, problem):
    with pytest.raises(BadMessage, match=problem):
        StaffCommand(action=action, user="alice", details=details)


def test_refusals_write_nothing(store):
    def do(action, **details):
        return apply_diary_command(store, StaffCommand(action=action, user="alice", details=details), user="alice")

    before = store.db.conn.execute("SELECT count(*) FROM appointments").fetchone()
    book = {"service": "followup", "practitioner": "lee", "location": "city", "start": "2026-11-25T09:00"}
    assert "no patient" in do("book_appointment", name="Sarah Jonson", dob="1985-03-04", **book).message
    assert "first and last name" in do("book_appointment", name="Sarah", dob="1985-03-04", **book).message
    assert "not a date" in do("book_appointment", name="Sarah Johnson", dob="4 March", **book).message
    off_grid = do("book_appointment", name="Sarah Johnson", dob="1985-03-04", **{**book, "start": "2026-11-25T09:10"})
    assert not off_grid.ok and "start time within opening hours" in off_grid.message
    assert "not a date and time" in do("move_appointment", appointment_id="a1", start="Thursday").message
    assert "no appointment" in do("cancel_appointment", appointment_id="nope").message
    assert "no block" in do("unblock_time", block_id="nope").message
    assert "end after it starts" in do("block_time", practitioner="lee", start="2026-11-25T10:00",
                                       end="2026-11-25T09:00").message
    assert store.db.conn.execute("SELECT count(*) FROM appointments").fetchone() == before
    assert store.db.conn.execute("SELECT count(*) FROM diary_blocks").fetchone() == (0,)
    booked = do("book_appointment", name="sarah johnson", dob="1985-03-04", **book)
    assert booked.ok and "patient p1" in booked.message and "Johnson" not in booked.message
