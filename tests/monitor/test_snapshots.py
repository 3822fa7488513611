"""The main screens pinned at 80x24 (pytest-textual-snapshot).

The data is fixed: the seeded day, the recorded stream, the wall clock and
the date. After an intended change to a screen, look at the new pictures
(`snapshot_report.html`) and accept them with

    .venv/bin/pytest tests/monitor/test_snapshots.py --snapshot-update
"""

import pytest

from .conftest import feed, make_app
from .recorded_stream import until

SIZE = (80, 24)


@pytest.fixture
def live_app(seeded_db, stream):
    part = until(stream, lambda e: e.kind == "turn" and e.call_id == "call-1" and e.fields["seq"] == 3)
    app = make_app(seeded_db, now=part[-1].ts + 42)

    async def run_before(pilot):
        feed(app, part)
        await pilot.pause()

    return app, run_before


def test_live_calls(snap_compare, live_app):
    app, run_before = live_app
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_live_call_transcript(snap_compare, live_app):
    app, run_before = live_app
    assert snap_compare(app, press=["enter"], terminal_size=SIZE, run_before=run_before)


def test_service_not_running(snap_compare, seeded_db):
    assert snap_compare(make_app(seeded_db), terminal_size=SIZE)


def test_needs_attention(snap_compare, seeded_db):
    assert snap_compare(make_app(seeded_db), press=["2"], terminal_size=SIZE)


def test_today(snap_compare, seeded_db):
    assert snap_compare(make_app(seeded_db), press=["3"], terminal_size=SIZE)


def test_history(snap_compare, seeded_db):
    assert snap_compare(make_app(seeded_db), press=["4"], terminal_size=SIZE)


def test_history_call(snap_compare, seeded_db):
    assert snap_compare(make_app(seeded_db), press=["4", "down", "down", "enter"], terminal_size=SIZE)


def test_state_machine(snap_compare, seeded_db):
    assert snap_compare(make_app(seeded_db), press=["5"], terminal_size=SIZE)


def test_state_machine_tools(snap_compare, seeded_db):
    assert snap_compare(make_app(seeded_db), press=["5", "o"], terminal_size=SIZE)


def test_live_calls_on_a_larger_terminal(snap_compare, live_app):
    app, run_before = live_app
    assert snap_compare(app, terminal_size=(120, 30), run_before=run_before)


@pytest.fixture
def diary_db(seeded_db):
    """The seeded database with a fuller Wednesday: a phone booking not yet heard, a booking made at the desk,
    a practitioner's meeting."""
    from datetime import datetime

    from appliance.domain import Slot
    from appliance.store import ClinicStore, open_database

    store = ClinicStore(open_database(seeded_db), new_id=lambda prefix: f"{prefix}-snap")
    store.db.conn.execute("UPDATE appointments SET confirmed_aloud = 0 WHERE id = 'apt-3'")
    store.db.conn.commit()
    store.create_appointment(patient_id="p-tmorgan", slot=Slot(datetime(2026, 11, 25, 9), "followup", "shah", "quay", 30))
    store.add_block(practitioner_id="nguyen", start=datetime(2026, 11, 25, 8), end=datetime(2026, 11, 25, 9, 30),
                    reason="meeting", created_by="alice")
    store.db.close()
    return seeded_db


def test_diary(snap_compare, diary_db):
    assert snap_compare(make_app(diary_db), press=["6", "right_square_bracket"], terminal_size=SIZE)


def test_diary_on_a_wider_terminal(snap_compare, diary_db):
    assert snap_compare(make_app(diary_db), press=["6", "right_square_bracket"], terminal_size=(160, 30))


def test_review(snap_compare, review_db):
    assert snap_compare(make_app(review_db), press=["7"], terminal_size=SIZE)


def test_review_call(snap_compare, review_db):
    assert snap_compare(make_app(review_db), press=["7", "down", "enter"], terminal_size=SIZE)


def test_today_with_calls_to_review(snap_compare, review_db):
    assert snap_compare(make_app(review_db), press=["3"], terminal_size=SIZE)


def test_state_machine_paths(snap_compare, review_db):
    assert snap_compare(make_app(review_db), press=["5", "p"], terminal_size=SIZE)


def test_state_machine_handoffs(snap_compare, review_db):
    assert snap_compare(make_app(review_db), press=["5", "h"], terminal_size=SIZE)
