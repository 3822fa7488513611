"""Calls on the seeded day that a person should look at, played through the real engine: a caller not
understood, a silence checked in on, a name corrected, and a call the voice layer timed with a long wait and a
barge-in. Added to a copy of the seeded day (the other tests keep theirs)."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from pathlib import Path

from appliance.call_review import store_review
from appliance.engine.engine import Engine
from appliance.engine.types import CallInfo
from appliance.store.clinic_store import ClinicStore
from appliance.store.database import open_database
from appliance.store.records import CallRecorder

from .seeded_clinic import DAY, FLOW, DayClock

UNCLEAR = ["uh, the thing from before, with the, um", "the thing, you know", "yeah the thing"]
CORRECTED = ["Hi, I'd like to book a remedial massage, I haven't been to you before", "Jon Smith",
             "actually, sorry, my last name is Smyth, S M Y T H, not Smith", "15 June 1988"]


def add_calls_to_review(path: Path) -> Path:
    db = open_database(path)
    clock = DayClock(datetime.combine(DAY, time(16, 0)))
    ids = _Ids(500)
    store = ClinicStore(db, new_id=ids, now=clock.now)
    recorder = CallRecorder(db)

    def call(at: time, caller_id: str, play) -> str:
        clock.moment = datetime.combine(DAY, at)
        engine = Engine(flow=FLOW, store=store, clock=clock, new_id=ids, recorder=recorder)
        engine.start(CallInfo(caller_id=caller_id))
        play(engine)
        clock.advance(15)
        if not engine.ended:
            engine.hangup()
        return engine.ctx.call_id

    def say(lines):
        def play(engine):
            for line in lines:
                if engine.ended:
                    break
                clock.advance(20)
                engine.turn(line)
        return play

    def quiet(engine):
        for attempt in (1, 2):
            clock.advance(20)
            engine.check_in(attempt)
        clock.advance(20)
        engine.silence_goodbye()

    call(time(16, 0), "0491 570 201", say(UNCLEAR))
    call(time(16, 10), "0491 570 202", quiet)
    call(time(16, 20), "0491 570 203", say(CORRECTED))
    timed = call(time(16, 30), "0491 570 313", say(["How much is a massage?", "no, that's all, thanks"]))
    heard = datetime.combine(DAY, time(16, 30, 25))
    recorder.turn_timing(call_id=timed, seq=1, speech_end=heard, agent_speech_start=heard + timedelta(seconds=4.6),
                         agent_speech_end=heard + timedelta(seconds=9))
    recorder.turn_timing(call_id=timed, seq=2, speech_start=heard + timedelta(seconds=8),
                         speech_end=heard + timedelta(seconds=9.5), agent_speech_start=heard + timedelta(seconds=10.3))
    with db.conn:       # what varies run to run, fixed as in the seeded day, and the reviews read again from it
        db.conn.execute("UPDATE tool_calls SET duration_ms = 0.5")
        db.conn.execute("UPDATE turns SET engine_ms = 2.0")
        for (call_id,) in db.conn.execute("SELECT id FROM calls").fetchall():
            store_review(db.conn, call_id)      # a first turn's engine_ms counted a cold start as a long wait
    db.close()
    return path


class _Ids:
    """Ids after the seeded day's own."""

    def __init__(self, start: int):
        self.n = start

    def __call__(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}-{self.n}"
