"""Blocks and closures: a caller is never offered, and nobody can book, a blocked time."""

import sqlite3
from datetime import datetime

import pytest

from appliance.clinic import ClinicDataError, clinic_from_mapping
from appliance.domain import DiaryBlock, Slot, TimeWindow
from appliance.store import ClinicStore, open_database
from appliance.store.backend import INTEGRITY_ERRORS
from appliance.store.database import SCHEMA_VERSION
from appliance.store.clinic_store import InvalidBlock, SlotBlocked
from appliance.store.slot_policy import is_candidate, offer_slots

NOW = datetime(2026, 11, 23, 9, 5)
WEDNESDAY = TimeWindow("day", start=datetime(2026, 11, 25), end=datetime(2026, 11, 26))


def starts(offer):
    return [(f"{s.start:%a %H:%M}", s.practitioner_id) for s in offer.slots]


def find(store, window=WEDNESDAY, practitioner=None):
    return store.find_slots(service_id="followup", location_id="city", practitioner_id=practitioner, window=window,
                            now=NOW)


def slot(start, practitioner="lee"):
    return Slot(start=start, service_id="followup", practitioner_id=practitioner, location_id="city", minutes=30)


def test_the_policy_skips_a_practitioners_block_and_a_clinic_wide_one(clinic):
    catalog, hours = clinic.catalog(), clinic.profile().hours
    meeting = DiaryBlock("m", "lee", datetime(2026, 11, 25, 8), datetime(2026, 11, 25, 9), "meeting")

    def offer(blocks):
        return offer_slots(catalog=catalog, hours=hours, booked=(), service_id="followup", location_id="city",
                           practitioner_id=None, window=WEDNESDAY, now=NOW, blocks=blocks)

    assert starts(offer([])) == [("Wed 08:00", "lee"), ("Wed 08:15", "lee")]
    assert starts(offer([meeting])) == [("Wed 08:00", "shah"), ("Wed 08:15", "shah")]
    closed = DiaryBlock("c", None, datetime(2026, 11, 25), datetime(2026, 11, 26), "closed")
    assert starts(offer([closed])) == [("Thu 08:00", "lee"), ("Thu 08:15", "lee")]
    assert "blocked" in is_candidate(catalog=catalog, hours=hours, booked=(),
                                     slot=slot(datetime(2026, 11, 25, 8, 45)), blocks=[meeting])


def test_closures_and_blocks_from_the_clinic_file(clinic_data):
    clinic_data["closures"] = ["2026-11-25"]
    clinic_data["blocks"] = [{"practitioner": "lee", "start": "2026-11-26T08:00", "end": "2026-11-26T09:00",
                              "reason": "meeting"}]
    store = ClinicStore(open_database(":memory:"))
    store.load_clinic(clinic_from_mapping(clinic_data))
    assert starts(find(store)) == [("Thu 08:00", "shah"), ("Thu 08:15", "shah")]
    assert starts(find(store, practitioner="lee")) == [("Thu 09:00", "lee"), ("Thu 09:15", "lee")]
    blocks = store.blocks_between(datetime(2026, 11, 1), datetime(2026, 12, 1))
    assert [(b.practitioner_id, b.reason) for b in blocks] == [(None, "closed"), ("lee", "meeting")]


def test_a_staff_block_takes_effect_at_once_and_its_removal_too(store):
    assert starts(find(store)) == [("Wed 08:00", "lee"), ("Wed 08:15", "lee")]
    block, clashes = store.add_block(practitioner_id=None, start=datetime(2026, 11, 25), end=datetime(2026, 11, 26),
                                     reason="public holiday", created_by="alice")
    assert clashes == []
    assert starts(find(store)) == [("Thu 08:00", "lee"), ("Thu 08:15", "lee")]
    with pytest.raises(SlotBlocked, match="public holiday"):
        store.create_appointment(patient_id="p1", slot=slot(datetime(2026, 11, 25, 10)))
    store.remove_block(block.id, removed_by="alice")
    assert starts(find(store)) == [("Wed 08:00", "lee"), ("Wed 08:15", "lee")]
    row = store.db.conn.execute("SELECT created_by, removed_by FROM diary_blocks WHERE id = ?", [block.id]).fetchone()
    assert row == ("alice", "alice")


def test_a_block_over_a_booking_names_it_and_a_move_into_a_block_is_refused(store):
    # the example clinic's a1: p1 with lee on Tuesday 10:00
    _, clashes = store.add_block(practitioner_id="lee", start=datetime(2026, 11, 24, 9), end=datetime(2026, 11, 24, 12),
                                 reason="leave", created_by="bob")
    assert [a.id for a in clashes] == ["a1"]
    store.add_block(practitioner_id="lee", start=datetime(2026, 11, 26, 12), end=datetime(2026, 11, 26, 13),
                    reason="meeting", created_by="bob")
    with pytest.raises(SlotBlocked):
        store.reschedule_appointment("a1", slot(datetime(2026, 11, 26, 12, 15)))
    assert store.appointment("a1").status == "booked"       # the move was all or nothing
    with pytest.raises(InvalidBlock):
        store.add_block(practitioner_id="nobody", start=datetime(2026, 11, 26), end=datetime(2026, 11, 27),
                        reason=None, created_by="bob")
    with pytest.raises(InvalidBlock):
        store.add_block(practitioner_id="lee", start=datetime(2026, 11, 26, 12), end=datetime(2026, 11, 26, 12),
                        reason=None, created_by="bob")


def test_the_database_itself_refuses_a_booking_in_a_block(store):
    store.add_block(practitioner_id="shah", start=datetime(2026, 11, 25, 8), end=datetime(2026, 11, 25, 9),
                    reason=None, created_by="bob")
    with pytest.raises(INTEGRITY_ERRORS, match="slot_blocked"):     # either back end's driver
        store.db.conn.execute("INSERT INTO appointments (id, patient_id, service_id, practitioner_id, location_id, "
                              "start, minutes) VALUES ('x', 'p1', 'followup', 'shah', 'city', '2026-11-25T08:45', 30)")


def test_clinic_file_blocks_are_checked_with_their_yaml_path(clinic_data):
    clinic_data["closures"] = ["2026-02-30"]
    clinic_data["blocks"] = [{"practitioner": "leee", "start": "2026-11-26T08:00", "end": "2026-11-26T09:00"},
                             {"practitioner": "lee", "start": "2026-11-26T10:00", "end": "2026-11-26T09:00"},
                             {"practitioner": "lee", "start": "2026-11-26T10:00", "end": "2026-11-26T11:00",
                              "why": "x"}]
    with pytest.raises(ClinicDataError) as error:
        clinic_from_mapping(clinic_data)
    paths = [path for path, _ in error.value.problems]
    assert "closures[0]" in paths and "blocks[1].end" in paths and "blocks[2].why" in paths
    assert "not after the start" in str(error.value)
    clinic_data["closures"] = ["2026-12-25"]
    clinic_data["blocks"] = clinic_data["blocks"][:1]
    with pytest.raises(ClinicDataError, match=r"blocks\[0\]\.practitioner: unknown practitioner 'leee'; did you mean 'lee'"):
        clinic_from_mapping(clinic_data)


def test_an_older_database_gains_the_blocks_table(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (2);")
    conn.close()
    db = open_database(path)
    assert db.execute("SELECT max(version) FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    assert "diary_blocks" in db.table_names()
