"""A day of calls at the demo clinic, played through the real engine into one database.

Everything that varies run to run (the engine's measured milliseconds) is
replaced by fixed numbers afterwards, so screens drawn from this database are
the same every time. Besides the played calls: a call that ended `failed`
(with a state the flow does not have and tools refused by a guard, by the
clinic system and by something else), an urgent callback, a callback already
done, and a call the day before.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from pathlib import Path

import yaml

from appliance import paths
from appliance.clinic import clinic_from_mapping
from appliance.call_review import store_review
from appliance.engine.clock import CountingIds
from appliance.engine.engine import Engine
from appliance.engine.flow import load_flow
from appliance.engine.types import CallInfo
from appliance.store.clinic_store import ClinicStore
from appliance.store.database import open_database
from appliance.store.records import CallRecorder

DAY = date(2026, 11, 24)
FLOW = load_flow(paths.REPO_ROOT / "config" / "flows" / "clinic.yaml")

# (clinic-local start, caller ID, what the caller says): the outcome each leads to is in the comment
CALLS = [
    (datetime(2026, 11, 23, 16, 40), "0491 570 313", ["How much is a massage?", "no, that's all, thanks"]),  # info, day before
    (datetime.combine(DAY, time(8, 5)), "0491 570 157",                                          # rescheduled
     ["I need to move my appointment", "Dev Patel", "27th of January 1992", "the one on the 7th",
      "next Wednesday morning", "the first one", "yes", "no thanks"]),
    (datetime.combine(DAY, time(9, 10)), "0491 570 006",                                         # booked
     ["Hi, I'd like to book a remedial massage please", "Sarah Johnson", "the fourth of March, nineteen eighty five",
      "Neutral Bay please", "Thursday afternoon", "how much is a massage?", "the first one", "yes please",
      "no, that's all, thanks"]),
    (datetime.combine(DAY, time(9, 40)), "0491 570 158",                                         # callback
     ["Can someone call me back please", "It's about my invoice", "Maria Rossi"]),
    (datetime.combine(DAY, time(10, 15)), "0491 570 159", ["I've got crushing chest pain and can't breathe"]),  # emergency
    (datetime.combine(DAY, time(11, 0)), "", ["Can I talk to a real person please"]),             # transferred
    (datetime.combine(DAY, time(13, 20)), "(02) 5550 7788",                                      # cancelled
     ["I want to cancel my flu shot", "George Brown", "21 April 1947", "yes", "no that's it"]),
    (datetime.combine(DAY, time(14, 5)), "0491 570 999", []),                                    # abandoned
    (datetime.combine(DAY, time(15, 45)), "0491 570 313", ["How much is a massage?", "no, that's all, thanks"]),  # info
]


class DayClock:
    """A frozen clinic clock the seed moves from call to call."""

    def __init__(self, moment: datetime):
        self.moment = moment

    def now(self) -> datetime:
        return self.moment

    def advance(self, seconds: float) -> None:
        self.moment += timedelta(seconds=seconds)


def _deterministic_timings(db) -> None:
    """Fixed durations, and voice-style moments giving each caller turn a known latency."""
    conn = db.conn
    with conn:
        conn.execute("UPDATE tool_calls SET duration_ms = 0.5")
        conn.execute("UPDATE turns SET engine_ms = 2.0")
        for turn_id, seq, at in conn.execute("SELECT id, seq, at FROM turns WHERE seq > 0").fetchall():
            latency_ms = 600 + (turn_id * 137) % 700          # 600..1299 ms, fixed per row
            heard = datetime.fromisoformat(at)
            answered = heard + timedelta(milliseconds=latency_ms)
            conn.execute("UPDATE turns SET speech_end = ?, agent_speech_start = ? WHERE id = ?",
                         [heard.isoformat(timespec="milliseconds"), answered.isoformat(timespec="milliseconds"),
                          turn_id])


def _failed_call(recorder: CallRecorder, at: datetime) -> None:
    call_id = "call-failed"
    recorder.write_batch([
        ("call_started", {"call_id": call_id, "clinic": "Harbourside Health", "caller_id": "+61491570160",
                          "started_at": at}),
        ("transition", {"call_id": call_id, "turn_seq": 0, "from_state": None, "to_state": "greeting",
                        "trigger": ("call_start", "high", "caller_id"), "at": at}),
        ("turn", {"call_id": call_id, "seq": 0, "caller_text": "", "agent_text": "Thank you for calling.",
                  "state": "greeting", "waiting_for": "intent", "trigger": None, "at": at}),
        ("transition", {"call_id": call_id, "turn_seq": 1, "from_state": "greeting", "to_state": "booking_in_progress",
                        "trigger": ("booking_request", "medium", "booking_terms"), "at": at}),
        ("tool_call", {"call_id": call_id, "turn_seq": 1, "state": "booking_in_progress", "name": "CheckAvailability",
                       "arguments": {}, "result_kind": "other", "result": {"error": "TimeoutError: diary"},
                       "duration_ms": 0.5, "at": at}),
        ("tool_call", {"call_id": call_id, "turn_seq": 1, "state": "booking_in_progress", "name": "CreateAppointment",
                       "arguments": {}, "result_kind": "guard",
                       "result": {"error": "Booking blocked: the caller has not confirmed"}, "duration_ms": 0.5,
                       "at": at}),
        ("tool_call", {"call_id": call_id, "turn_seq": 1, "state": "booking_in_progress", "name": "CreateAppointment",
                       "arguments": {}, "result_kind": "pms", "result": {"error": "SlotTaken: slot no longer free"},
                       "duration_ms": 0.5, "at": at}),
        ("turn", {"call_id": call_id, "seq": 1, "caller_text": "book me in for a massage",
                  "agent_text": "I'm sorry, something went wrong on my side.", "state": "booking_in_progress",
                  "waiting_for": "none", "trigger": ("booking_request", "medium", "booking_terms"), "at": at}),
        ("call_ended", {"call_id": call_id, "ended_at": at.replace(minute=at.minute + 1), "outcome": "failed",
                        "final_state": "booking_in_progress", "end_action": "hangup"}),
    ])


def seed_database(path: Path) -> Path:
    clock = DayClock(CALLS[0][0])
    ids = CountingIds()
    db = open_database(path)
    store = ClinicStore(db, new_id=ids, now=clock.now)
    store.load_clinic(clinic_from_mapping(yaml.safe_load((paths.REPO_ROOT / "config" / "clinic.demo.yaml").read_text())))
    recorder = CallRecorder(db)
    for started, caller_id, lines in CALLS:
        clock.moment = started
        engine = Engine(flow=FLOW, store=store, clock=clock, new_id=ids, recorder=recorder)
        engine.start(CallInfo(caller_id=caller_id))
        for line in lines:
            if engine.ended:
                break
            clock.advance(20)
            engine.turn(line)
        clock.advance(15)
        if not engine.ended:
            engine.hangup()
    _failed_call(recorder, datetime.combine(DAY, time(11, 30)))
    clock.moment = datetime.combine(DAY, time(12, 10))
    store.add_callback_request(call_id=None, patient_id=None, name="Priya Shah", phone="0491 570 777",
                               reason="crisis: asked for someone to check on her", urgency="urgent")
    clock.moment = datetime.combine(DAY, time(7, 55))
    done = store.add_callback_request(call_id=None, patient_id=None, name="Old Request", phone="0491 570 778",
                                      reason="billing", urgency="normal")
    store.mark_callback_done(done, done_by="reception", note="sorted")
    _deterministic_timings(db)
    with db.conn:        # the reviews read again from the fixed timings (a cold start's engine_ms is no long wait)
        for (call_id,) in db.conn.execute("SELECT id FROM calls").fetchall():
            store_review(db.conn, call_id)
    db.close()
    return path
