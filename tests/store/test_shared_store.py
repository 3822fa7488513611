"""The shared store on a real PostgreSQL: several boxes writing at once never double-book, a call's write and its
record commit together, a refused write goes to the fallback journal and comes back, a server that went away is
reconnected to, and a box's restart closes only its own calls."""

from __future__ import annotations

import threading
import time
from datetime import date, timedelta

import psycopg
import pytest
from test_durability import BOOKING, CALLER, YES, Clinic

from appliance.domain import Slot
from appliance.store.clinic_store import SlotTaken
from appliance.store.fallback_journal import FallbackJournal, unreplayed
from appliance.store.recovery import recover
from appliance.store.write_budget import WriteBudget

@pytest.fixture
def shared(postgres_dsn, flow):
    """The demo clinic in a new PostgreSQL database, as one box sees it."""
    box = Clinic(postgres_dsn, flow)
    yield box
    box.db.close()


def other_box(shared, **options):
    """A second appliance on the same database (its own connection, clock and ids, and its own name)."""
    box = Clinic(shared.path, shared.flow, **options)
    box.ids._n = 1000                               # its ids differ from the first box's, as random ones do
    box.recorder.box = "another-box"
    return box


def test_a_booking_commits_with_its_tool_call_and_turn_on_postgres(shared):
    engine = shared.call(BOOKING[:YES + 1])
    call_id = engine.ctx.call_id
    (booking,) = shared.rows("SELECT id, confirmed_aloud FROM appointments WHERE created_by_call = ?", call_id)
    assert booking[1] == 0
    tools = shared.rows("SELECT name, result::jsonb #>> '{appointment,id}' FROM tool_calls WHERE call_id = ? "
                        "AND name = 'CreateAppointment'", call_id)
    assert tools == [("CreateAppointment", booking[0])]
    engine.turn(BOOKING[YES + 1])                   # the caller went on: the booking was heard
    assert shared.rows("SELECT confirmed_aloud FROM appointments WHERE id = ?", booking[0]) == [(1,)]


def test_two_boxes_booking_one_slot_at_the_same_moment_end_with_one_booking(shared):
    """Read committed: both re-checks find the slot free; the exclusion constraint refuses the second insert, and
    the store says SlotTaken, as on SQLite."""
    second = other_box(shared)
    patients = [row[0] for row in shared.rows("SELECT id FROM patients ORDER BY rowid LIMIT 2")]
    practitioner, service, location = shared.rows(
        "SELECT ps.practitioner_id, ps.service_id, pl.location_id FROM practitioner_services ps "
        "JOIN practitioner_locations pl ON pl.practitioner_id = ps.practitioner_id "
        "ORDER BY ps.practitioner_id, ps.position, pl.position LIMIT 1")[0]
    slot = _first_free_slot(shared, service, location, practitioner)
    inside = threading.Event()
    outcome: dict[str, object] = {}

    def first_books_and_waits():
        with shared.store.transaction():
            outcome["first"] = shared.store.create_appointment(patient_id=patients[0], slot=slot, call_id=None)
            inside.set()
            time.sleep(0.5)                         # still uncommitted while the second box books

    writer = threading.Thread(target=first_books_and_waits)
    writer.start()
    assert inside.wait(10)
    started = time.monotonic()
    with pytest.raises(SlotTaken):
        second.store.create_appointment(patient_id=patients[1], slot=slot, call_id=None)
    assert time.monotonic() - started > 0.2        # it waited for the first box's row: the constraint refused it
    writer.join()
    assert shared.rows("SELECT count(*) FROM appointments WHERE status = 'booked' AND practitioner_id = ? "
                       "AND start = ?", practitioner, slot.start.strftime("%Y-%m-%dT%H:%M")) == [(1,)]
    second.db.close()


def _first_free_slot(box, service, location, practitioner) -> Slot:
    from appliance.domain import TimeWindow

    start = box.clock.now().replace(hour=0, minute=0)
    window = TimeWindow("soon", start=start, end=start + timedelta(days=7))
    offer = box.store.find_slots(service_id=service, location_id=location, practitioner_id=practitioner,
                                 window=window, now=box.clock.now(), count=1)
    return offer.slots[0]


def test_a_restarting_box_closes_only_its_own_calls(shared, flow):
    ours = shared.call(BOOKING[:2])                 # this box's call, cut off by a crash
    theirs_box = other_box(shared)
    theirs = theirs_box.call(BOOKING[:2])           # a live call on the other box
    report = recover(shared.db, box=shared.recorder.box)
    assert report.interrupted == [ours.ctx.call_id]
    assert shared.rows("SELECT ended_at FROM calls WHERE id = ?", theirs.ctx.call_id) == [(None,)]
    theirs_box.db.close()


def test_a_locked_store_sends_the_callback_to_the_journal_and_it_is_replayed(postgres_dsn, flow, tmp_path):
    journal = FallbackJournal.at(tmp_path)
    box = Clinic(postgres_dsn, flow, budget=WriteBudget(wait_s=0.3, after_refusal_s=0.05), journal=journal)
    holder = psycopg.connect(postgres_dsn)
    # another writer holding the tables a call writes (reads go on), until it rolls back
    holder.execute("LOCK TABLE calls, turns, transitions, tool_calls, callback_requests, appointments, patients "
                   "IN EXCLUSIVE MODE")
    engine = box.call(["Can someone call me back please?", "about my invoice", "Sarah Johnson"])
    assert engine.ended and engine.outcome() == "failed_store"
    assert journal.pending() and unreplayed(tmp_path, postgres_dsn) == len(journal.pending())
    holder.rollback()
    holder.close()
    assert journal.replay(box.db) > 0
    assert unreplayed(tmp_path, postgres_dsn) == 0 and not journal.pending()
    assert box.rows("SELECT phone FROM callback_requests WHERE call_id = ?", engine.ctx.call_id) == [
        ("+61491570006",)]
    box.db.close()


def test_a_server_that_went_away_is_reconnected_to_for_the_next_write(shared, postgres_server):
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as admin:     # a restart, as the box sees it
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                      [shared.db.conn.raw.info.dbname])
    engine = shared.call(BOOKING)                   # the budget's retry opens a new connection
    assert engine.outcome() == "booked"


def test_the_database_refuses_a_double_booking_from_raw_sql_on_postgres(shared):
    shared.call(BOOKING)
    (patient, service, practitioner, location, start) = shared.rows(
        "SELECT patient_id, service_id, practitioner_id, location_id, start FROM appointments "
        "WHERE created_by_call IS NOT NULL")[0]
    other = shared.rows("SELECT id FROM patients WHERE id <> ? ORDER BY rowid LIMIT 1", patient)[0][0]
    with pytest.raises(psycopg.errors.ExclusionViolation, match="slot_taken"):
        shared.db.conn.execute("INSERT INTO appointments (id, patient_id, service_id, practitioner_id, location_id, "
                               "start, minutes, status) VALUES ('x', ?, ?, ?, ?, ?, 30, 'booked')",
                               [other, service, practitioner, location, start])
    assert not shared.db.conn.in_transaction


def test_names_are_matched_folded_on_postgres(shared):
    created = shared.store.create_patient(first_name="Søren", last_name="Ødegaard", dob=date(1980, 1, 2),
                                          phone=None)
    assert [p.id for p in shared.store.patients_named("soren", "ODEGAARD")] == [created.id]
    assert shared.store.patients_named(None, "Nobody-by-that-name") == []


def test_a_duplicate_callback_is_found_with_a_null_reason_on_postgres(shared):
    first = shared.store.add_callback_request(call_id=None, patient_id=None, name=None, phone=CALLER, reason=None)
    again = shared.store.add_callback_request(call_id=None, patient_id=None, name=None, phone=CALLER, reason=None,
                                              unless_open_within=timedelta(days=1))
    assert again == first
