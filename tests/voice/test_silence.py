"""A caller who says nothing: check-ins at each silence mark, then the goodbye (shortened clock)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("pipecat")

from appliance.simulate.spoken_call import ScenarioCall  # noqa: E402

from .spoken import scenario, voice_settings  # noqa: E402


def test_silent_caller_gets_three_check_ins_then_a_goodbye(runtime, flow, tmp_path):
    quick = runtime.with_settings(voice_settings(tmp_path, silence_checkins_s=[1.0, 2.0, 3.0]))
    script, clinic = scenario()

    async def main():
        rig = await ScenarioCall.prepare(script, clinic, flow, quick, fast=True)
        try:
            summary = await rig.run(None, limit_s=60)
            _, record = await rig.judge("silence")
            return summary, record
        finally:
            rig.close()

    summary, record = asyncio.run(main())
    assert [t.kind for t in summary.timings] == ["greeting", "checkin", "checkin", "checkin", "goodbye"]
    check_ins = [t.agent_text for t in summary.timings if t.kind == "checkin"]
    assert check_ins[0].startswith("Are you still there?") and len(set(check_ins)) == 3
    assert "call the clinic back" in summary.timings[-1].agent_text or "Goodbye" in summary.timings[-1].agent_text
    # counted from the end of the greeting: 1 s, 2 s, 3 s, then the goodbye at 3 + 1 s
    greeting_end = summary.timings[0].agent_end
    starts = [t.agent_start - greeting_end for t in summary.timings[1:]]
    for start, mark in zip(starts, (1.0, 2.0, 3.0, 4.0)):
        assert mark - 0.05 <= start <= mark + 3.0, starts
    assert summary.outcome == "abandoned"
    call = record["call"]
    assert call["outcome"] == "abandoned" and call["end_action"] == "hangup" and call["ended_at"]
    assert [t["seq"] for t in record["turns"]] == [0, 1, 2, 3, 4]
    assert all(t["agent_speech_start"] and t["agent_speech_end"] for t in record["turns"])
