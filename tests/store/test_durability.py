"""Nothing lost: a clinic write and its record commit together, the database guards itself, a refused write goes
to the fallback journal and comes back, and a restart closes the calls a crash left open."""

from __future__ import annotations

import sqlite3
import threading
from datetime import datetime

import pytest
import yaml

from appliance import paths
from appliance.clinic import clinic_from_mapping
from appliance.engine.clock import CountingIds, FrozenClock
from appliance.engine.engine import Engine
from appliance.engine.flow import load_flow
from appliance.engine.types import CallInfo
from appliance.store import ClinicStore, open_database
from appliance.store.clinic_store import InvalidPatient
from appliance.store.fallback_journal import FallbackJournal, JournalingStore, unreplayed
from appliance.store.records import CallRecorder
from appliance.store.recovery import recover
from appliance.store.write_budget import WriteBudget

BOOKING = ["Hi, I'd like to book a remedial massage please", "Sarah Johnson", "the fourth of March, nineteen eighty five",
           "Neutral Bay please", "Thursday afternoon", "the first one", "yes please", "no, that's all, thanks"]
YES = BOOKING.index("yes please")
CALLER = "0491 570 006"


@pytest.fixture(scope="module")
def flow():
    return load_flow(paths.REPO_ROOT / "config" / "flows" / "clinic.yaml")


class Clinic:
    def __init__(self, path, flow, *, budget=None, journal=None):
        self.path, self.flow = path, flow
        self.clock = FrozenClock(datetime(2026, 11, 24, 9, 10))
        self.ids = CountingIds()
        self.db = open_database(path)
        self.store = ClinicStore(self.db, new_id=self.ids, now=self.clock.now)
        if not self.db.conn.execute("SELECT 1 FROM clinic").fetchone():
            self.store.load_clinic(clinic_from_mapping(yaml.safe_load(
                (paths.REPO_ROOT / "config" / "clinic.demo.yaml").read_text())))
        self.journal = journal
        self.recorder = CallRecorder(self.db, budget=budget, journal=journal)

    def call(self, lines, **engine):
        engine = Engine(flow=self.flow, store=self.store, clock=self.clock, new_id=self.ids, recorder=self.recorder,
                        fallback=JournalingStore(self.store, self.journal) if self.journal else None, **engine)
        engine.start(CallInfo(caller_id=CALLER))
        for line in lines:
            if engine.ended:
                break
            engine.turn(line)
        return engine

    def rows(self, sql, *args):
        return self.db.conn.execute(sql, args).fetchall()


@pytest.fixture
def clinic(tmp_path, flow):
    return Clinic(tmp_path / "appliance.db", flow)


def test_a_booking_commits_with_its_tool_call_and_the_turn_that_asked_for_it(clinic):
    engine = clinic.call(BOOKING[:YES + 1])         # the process dies here, before the reply is finished
    call_id = engine.ctx.call_id
    (booking,) = clinic.rows("SELECT id, confirmed_aloud FROM appointments WHERE created_by_call = ?", call_id)
    assert booking[1] == 0                          # not heard yet
    tools = clinic.rows("SELECT name, json_extract(result, '$.appointment.id') FROM tool_calls WHERE call_id = ? "
                        "AND name = 'CreateAppointment'", call_id)
    assert tools == [("CreateAppointment", booking[0])]
    (turn,) = clinic.rows("SELECT caller_text FROM turns WHERE call_id = ? AND seq = ?", call_id, YES + 1)
    assert turn == ("yes please",)
    engine.turn(BOOKING[YES + 1])                   # the caller went on past the confirmation: heard
    assert clinic.rows("SELECT confirmed_aloud FROM appointments WHERE id = ?", booking[0]) == [(1,)]


def test_a_write_whose_record_fails_is_not_written_either(clinic):
    class BrokenRecord(CallRecorder):
        def commit_with(self, work, entries):
            return super().commit_with(work, lambda done: [("tool_call", {"bogus": 1})])

    clinic.recorder = BrokenRecord(clinic.db)
    engine = clinic.call(BOOKING)
    assert clinic.rows("SELECT count(*) FROM appointments WHERE created_by_call = ?", engine.ctx.call_id) == [(0,)]
    assert engine.outcome() != "booked"


def test_restart_recovery_closes_interrupted_calls_and_raises_callbacks(clinic, flow):
    engine = clinic.call(BOOKING[:YES + 1])         # killed right after the booking committed
    call_id = engine.ctx.call_id
    clinic.db.close()

    after = Clinic(clinic.path, flow)               # the next start
    report = recover(after.db)
    assert report.interrupted == [call_id] and report.callbacks == 1 and report.unconfirmed == 1
    ((outcome, ended_at, reason, final_state),) = after.rows(
        "SELECT outcome, ended_at, end_reason, final_state FROM calls WHERE id = ?", call_id)
    assert outcome == "interrupted" and ended_at and "crash" in reason and final_state
    ((callback_id, phone, text),) = after.rows("SELECT id, phone, reason FROM callback_requests WHERE call_id = ?",
                                               call_id)
    assert phone == "+61491570006" and "confirm with the patient" in text
    assert recover(after.db).interrupted == []       # once
    after.store.mark_callback_done(callback_id, done_by="frontdesk")
    assert after.rows("SELECT confirmed_aloud FROM appointments WHERE created_by_call = ?", call_id) == [(1,)]


def test_the_database_refuses_overlapping_and_double_bookings_from_raw_sql(clinic):
    clinic.call(BOOKING)
    (row,) = clinic.db.conn.execute("SELECT * FROM appointments WHERE created_by_call IS NOT NULL").fetchall()
    names = [d[0] for d in clinic.db.conn.execute("SELECT * FROM appointments").description]
    booked = dict(zip(names, row))
    columns = "id, patient_id, service_id, practitioner_id, location_id, start, minutes, status"
    other_patient = clinic.rows("SELECT id FROM patients WHERE id != ? LIMIT 1", booked["patient_id"])[0][0]
    other_practitioner = clinic.rows("SELECT id FROM practitioners WHERE id != ? LIMIT 1",
                                     booked["practitioner_id"])[0][0]
    later = booked["start"][:-5] + f"{int(booked['start'][-5:-3]):02d}:{int(booked['start'][-2:]) + 15:02d}"
    for raw in ([other_patient, booked["practitioner_id"], later],          # overlaps the practitioner's booking
                [booked["patient_id"], other_practitioner, booked["start"]]):  # the patient twice at once
        with pytest.raises(sqlite3.IntegrityError, match="slot_taken"):
            clinic.db.conn.execute(f"INSERT INTO appointments ({columns}) VALUES ('x', ?, ?, ?, ?, ?, 30, 'booked')",
                                   [raw[0], booked["service_id"], raw[1], booked["location_id"], raw[2]])


def test_a_huge_surname_is_refused_by_the_understanding_the_store_and_the_database(clinic):
    from appliance.clinic.regions import region_for
    from appliance.understanding import ListenContext, understand

    huge = "Smith" + "x" * 16000
    heard = understand(f"my name is Sarah {huge}", ListenContext(
        question=clinic.flow.questions["full_name"], now=clinic.clock.now(), catalog=clinic.store.catalog(),
        region=region_for(clinic.store.profile().region)))
    assert heard.name is None or len(heard.name.last or "") < 100
    with pytest.raises(InvalidPatient, match="last name"):
        clinic.store.create_patient(first_name="Sarah", last_name=huge, dob=datetime(1990, 1, 1).date(), phone=None)
    with pytest.raises(sqlite3.IntegrityError, match="too_long"):
        clinic.db.conn.execute("INSERT INTO patients (id, first_name, last_name, dob) VALUES ('p', 'A', ?, "
                               "'1990-01-01')", [huge])


def test_a_refused_write_goes_to_the_journal_and_is_replayed(tmp_path, flow):
    journal = FallbackJournal.at(tmp_path)
    clinic = Clinic(tmp_path / "appliance.db", flow, budget=WriteBudget(wait_s=0.3, after_refusal_s=0.05),
                    journal=journal)
    holder = sqlite3.connect(clinic.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")               # a backup or a monitor holding the write lock
    engine = clinic.call(["Can someone call me back please?", "about my invoice", "Sarah Johnson"])
    assert engine.ended and engine.outcome() == "failed_store"
    assert journal.pending() and unreplayed(tmp_path, clinic.path) == len(journal.pending())
    holder.execute("ROLLBACK")
    holder.close()
    assert journal.replay(clinic.db) > 0
    assert unreplayed(tmp_path, clinic.path) == 0 and not journal.pending()
    call_id = engine.ctx.call_id
    ((outcome,),) = clinic.rows("SELECT outcome FROM calls WHERE id = ?", call_id)
    assert outcome == "failed_store"
    assert clinic.rows("SELECT phone FROM callback_requests WHERE call_id = ?", call_id) == [("+61491570006",)]
    turns = clinic.rows("SELECT seq FROM turns WHERE call_id = ? ORDER BY seq", call_id)
    assert [t[0] for t in turns] == list(range(len(turns))) and len(turns) >= 3


def test_a_lock_that_clears_within_the_budget_costs_the_caller_nothing(tmp_path, flow):
    clinic = Clinic(tmp_path / "appliance.db", flow, budget=WriteBudget(wait_s=3.0))
    holder = sqlite3.connect(clinic.path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    threading.Timer(0.5, lambda: holder.execute("ROLLBACK")).start()
    engine = clinic.call(BOOKING)
    holder.close()
    assert engine.outcome() == "booked"


def test_a_caller_the_service_cuts_off_gets_a_callback_and_staff_endings_say_who(clinic):
    engine = clinic.call(BOOKING[:2])
    assert engine.cut("shutdown", "the service was stopped during the call") == "shutdown"
    call_id = engine.ctx.call_id
    ((outcome, reason, by),) = clinic.rows("SELECT outcome, end_reason, ended_by FROM calls WHERE id = ?", call_id)
    assert (outcome, by) == ("shutdown", None) and "stopped" in reason
    ((text, phone),) = clinic.rows("SELECT reason, phone FROM callback_requests WHERE call_id = ?", call_id)
    assert text.startswith("cut_off") and phone == "+61491570006"

    staff = clinic.call(BOOKING[:2])
    assert staff.cut("ended_by_staff", "ended from the monitor", by="frontdesk") == "ended_by_staff"
    assert clinic.rows("SELECT outcome, ended_by FROM calls WHERE id = ?", staff.ctx.call_id) == [
        ("ended_by_staff", "frontdesk")]
    assert clinic.rows("SELECT count(*) FROM callback_requests WHERE call_id = ?", staff.ctx.call_id) == [(0,)]
