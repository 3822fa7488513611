"""Barge-in: real words over the agent stop it and are answered; a short "hmm" does not stop it."""

from __future__ import annotations

import asyncio
import time

import pytest

pytest.importorskip("pipecat")

from appliance.simulate.spoken_call import ScenarioCall  # noqa: E402

from .spoken import HERE, scenario  # noqa: E402

QUESTION = "What are your opening hours?"
GOODBYE = "No, that's all. Goodbye."


def test_caller_cuts_the_long_hours_short_and_a_hmm_does_not(runtime, flow):
    script, clinic = scenario(HERE / "long-hours.yaml")
    moments: dict[str, float] = {}

    async def drive(rig: ScenarioCall) -> None:
        await asyncio.sleep(0.5)
        await rig.say(QUESTION)                     # over the greeting (or just after it, on a busy machine)
        while (await rig.speaking.get()) != "reply":
            pass
        await asyncio.sleep(1.0)                    # the hours are being read out (about 20 s of speech)
        moments["hmm"] = time.time()
        await rig.say("Hmm.")                       # not words: the agent keeps talking
        await asyncio.sleep(1.0)
        moments["words"] = time.time()
        await rig.say(GOODBYE)                      # real words: the agent stops and listens

    async def main():
        rig = await ScenarioCall.prepare(script, clinic, flow, runtime, fast=False, realtime_output=True)
        try:
            await asyncio.get_running_loop().run_in_executor(None, rig.voice.prepare, ["Hmm."])
            summary = await rig.run(drive, limit_s=90)
            _, record = await rig.judge("barge-in")
            return rig, summary, record
        finally:
            rig.close()

    rig, summary, record = asyncio.run(main())
    kinds = [t.kind for t in summary.timings]
    # a pause inside a line can still make two turns of it; what matters is below
    assert kinds[0] == "greeting" and set(kinds[1:]) == {"reply"}, kinds
    index, hours = next((i, t) for i, t in enumerate(summary.timings) if "8:45" in t.agent_text)
    after, goodbye = summary.timings[index + 1], summary.timings[-1]
    assert hours.cut, "the hours were read to the end over the caller"
    barge_ins = [e.data["at"] for e in rig.events if e.kind == "barge_in" and e.data["at"] > moments["hmm"]]
    assert len(barge_ins) == 1 and barge_ins[0] > moments["words"], "a hmm stopped the agent"
    assert hours.agent_end - barge_ins[0] < 0.5, "the agent went on talking after the barge-in"
    assert after.barge_in and goodbye.state == "goodbye"
    assert summary.outcome == "info"
    assert record["call"]["outcome"] == "info" and record["call"]["ended_at"]
    turns = {t["seq"]: t for t in record["turns"]}
    assert turns[hours.seq]["agent_speech_end"] <= turns[after.seq]["agent_speech_start"]
