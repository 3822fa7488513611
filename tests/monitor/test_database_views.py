"""What the Today, Needs attention, History and State machine screens read from the seeded day."""

from datetime import date

import pytest

from appliance.monitor.attention_items import failed_calls, handed_off, open_callbacks, unheard_bookings
from appliance.monitor.call_history import load_call, search_calls
from appliance.monitor.database_access import DatabaseUnavailable, open_for_monitor
from appliance.monitor.day_summary import day_summary
from appliance.monitor.flow_observations import observe_flow
from appliance.monitor.turn_latency import percentile, turn_latency_ms

from .seeded_clinic import DAY, FLOW


@pytest.fixture
def conn(seeded_store):
    """The seeded day on SQLite, then on the shared PostgreSQL store: every screen's query runs on both."""
    connection = open_for_monitor(seeded_store)
    yield connection
    connection.close()


def test_today_counts_what_the_calls_did(conn):
    s = day_summary(conn, DAY)
    assert (s.calls, s.bookings, s.reschedules, s.cancellations, s.callbacks) == (9, 1, 1, 1, 3)
    assert (s.transfers, s.abandoned, s.emergencies, s.failed, s.in_progress) == (1, 1, 1, 1, 0)
    assert s.calls_by_hour == {8: 1, 9: 2, 10: 1, 11: 2, 13: 1, 14: 1, 15: 1}


def test_today_latency_is_speech_end_to_reply_over_caller_turns(conn):
    rows = conn.execute("""SELECT speech_end, agent_speech_start FROM turns JOIN calls ON calls.id = turns.call_id
                           WHERE calls.started_at LIKE '2026-11-24%' AND seq > 0""").fetchall()
    latencies = [turn_latency_ms({"speech_end": a, "agent_speech_start": b}) for a, b in rows]
    latencies = [x for x in latencies if x is not None]
    s = day_summary(conn, DAY)
    assert s.turns_measured == len(latencies) > 20
    assert s.avg_latency_ms == pytest.approx(sum(latencies) / len(latencies))
    assert s.p95_latency_ms == sorted(latencies)[-(-95 * len(latencies) // 100) - 1]


def test_latency_falls_back_to_measured_durations_and_p95_is_nearest_rank():
    assert turn_latency_ms({"engine_ms": 2.0, "llm_ms": 300.0}) == 302.0
    assert turn_latency_ms({}) is None
    assert percentile(list(range(1, 101)), 0.95) == 95 and percentile([7.0], 0.95) == 7.0


def test_a_quiet_day_is_all_zeros(conn):
    s = day_summary(conn, date(2026, 11, 20))
    assert s.calls == 0 and s.avg_latency_ms is None and s.calls_by_hour == {}


def test_needs_attention_lists_open_callbacks_urgent_first_and_todays_handoffs_and_failures(conn):
    callbacks = open_callbacks(conn)
    assert [c["name"] for c in callbacks] == ["Priya Shah", "Maria Rossi"]
    assert [c.outcome for c in handed_off(conn, DAY)] == ["transferred", "emergency"]
    assert [c.id for c in failed_calls(conn, DAY)] == ["call-failed"]
    assert handed_off(conn, date(2026, 11, 23)) == []


def test_needs_attention_lists_calls_cut_off_and_bookings_the_caller_may_not_have_heard(seeded_db):
    import sqlite3

    from appliance.store import open_database
    from appliance.store.recovery import recover

    db = open_database(seeded_db)
    booking = db.execute("SELECT id, created_by_call FROM appointments WHERE created_by_call IS NOT NULL "
                         "AND status = 'booked' LIMIT 1").fetchone()
    db.execute("UPDATE appointments SET confirmed_aloud = 0 WHERE id = ?", [booking[0]])
    db.execute("INSERT INTO calls (id, caller_id, started_at) VALUES ('call-cut', '0491 570 999', ?)",
               [f"{DAY.isoformat()}T16:00:00"])
    db.conn.commit()
    recover(db)                                          # the next start after a crash
    db.close()
    conn = sqlite3.connect(seeded_db)
    try:
        assert [(c.id, c.outcome) for c in failed_calls(conn, DAY)] == [("call-cut", "interrupted"),
                                                                        ("call-failed", "failed")]   # newest first
        assert [b["call_id"] for b in unheard_bookings(conn, DAY)] == [booking[1]]
        assert any(c["call_id"] == "call-cut" for c in open_callbacks(conn))
    finally:
        conn.close()


def test_history_searches_by_date_outcome_and_caller(conn):
    assert len(search_calls(conn)) == 10
    assert [c.caller_id for c in search_calls(conn, day=date(2026, 11, 23))] == ["0491 570 313"]
    (booked,) = search_calls(conn, outcome="booked")
    assert booked.who == "Sarah Johnson" and booked.turns == 9 and booked.duration == "3:00"
    assert [c.id for c in search_calls(conn, caller="johnson")] == [booked.id]
    assert [c.who for c in search_calls(conn, caller="570 157")] == ["Dev Patel"]
    assert search_calls(conn, caller="nobody at all") == []


def test_a_past_call_reads_back_with_its_transcript_state_path_and_tools(conn):
    (booked,) = search_calls(conn, outcome="booked")
    call = load_call(conn, booked.id)
    assert call.ended and call.outcome == "booked" and call.patient_name == "Sarah Johnson"
    assert call.path[:2] == ["lookup_caller", "greeting"] and call.path[-1] == "goodbye"
    assert call.turns[1].caller_text.startswith("Hi, I'd like to book")
    assert any("CreateAppointment: ok" in s.text for t in call.ordered_turns() for s in t.steps)
    assert load_call(conn, "no-such-call") is None


def test_state_machine_counts_visits_triggers_and_tools(conn):
    o = observe_flow(conn, FLOW)
    by_name = {row.name: row for row in o.states}
    greeting_visits = conn.execute("SELECT count(*) FROM transitions WHERE to_state = 'greeting'").fetchone()[0]
    assert by_name["greeting"].visits == greeting_visits and by_name["greeting"].in_flow
    assert not by_name["ask_spelling"].observed                          # canonical, never observed
    assert not by_name["booking_in_progress"].in_flow and by_name["booking_in_progress"].visits == 1
    assert o.canonical == len(FLOW.states) and o.not_in_flow == 1 and o.calls_considered == 10
    tools = {row.name: row for row in o.tools}
    create = tools["CreateAppointment"]
    assert (create.calls, create.ok, create.guard, create.pms, create.other) == (3, 1, 1, 1, 0)
    assert create.error_pct == pytest.approx(200 / 3)
    assert (tools["CheckAvailability"].other, tools["GetPatientDetails"].error_pct) == (1, 0.0)
    triggers = {(t.route, t.confidence, t.evidence): t for t in o.triggers}
    assert triggers[("booking_request", "medium", "booking_terms")].count == 1
    assert triggers[("booking_request", "high", "booking_terms")].last_seen == "2026-11-24T09:10:20"
    assert sum(t.count for t in o.triggers) == conn.execute(
        "SELECT count(*) FROM turns WHERE seq > 0 AND trigger_route IS NOT NULL").fetchone()[0]


def test_a_missing_database_is_named_and_never_created(tmp_path):
    with pytest.raises(DatabaseUnavailable, match="appliance db init"):
        open_for_monitor(tmp_path / "nothing.db")
    assert not (tmp_path / "nothing.db").exists()
