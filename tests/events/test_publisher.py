"""The publisher is the engine's recorder: it writes first, then publishes, and never hurts the call."""

from collections import Counter


from appliance.events import CallEventPublisher, EventBus
from appliance.events.catch_up import record_entries
from appliance.store.records import CallRecorder, RecordError

from .conftest import DEMO_LINES


class CheckingBus:
    """Publishes nothing; checks that what it is given is already in the database."""

    def __init__(self, recorder: CallRecorder):
        self.recorder = recorder
        self.kinds: list[str] = []

    def publish(self, kind, call_id, fields):
        record = self.recorder.call_record(call_id)
        if kind == "call_started":
            assert record["call"] is not None
        elif kind == "turn":
            assert fields["seq"] in [t["seq"] for t in record["turns"]], "published before it was written"
        elif kind == "call_ended":
            assert record["call"]["outcome"] == fields["outcome"]
        elif kind == "tool_call":
            assert any(t["name"] == fields["name"] for t in record["tool_calls"])
        self.kinds.append(kind)


def test_each_entry_is_on_disk_before_it_is_published(clinic):
    bus = CheckingBus(clinic.recorder)
    engine = clinic.start(CallEventPublisher(clinic.recorder, bus))
    for line in DEMO_LINES:
        engine.turn(line)
    assert engine.outcome() == "booked"
    counts = Counter(bus.kinds)
    record = clinic.recorder.call_record(engine.ctx.call_id)
    assert counts["turn"] == len(record["turns"]) == len(DEMO_LINES) + 1
    assert counts["transition"] == len(record["transitions"])
    assert counts["tool_call"] == len(record["tool_calls"])
    assert counts["call_started"] == counts["call_ended"] == 1


def test_a_batch_the_database_refuses_is_not_published_and_the_engine_keeps_it(clinic):
    class Refusing(CallRecorder):
        refuse = True

        def write_batch(self, entries):
            if self.refuse:
                raise RecordError("disk full")
            super().write_batch(entries)

    recorder = Refusing(clinic.db)
    bus = EventBus()
    seen = bus.subscribe(lambda: None)
    engine = clinic.start(CallEventPublisher(recorder, bus))
    assert seen.drain() == [] and engine.unsaved_records > 0
    recorder.refuse = False
    engine.turn(DEMO_LINES[0])
    kinds = [e.kind for e in seen.drain()]
    assert kinds[0] == "call_started" and "turn" in kinds and engine.unsaved_records == 0


def test_engine_runs_unchanged_with_the_publisher_and_events_mirror_the_record(clinic):
    bus = EventBus()
    seen = bus.subscribe(lambda: None, maxsize=10000)
    engine = clinic.start(CallEventPublisher(CallRecorder(clinic.db), bus))
    for line in DEMO_LINES:
        engine.turn(line)
    events = seen.drain()
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert all(e.call_id == engine.ctx.call_id for e in events)
    from_record = record_entries(clinic.recorder.call_record(engine.ctx.call_id))
    assert Counter(e.kind for e in events) == Counter(name for name, _ in from_record)
    turns = [e.fields for e in events if e.kind == "turn"]
    assert turns[1]["caller_text"] == DEMO_LINES[0] and turns[0]["trigger"] is None
    assert isinstance(turns[1]["trigger"], list) and isinstance(turns[1]["at"], str)   # JSON as the records store


def test_turn_timing_written_later_by_the_voice_layer_is_recorded_then_published(clinic):
    bus = EventBus()
    seen = bus.subscribe(lambda: None)
    publisher = CallEventPublisher(clinic.recorder, bus)
    engine = clinic.start(publisher)
    seen.drain()
    engine.recorder.turn_timing(call_id=engine.ctx.call_id, seq=0, stt_ms=120.0, tts_first_audio_ms=80.0)
    (event,) = seen.drain()
    assert event.kind == "turn_timing" and event.fields["stt_ms"] == 120.0
    assert clinic.recorder.call_record(engine.ctx.call_id)["turns"][0]["stt_ms"] == 120.0


def test_other_kinds_go_out_in_the_same_envelope_without_touching_the_records(clinic):
    bus = EventBus()
    seen = bus.subscribe(lambda: None)
    publisher = CallEventPublisher(clinic.recorder, bus)
    publisher.publish("escalation", "call-9", reason="caller upset", turn_seq=3)
    publisher.publish("latency", "call-9", seq=3, total_ms=840.0)
    kinds = [(e.kind, e.call_id, e.fields.get("reason")) for e in seen.drain()]
    assert kinds == [("escalation", "call-9", "caller upset"), ("latency", "call-9", None)]
    assert clinic.recorder.calls() == []


def test_a_failing_bus_never_reaches_the_call(clinic):
    class Broken:
        def publish(self, *args):
            raise RuntimeError("monitor exploded")

    engine = clinic.start(CallEventPublisher(clinic.recorder, Broken()))
    for line in DEMO_LINES:
        engine.turn(line)
    assert engine.outcome() == "booked" and engine.unsaved_records == 0


def test_watching_an_engine_built_with_a_plain_recorder_catches_up_from_the_record(clinic):
    bus = EventBus()
    seen = bus.subscribe(lambda: None, maxsize=10000)
    engine = clinic.start(clinic.recorder)          # greeting already written, nothing published
    publisher = CallEventPublisher(None, bus)
    publisher.watch(engine)
    publisher.watch(engine)                         # twice is once
    caught_up = [e.kind for e in seen.drain()]
    assert caught_up[0] == "call_started" and caught_up.count("turn") == 1 and "tool_call" in caught_up
    assert engine.recorder is publisher and publisher.recorder is clinic.recorder
    engine.turn(DEMO_LINES[0])
    live = [e.kind for e in seen.drain()]
    assert "turn" in live and "call_started" not in live
    assert publisher.call_record(engine.ctx.call_id)["call"]["id"] == engine.ctx.call_id   # reads go to the recorder


def test_record_entries_put_each_tool_after_the_state_it_ran_in(clinic):
    engine = clinic.start(clinic.recorder)
    for line in DEMO_LINES:
        engine.turn(line)
    entries = record_entries(clinic.recorder.call_record(engine.ctx.call_id))
    current_state = None
    for name, fields in entries:
        if name == "transition":
            current_state = fields["to_state"]
        elif name == "tool_call":
            assert fields["state"] == current_state
    assert entries[0][0] == "call_started" and entries[-1][0] == "call_ended"


def test_published_fields_are_plain_json_as_the_records_store_them(clinic):
    import json

    bus = EventBus()
    seen = bus.subscribe(lambda: None)
    clinic.start(CallEventPublisher(clinic.recorder, bus))
    events = seen.drain()
    for event in events:
        json.dumps(event.to_wire())
    started = next(e for e in events if e.kind == "call_started")
    assert started.fields["started_at"] == "2026-11-24T09:10:00"
