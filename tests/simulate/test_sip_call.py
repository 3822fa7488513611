"""Scenario files as real SIP calls on loopback: the phone service in this process, caller agents as processes.

Real models (Whisper base, Piper, Silero, Smart Turn; no LLM), real time: the slowest tests in the suite.
"""

from __future__ import annotations

import asyncio
import wave
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("pjsua2")
pytest.importorskip("pipecat")

from appliance.simulate.scenario import scenario_from_mapping  # noqa: E402
from appliance.simulate.sip_call import SipLine, play_over_sip  # noqa: E402

from voice.spoken import HOURS_CALL, voice_settings  # noqa: E402  (tests/ is on the path: tests/voice is a package)

BOOKING = Path(__file__).resolve().parents[1] / "scenarios" / "book-details-in-opening.yaml"


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    from appliance.voice.runtime import VoiceRuntime, quiet_pipecat

    quiet_pipecat("ERROR")
    return VoiceRuntime(voice_settings(tmp_path_factory.mktemp("sip-voice-data")), load_llm=False)


@pytest.fixture(scope="module")
def line(runtime, flow):
    with SipLine(flow, runtime, max_calls=4) as line:   # one phone service for the module, as `simulate --sip` does
        yield line


def hours_call(caller_id: str):
    """The hours question then goodbye (asked again if misheard), from `caller_id`."""
    data = yaml.safe_load(HOURS_CALL.read_text())
    data["caller_id"] = caller_id
    return scenario_from_mapping(data)


def test_a_booking_completes_over_sip(line, runtime, flow, tmp_path):
    wav = tmp_path / "booking.wav"
    result = asyncio.run(play_over_sip(BOOKING, flow, runtime, line=line, record=wav))

    assert result.verdict.passed, (result.verdict.failures, result.said, result.heard)
    assert result.verdict.outcome == "booked"
    assert result.said[0] == "Hi, can you book me a flu shot Friday at Eastside?"
    assert len(result.heard) == len(result.said)           # every line reached the engine as one turn
    assert result.word_errors.rate <= 0.35, (result.said, result.heard)
    call = result.call_record["call"]
    assert call["outcome"] == "booked" and call["ended_at"]
    assert call["caller_id"] == "+16085550142"                # the From header's caller ID reached the engine
    kinds = [t.kind for t in result.summary.timings]
    assert kinds[0] == "greeting" and kinds[-1] == "reply" and len(kinds) == len(result.said) + 1
    with wave.open(str(wav)) as recording:
        assert recording.getnchannels() == 2 and recording.getframerate() == 8000
        stereo = np.frombuffer(recording.readframes(recording.getnframes()), dtype=np.int16).reshape(-1, 2)
    loud = np.sqrt(np.mean(stereo.astype(float) ** 2, axis=0))
    assert loud[0] > 300 and loud[1] > 300                    # the caller's lines left, the receptionist right


def test_four_calls_at_once(line, runtime, flow, tmp_path):
    callers = [f"+6422555016{i}" for i in range(4)]

    async def all_calls():
        return await asyncio.gather(*(play_over_sip(hours_call(number), flow, runtime, line=line,
                                                    label=f"hours from {number}", record=tmp_path / f"{number}.wav")
                                      for number in callers))

    results = asyncio.run(all_calls())

    # Four callers' phones (four pjsua2 processes) and four pipelines on two cores, all going as scripted
    # (5 runs of 5 since the listener waits for the line to go quiet before handing a turn over)
    as_scripted = 0
    for result in results:
        assert result.summary is not None, result.verdict.failures
        assert result.call_record["call"]["ended_at"] and result.call_record["call"]["end_action"] == "hangup"
        assert result.verdict.outcome in ("info", "callback"), (result.verdict.failures, result.heard)
        assert len(result.call_record["turns"]) >= 3, result.heard
        as_scripted += result.verdict.passed
    assert as_scripted == 4, [(r.verdict.failures, r.heard) for r in results]
    assert len({result.summary.call_id for result in results}) == 4
    assert [result.call_record["call"]["caller_id"] for result in results] == callers   # each call found its scenario
