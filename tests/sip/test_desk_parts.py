"""The warm transfer's pure parts: the desk's brief from a call's record, and the hold audio (no pjsua2, no
models)."""

from __future__ import annotations

import wave

import numpy as np

from appliance import paths
from appliance.call_review import summary_of_call
from appliance.engine.flow import load_flow
from appliance.simulate.runner import play_scenario
from appliance.simulate.scenario import load_scenario
from appliance.sip.desk_brief import desk_brief
from appliance.sip.hold_audio import LOOP_S, hold_file, hold_sound, hold_tones

SCENARIOS = paths.REPO_ROOT / "tests" / "scenarios"
FLOW = load_flow(paths.REPO_ROOT / "config" / "flows" / "clinic.yaml")


def test_the_brief_names_the_verified_caller_what_they_asked_and_what_was_done():
    scenario, clinic = load_scenario(SCENARIOS / "example-reschedule.yaml")
    played = play_scenario(scenario, clinic, FLOW)
    brief = desk_brief(summary_of_call(played.store.db.conn, played.call_id))
    assert brief == ("Hello, this is the automated receptionist with a caller for you. Sarah Johnson, identified by "
                     "name and date of birth (from +61400000001). They asked to reschedule and about a price. So far "
                     "I have moved Follow-up with Dr Anna Lee at City from Tue 2026-11-24 10:00 to Thu 2026-11-26 "
                     "12:15; answered their question about a price. I'm putting them through now.")


def test_the_brief_of_a_transferred_caller_leaves_out_the_transfer_itself():
    scenario, clinic = load_scenario(SCENARIOS / "human-request-transferred.yaml")
    played = play_scenario(scenario, clinic, FLOW)
    recap = summary_of_call(played.store.db.conn, played.call_id)
    assert "transferred the call to the front desk" in recap.done
    brief = desk_brief(recap)
    assert "front desk" not in brief and "Transferred" not in brief
    assert "They asked for a person." in brief and "Nothing has been done for them yet." in brief


def test_a_call_without_a_record_still_gets_a_brief():
    assert desk_brief(None) == ("Hello, this is the automated receptionist with a caller for you. I have no details "
                                "of the call. I'm putting them through now.")


def test_the_hold_notes_are_soft_and_loop_at_the_calls_rate():
    for rate in (8000, 16000):
        samples = np.frombuffer(hold_tones(rate), dtype=np.int16)
        assert len(samples) == int(LOOP_S * rate)
        assert 2000 < np.abs(samples).max() < 5000           # heard, never loud
        assert np.abs(samples[-rate:]).max() == 0             # a quiet second before the next notes


def test_a_hold_file_is_read_at_the_calls_rate_and_a_bad_one_falls_back_to_the_notes(tmp_path):
    path = tmp_path / "hold.wav"
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(2)
        wav.setsampwidth(2)
        wav.setframerate(22050)
        wav.writeframes(np.full(22050 * 2 * 2, 1000, dtype=np.int16).tobytes())   # 2 s of stereo
    pcm = hold_file(path, 8000)
    assert len(pcm) == 2 * 8000 * 2 and set(np.frombuffer(pcm, dtype=np.int16)) == {1000}
    broken = tmp_path / "broken.wav"
    broken.write_bytes(b"not a wav")
    assert hold_sound(broken, 8000) == hold_tones(8000)
    assert hold_sound(None, 8000) == hold_tones(8000)


def test_the_desks_brief_is_made_on_the_boxs_tts_lane_after_the_replies_callers_wait_for():
    """The brief is Piper's work like every call's replies: a job on the box scheduler's TTS lane, made ahead of
    need while the desk's phone rings (behind replies callers are waiting for), moved up when the desk answers."""
    import asyncio
    import threading
    import time
    from types import SimpleNamespace

    from appliance.sip.front_desk import BriefSpeech, FrontDesk
    from appliance.voice import Priority, box_scheduler

    class Voice:
        def sentences(self, text, rate, stop=None):
            ran.append("brief")
            yield b"brief"

    async def no_record(fn, *args):
        raise RuntimeError("no call record")

    session = SimpleNamespace(host=SimpleNamespace(call=no_record), engine=None, call_id="desk-test", rate=8000,
                              service=SimpleNamespace(runtime=SimpleNamespace(synthesizer=Voice())))
    scheduler = box_scheduler()
    release = threading.Event()
    ran: list[str] = []
    for n in range(2):     # the lane's two workers busy with other calls' speech
        scheduler.submit("tts", release.wait, priority=Priority.TURN_ENDED, label=f"other call {n}")
    while scheduler.queued("tts"):
        time.sleep(0.001)

    async def run() -> BriefSpeech:
        brief = BriefSpeech()
        making = asyncio.create_task(FrontDesk(session)._speak_brief(brief))
        while brief.job is None:
            await asyncio.sleep(0.001)
        reply = scheduler.submit("tts", lambda: ran.append("a caller's reply"), priority=Priority.TURN_ENDED,
                                 label="reply")
        assert brief.job.lane == "tts" and brief.job.priority is Priority.SPECULATIVE and brief.job.started is None
        release.set()
        await making
        assert reply.future.done()
        return brief

    brief = asyncio.run(run())
    assert ran == ["a caller's reply", "brief"]
    assert brief.finished.is_set() and list(brief.parts) == [b"brief"]
    assert any(w.label == "call desk-test desk brief" and w.lane == "tts" for w in scheduler.waits)
