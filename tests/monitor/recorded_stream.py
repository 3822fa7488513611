"""A recorded event stream: two calls at once, as a monitor received them.

`demo-calls.jsonl` beside this file holds the `event` messages the service
published while Sarah Johnson booked a massage (call-1) and, meanwhile, Tom
Morgan rang to move his appointment (call-2, still on the line at the end).
It was made by playing both calls through the real engine with a
`CallEventPublisher` on an `EventBus` whose clock ticks 0.5 s per event; the
measured milliseconds are replaced by fixed ones. Regenerate it with

    .venv/bin/python -m tests.monitor.recorded_stream

(only needed when the event format changes; the tests read the file).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from appliance.events.messages import CallEvent

HERE = Path(__file__).resolve().parent
STREAM = HERE / "data" / "demo-calls.jsonl"
FIRST_TS = 1795500000.0     # wall-clock seconds of the first event
TICK = 0.5

CALL_1 = ("0491 570 006", ["Hi, I'd like to book a remedial massage please", "Sarah Johnson",
                           "the fourth of March, nineteen eighty five", "Neutral Bay please", "Thursday afternoon",
                           "how much is a massage?", "the first one", "yes please", "no, that's all, thanks"])
CALL_2 = ("0491 570 156", ["I need to move my appointment", "Tom Morgan", "19 November 1979"])


def load_stream() -> list[CallEvent]:
    return [CallEvent.from_wire(json.loads(line)) for line in STREAM.read_text(encoding="utf-8").splitlines() if line]


def until(events: list[CallEvent], predicate) -> list[CallEvent]:
    """The events up to and including the first one `predicate` accepts."""
    out = []
    for event in events:
        out.append(event)
        if predicate(event):
            return out
    return out


def record() -> list[dict]:
    import yaml

    from appliance import paths
    from appliance.clinic import clinic_from_mapping
    from appliance.engine.clock import CountingIds, FrozenClock
    from appliance.engine.engine import Engine
    from appliance.engine.types import CallInfo
    from appliance.events import CallEventPublisher, EventBus
    from appliance.store.clinic_store import ClinicStore
    from appliance.store.database import open_database
    from appliance.store.records import CallRecorder

    from .seeded_clinic import FLOW

    ticks = iter(FIRST_TS + TICK * n for n in range(100000))
    bus = EventBus(clock=lambda: next(ticks))
    seen = bus.subscribe(lambda: None, maxsize=100000)
    clock = FrozenClock(datetime(2026, 11, 24, 9, 10))
    ids = CountingIds()
    db = open_database(":memory:")
    store = ClinicStore(db, new_id=ids, now=clock.now)
    store.load_clinic(clinic_from_mapping(yaml.safe_load((paths.REPO_ROOT / "config" / "clinic.demo.yaml").read_text())))
    engines = []
    for caller_id, _lines in (CALL_1, CALL_2):
        engine = Engine(flow=FLOW, store=store, clock=clock, new_id=ids,
                        recorder=CallEventPublisher(CallRecorder(db), bus))
        engine.start(CallInfo(caller_id=caller_id))
        engines.append(engine)
    for turn in range(max(len(CALL_1[1]), len(CALL_2[1]))):
        for engine, (_caller, lines) in zip(engines, (CALL_1, CALL_2)):
            if turn < len(lines) and not engine.ended:
                engine.turn(lines[turn])
    messages = []
    for event in seen.drain():
        wire = event.to_wire()
        fields = wire["fields"]
        if "duration_ms" in fields:
            fields["duration_ms"] = 0.5
        if "engine_ms" in fields:
            fields["engine_ms"] = 3.0
        messages.append(wire)
    return messages


if __name__ == "__main__":
    STREAM.parent.mkdir(exist_ok=True)
    STREAM.write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in record()), encoding="utf-8")
    print(f"wrote {STREAM}")
