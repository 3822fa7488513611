import sqlite3
from dataclasses import dataclass
from datetime import date, datetime, time

import pytest
import sqlite_utils

from appliance.domain import Slot
from appliance.store import CallRecorder, RecordError, open_database

T0 = datetime(2026, 11, 23, 9, 5)


@pytest.fixture
def recorder(db):
    return CallRecorder(db)


def record_a_call(recorder, call_id="call-1"):
    recorder.call_started(call_id=call_id, clinic="Harbour Physio", caller_id="+61400000001", started_at=T0)
    recorder.turn(call_id=call_id, seq=0, caller_text="", agent_text="Harbour Physio, how can I help?",
                  state="greeting", waiting_for="intent", trigger=None, at=T0)
    recorder.transition(call_id=call_id, turn_seq=1, from_state="greeting", to_state="identify",
                        trigger=("reschedule", "high", "kw:move my appointment"), at=T0)
    slot = Slot(start=datetime(2026, 11, 26, 12, 15), service_id="followup", practitioner_id="lee", location_id="city", minutes=30)
    recorder.tool_call(call_id=call_id, turn_seq=1, state="identify", name="CheckAvailability",
                       arguments={"service": "followup", "day": date(2026, 11, 26), "from": time(12)},
                       result_kind="ok", result={"slots": [slot], "in_window": True}, duration_ms=1.25, at=T0)
    recorder.turn(call_id=call_id, seq=1, caller_text="I need to move my appointment",
                  agent_text="Sure. What's your full name?", state="identify", waiting_for="full_name",
                  trigger=("reschedule", "high", "kw:move my appointment"), at=datetime(2026, 11, 23, 9, 5, 3, 250000))
    recorder.call_ended(call_id=call_id, ended_at=datetime(2026, 11, 23, 9, 7), outcome="rescheduled",
                        final_state="done", end_action="hangup")


def test_round_trip(recorder):
    record_a_call(recorder)
    record = recorder.call_record("call-1")
    call = record["call"]
    assert call["caller_id"] == "+61400000001" and call["clinic"] == "Harbour Physio"
    assert (call["started_at"], call["ended_at"]) == ("2026-11-23T09:05:00", "2026-11-23T09:07:00")
    assert (call["outcome"], call["final_state"], call["end_action"]) == ("rescheduled", "done", "hangup")

    first, second = record["turns"]
    assert (first["seq"], first["caller_text"], first["waiting_for"]) == (0, "", "intent")
    assert first["trigger_route"] is None
    assert (second["trigger_route"], second["trigger_confidence"], second["trigger_evidence"]) == (
        "reschedule", "high", "kw:move my appointment")
    assert second["at"] == "2026-11-23T09:05:03.250"

    (transition,) = record["transitions"]
    assert (transition["from_state"], transition["to_state"], transition["turn_seq"]) == ("greeting", "identify", 1)
    assert transition["trigger_route"] == "reschedule"

    (tool,) = record["tool_calls"]
    assert tool["name"] == "CheckAvailability" and tool["result_kind"] == "ok" and tool["duration_ms"] == 1.25
    assert tool["arguments"] == {"service": "followup", "day": "2026-11-26", "from": "12:00:00"}
    assert tool["result"]["slots"][0] == {
        "start": "2026-11-26T12:15:00", "service_id": "followup", "practitioner_id": "lee",
        "location_id": "city", "minutes": 30,
    }


def test_engine_trigger_objects_are_accepted(recorder):
    @dataclass(frozen=True)
    class Trigger:
        route: str
        confidence: str
        evidence: str

        def as_tuple(self):
            return (self.route, self.confidence, self.evidence)

    recorder.call_started(call_id="c", clinic="x", caller_id="", started_at=T0)
    recorder.turn(call_id="c", seq=0, caller_text="", agent_text="hi", state="s", waiting_for="intent",
                  trigger=Trigger("book", "medium", "kw:book"), at=T0)
    assert recorder.call_record("c")["turns"][0]["trigger_confidence"] == "medium"


def test_every_write_is_committed(tmp_path):
    path = tmp_path / "clinic.db"
    writer = CallRecorder(open_database(path))
    reader = sqlite3.connect(path)
    writer.call_started(call_id="c1", clinic="x", caller_id="", started_at=T0)
    assert reader.execute("SELECT count(*) FROM calls").fetchone()[0] == 1
    writer.turn(call_id="c1", seq=0, caller_text="", agent_text="hi", state="s", waiting_for="intent", trigger=None, at=T0)
    assert reader.execute("SELECT count(*) FROM turns").fetchone()[0] == 1
    assert not writer.db.conn.in_transaction
    reader.close()
    writer.db.close()


def test_turn_timing(recorder):
    record_a_call(recorder)
    recorder.turn_timing(call_id="call-1", seq=1, stt_ms=640.5, engine_ms=0.4, tts_first_audio_ms=80,
                         speech_start=datetime(2026, 11, 23, 9, 5, 1), speech_end="2026-11-23T09:05:02.500")
    turn = recorder.call_record("call-1")["turns"][1]
    assert (turn["stt_ms"], turn["engine_ms"], turn["tts_first_audio_ms"], turn["llm_ms"]) == (640.5, 0.4, 80, None)
    assert (turn["speech_start"], turn["speech_end"]) == ("2026-11-23T09:05:01", "2026-11-23T09:05:02.500")


def test_turn_timing_rejects_unknown_names_and_missing_turns(recorder):
    record_a_call(recorder)
    with pytest.raises(ValueError, match="stt_msec"):
        recorder.turn_timing(call_id="call-1", seq=1, stt_msec=5)
    with pytest.raises(ValueError, match="milliseconds"):
        recorder.turn_timing(call_id="call-1", seq=1, stt_ms="fast")
    with pytest.raises(RecordError, match="no turn 9"):
        recorder.turn_timing(call_id="call-1", seq=9, stt_ms=5)


def test_bad_result_kind(recorder):
    recorder.call_started(call_id="c", clinic="x", caller_id="", started_at=T0)
    with pytest.raises(ValueError, match="result_kind"):
        recorder.tool_call(call_id="c", turn_seq=0, state="s", name="X", arguments={}, result_kind="fine",
                           result={}, duration_ms=0, at=T0)


def test_out_of_order_writes_are_record_errors(recorder):
    with pytest.raises(RecordError, match="call_started"):
        recorder.call_ended(call_id="nope", ended_at=T0, outcome="info", final_state="done", end_action="hangup")
    with pytest.raises(RecordError):
        recorder.turn(call_id="nope", seq=0, caller_text="", agent_text="hi", state="s", waiting_for="intent",
                      trigger=None, at=T0)
    recorder.call_started(call_id="c", clinic="x", caller_id="", started_at=T0)
    recorder.turn(call_id="c", seq=0, caller_text="", agent_text=None, state="s", waiting_for=None, trigger=None, at=T0)
    # the same turn again is its final form over the provisional one written with a clinic write
    recorder.turn(call_id="c", seq=0, caller_text="", agent_text="hi", state="s", waiting_for="intent", trigger=None, at=T0)
    turns = recorder.call_record("c")["turns"]
    assert len(turns) == 1 and turns[0]["agent_text"] == "hi"


def test_unknown_call_record(recorder):
    assert recorder.call_record("nope") == {"call": None, "turns": [], "transitions": [], "tool_calls": []}


def test_disk_full_names_the_database(tmp_path):
    path = tmp_path / "clinic.db"
    db = open_database(path)
    recorder = CallRecorder(db)
    recorder.call_started(call_id="c", clinic="x", caller_id="", started_at=T0)
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(RecordError) as caught:
        for seq in range(200):
            recorder.turn(call_id="c", seq=seq, caller_text="x" * 2000, agent_text="y" * 2000, state="s",
                          waiting_for="intent", trigger=None, at=T0)
    assert str(path) in str(caught.value)
    assert "full" in str(caught.value)
    assert not db.conn.in_transaction
    db.close()


def test_read_only_database_names_the_database(tmp_path):
    path = tmp_path / "clinic.db"
    open_database(path).close()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    recorder = CallRecorder(sqlite_utils.Database(conn))
    with pytest.raises(RecordError) as caught:
        recorder.call_started(call_id="c", clinic="x", caller_id="", started_at=T0)
    assert str(path) in str(caught.value)
    assert "readonly" in str(caught.value)
    conn.close()


def test_recent_calls(recorder):
    record_a_call(recorder, "call-1")
    recorder.call_started(call_id="call-2", clinic="x", caller_id="", started_at=datetime(2026, 11, 23, 10, 0))
    assert [c["id"] for c in recorder.calls()] == ["call-2", "call-1"]
