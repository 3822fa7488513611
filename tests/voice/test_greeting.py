"""The greeting is a cached phrase: it plays the moment the engine has answered the call, without any model work,
so it never waits behind other calls' speech or transcriptions on the box's scheduler."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

pytest.importorskip("pipecat")

from appliance.engine.types import TurnResult  # noqa: E402
from appliance.voice.conversation import EngineProcessor  # noqa: E402
from appliance.voice.engine_host import EngineHost  # noqa: E402
from appliance.voice.frames import AgentSpeechFrame, SpeechMarkFrame  # noqa: E402
from appliance.voice.scheduler import LANES, BoxScheduler, Priority  # noqa: E402
from appliance.voice.speaker import PiperSpeaker  # noqa: E402
from appliance.voice.speech_cache import SpeechCache  # noqa: E402

from .test_speak_sooner import RATE, _Voice  # noqa: E402

GREETING = "Thanks for calling the clinic, how can I help?"


class _Engine:
    greeting = None
    llm_ms = None

    def __init__(self):
        self.started_on: str | None = None

    def start(self, call_info):
        self.started_on = threading.current_thread().name
        return TurnResult(reply=GREETING, state="start", waiting_for="task")


def _busy_box() -> tuple[BoxScheduler, threading.Event, dict[str, int]]:
    """Every lane's workers held by other calls' jobs, with more of theirs queued behind them."""
    scheduler = BoxScheduler(LANES)
    release = threading.Event()
    for lane, workers in LANES.items():
        for n in range(workers + 2):
            scheduler.submit(lane, release.wait, priority=Priority.TURN_ENDED, size=1.0, label=f"other call {n}")
    deadline = time.monotonic() + 5
    while any(scheduler.queued(lane) != 2 for lane in LANES) and time.monotonic() < deadline:
        time.sleep(0.001)
    return scheduler, release, {lane: scheduler.queued(lane) for lane in LANES}


def test_a_cached_greeting_never_waits_behind_other_calls_speech_or_transcriptions(tmp_path):
    scheduler, release, queued = _busy_box()
    voice = _Voice(tmp_path)
    cache = SpeechCache(voice, None)
    cache.warm([GREETING], RATE)
    voice.made.clear()
    speaker = PiperSpeaker(voice, cache, RATE, call_id="greeted", scheduler=scheduler)
    host = EngineHost("greeted")
    engine = _Engine()
    processor = EngineProcessor(host=host, engine=engine, silence_checkins_s=())
    played: list[bytes] = []

    async def to_speaker(frame, direction=None):       # the pipeline between the two, without Pipecat's tasks
        if isinstance(frame, AgentSpeechFrame):
            await speaker._speak(frame)

    async def to_line(frame, direction=None):
        if isinstance(frame, SpeechMarkFrame):
            processor.on_mark(frame, time.time())
        elif hasattr(frame, "audio"):
            played.append(frame.audio)

    processor.push_frame = to_speaker
    speaker.push_frame = to_line

    async def greet() -> float:
        processor.call_started_at = time.time()
        processor.answer_call()
        await asyncio.wait_for(processor._greet(), 2.0)   # a wait on any busy lane would never end
        return processor.greeting_delay_ms, {lane: scheduler.queued(lane) for lane in LANES}

    try:
        delay_ms, queued_after = asyncio.run(greet())
    finally:
        release.set()
        host.close()
    greeting = processor.timings[0]
    assert greeting.kind == "greeting" and played == [GREETING.encode()]
    assert voice.made == []                               # nothing synthesised: the cache's audio
    assert greeting.queue_ms == 0 and greeting.tts_first_audio_ms is not None
    assert queued_after == queued                         # no job of the greeting's was queued
    assert all("greeted" not in wait.label for wait in scheduler.waits)
    assert engine.started_on == "engine-greeted"                # the engine answered on its own thread
    assert delay_ms < 1000


def test_the_clinics_fixed_lines_are_worded_before_any_call_to_be_warmed(flow, store, clock):
    """The greeting, then each reply whose only facts are the clinic's own (the goodbye with its name): a call's
    last words then wait on no model."""
    from appliance.voice import clinic_lines_for

    lines = clinic_lines_for(flow, store, clock)
    clinic = store.profile().name
    assert lines[0].startswith("Thank you for calling") or clinic in lines[0]    # the greeting first
    assert f"Thank you for calling {clinic}. Goodbye." in lines
    assert all("{" not in line for line in lines) and len(lines) == len(set(lines))


def test_warming_a_clinic_caches_each_of_its_fixed_lines(tmp_path):
    from appliance.voice.runtime import VoiceRuntime

    voice = _Voice(tmp_path)
    runtime = VoiceRuntime.__new__(VoiceRuntime)     # only the speech cache and the settings are used
    runtime.speech_cache = SpeechCache(voice, None)
    runtime.settings = type("S", (), {"voice": type("V", (), {"greeting_cache": True})()})()
    runtime.warm_clinic(["Hello, Acme Physio.", "Thank you for calling Acme Physio. Goodbye."], RATE)
    assert runtime.speech_cache.get("Thank you for calling Acme Physio. Goodbye.", RATE) is not None
