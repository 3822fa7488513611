"""An engine that breaks outside its own guard: the caller hears an apology, the call ends `engine_error`, and
a caller whose number is known gets a callback."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("pipecat")

from appliance.engine.types import CallInfo  # noqa: E402
from appliance.voice.conversation import EngineProcessor, TurnTiming  # noqa: E402
from appliance.voice.engine_host import EngineHost  # noqa: E402
from appliance.voice.speech_cache import ENGINE_FAILED_LINE  # noqa: E402

from .timed_speech import timed  # noqa: E402


CALLER = "0491 570 006"


def demo_call(path):
    """A call to the demo clinic in a database file, answered and one turn in (on the calling thread)."""
    import yaml

    from appliance import paths
    from appliance.clinic import clinic_from_mapping
    from appliance.engine.clock import ClinicClock
    from appliance.engine.engine import Engine
    from appliance.engine.flow import load_flow
    from appliance.store import ClinicStore, open_database
    from appliance.store.records import CallRecorder

    db = open_database(path)
    store = ClinicStore(db)
    store.load_clinic(clinic_from_mapping(yaml.safe_load((paths.REPO_ROOT / "config" / "clinic.demo.yaml").read_text())))
    engine = Engine(flow=load_flow(paths.REPO_ROOT / "config" / "flows" / "clinic.yaml"), store=store,
                    clock=ClinicClock(store.profile().timezone), recorder=CallRecorder(db))
    engine.start(CallInfo(caller_id=CALLER))
    engine.turn("Hi, I'd like to book a remedial massage please")
    return engine


def broken_turn(text):
    raise RuntimeError("simulated engine fault")


async def broken_call(path, name: str):
    """A demo call one turn in whose engine then breaks on the next turn: (host, engine, processor, lines said)."""
    host = EngineHost(name)
    engine = await host.call(demo_call, path)
    processor = EngineProcessor(host=host, engine=engine, call_info=CallInfo(caller_id=CALLER))
    return host, engine, processor, timed(processor, line_s=0.1)


def test_an_engine_error_outside_its_guard_ends_the_call_as_engine_error_with_a_callback(tmp_path):
    async def run():
        host, engine, processor, said = await broken_call(tmp_path / "appliance.db", "broken")
        result = await processor._ask_engine(TurnTiming(seq=-1, kind="reply"), broken_turn, "hello")
        rows = await host.call(lambda: engine.store.db.conn.execute(
            "SELECT c.outcome, c.end_reason, r.reason FROM calls c LEFT JOIN callback_requests r "
            "ON r.call_id = c.id").fetchall())
        host.close()
        return result, said, processor.outcome, rows

    result, said, outcome, rows = asyncio.run(run())
    assert result is None and [text for _, _, text in said] == [ENGINE_FAILED_LINE]
    assert outcome == "engine_error"
    ((recorded, reason, callback),) = rows
    assert recorded == "engine_error" and "RuntimeError" in reason and callback.startswith("cut_off")


def test_a_reply_playing_ahead_of_the_hand_over_stops_before_the_apology_when_the_engine_then_breaks(tmp_path):
    """The reply worked out ahead started playing; the turn itself then breaks the engine: what plays ahead is a
    reply the engine never gave, so it stops, and the apology is all the caller hears after it."""
    from appliance.voice.conversation import _Ahead

    async def run():
        host, _, processor, said = await broken_call(tmp_path / "appliance.db", "broken-ahead")
        events: list[str] = []

        async def broadcast_interruption():
            events.append("interrupted")

        processor.broadcast_interruption = broadcast_interruption
        ahead = processor._ahead = _Ahead("Sarah Johnson", 0, asyncio.get_running_loop().create_future())
        ahead.said, ahead.speech = "Thanks, Sarah. And your date of birth?", processor._new_speech("reply")
        result = await processor._ask_engine(TurnTiming(seq=-1, kind="reply"), broken_turn, "Sarah Johnson")
        host.close()
        return result, said, events, ahead.speech

    result, said, events, playing = asyncio.run(run())
    assert result is None and events == ["interrupted"] and playing.cut
    assert [text for _, _, text in said] == [ENGINE_FAILED_LINE]
