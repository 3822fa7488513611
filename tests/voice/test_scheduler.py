"""The box's scheduler: an ended turn's decode runs before a barge-in check, before speculative decodes; shorter
first among equals; a speculative decode the turn then takes is moved up; every job's wait is recorded."""

from __future__ import annotations

import threading
import time

import pytest

from appliance.voice.scheduler import BoxScheduler, Priority


def _held_lane() -> tuple[BoxScheduler, threading.Event, list[str]]:
    """A one-worker lane kept busy until the event is set, so that the jobs queued meanwhile are ordered."""
    scheduler = BoxScheduler({"stt": 1})
    release = threading.Event()
    ran: list[str] = []
    scheduler.submit("stt", release.wait, priority=Priority.TURN_ENDED, label="busy")
    while scheduler.queued("stt"):
        time.sleep(0.001)
    return scheduler, release, ran


def test_an_ended_turns_short_decode_is_not_queued_behind_other_calls_long_ones():
    scheduler, release, ran = _held_lane()
    jobs = {
        name: scheduler.submit("stt", lambda name=name: ran.append(name) or name, priority=priority, size=size,
                               label=name)
        for name, priority, size in [
            ("speculative long", Priority.SPECULATIVE, 6.0),
            ("barge-in check", Priority.BARGE_IN, 1.0),
            ("ended long", Priority.TURN_ENDED, 6.0),
            ("speculative taken by its turn", Priority.SPECULATIVE, 3.0),
            ("ended short", Priority.TURN_ENDED, 0.8),
            ("speculative short", Priority.SPECULATIVE, 0.5),
        ]}
    scheduler.promote(jobs["speculative taken by its turn"], Priority.TURN_ENDED)
    time.sleep(0.05)
    release.set()
    for job in jobs.values():
        job.future.result(timeout=5)
    assert ran == ["ended short", "speculative taken by its turn", "ended long", "barge-in check",
                   "speculative short", "speculative long"]
    assert scheduler.queued("stt") == 0


def test_every_job_records_how_long_it_waited():
    scheduler, release, _ = _held_lane()
    job = scheduler.submit("stt", lambda: "words", priority=Priority.TURN_ENDED, size=1.0, label="call 7")
    assert job.wait_ms is None                 # still waiting
    time.sleep(0.1)
    release.set()
    assert job.future.result(timeout=5) == "words"
    assert job.wait_ms >= 90 and job.finished_at is not None
    record = [w for w in scheduler.waits if w.label == "call 7"]
    assert len(record) == 1 and record[0].lane == "stt" and record[0].priority is Priority.TURN_ENDED
    assert record[0].wait_ms == job.wait_ms


def test_a_speculative_decode_is_dropped_if_not_started_but_never_once_a_turn_has_taken_it():
    scheduler, release, ran = _held_lane()
    stale = scheduler.submit("stt", lambda: ran.append("stale"), priority=Priority.SPECULATIVE)
    taken = scheduler.submit("stt", lambda: ran.append("taken"), priority=Priority.SPECULATIVE)
    scheduler.promote(taken, Priority.TURN_ENDED)
    assert scheduler.cancel(stale, only=Priority.SPECULATIVE)
    assert not scheduler.cancel(taken, only=Priority.SPECULATIVE)
    release.set()
    taken.future.result(timeout=5)
    time.sleep(0.05)
    assert ran == ["taken"] and stale.future.cancelled()


def test_a_failing_job_hands_its_exception_to_whoever_waits_and_the_lane_goes_on():
    scheduler = BoxScheduler({"tts": 1})

    def broken():
        raise RuntimeError("voice failed")

    with pytest.raises(RuntimeError, match="voice failed"):
        scheduler.submit("tts", broken, priority=Priority.TURN_ENDED).future.result(timeout=5)
    assert scheduler.submit("tts", lambda: 3, priority=Priority.TURN_ENDED).future.result(timeout=5) == 3
    with pytest.raises(KeyError, match="no scheduler lane 'llm'"):
        scheduler.submit("llm", lambda: 0, priority=Priority.TURN_ENDED)
