"""A spoken call that opens on a booking read-back, for tests of how the caller's answer to it is heard.

The engine is taken to the read-back in text (the scenario's own answers); the spoken call then opens with the
read-back, played from the speech cache so its length, and where its last word ends, are known. Its audio goes
out at once except for its last `tail_s`, which plays in real time: the caller can answer over the agent's last
word, or in the middle of its sentence, as on a phone, while the rest of the call runs faster than real time.

    outcome = asyncio.run(answer_read_back(runtime, flow, [Say(pcm, at=-0.2)]))
    assert outcome.booked
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from appliance.engine.types import CallInfo, TurnResult
from appliance.voice import telephone, to_pcm
from appliance.voice.audio import trim_leading_quiet
from appliance.simulate.caller import SimulatedCaller
from appliance.simulate.spoken_call import ScenarioCall

from .spoken import scenario

BOOKING = Path(__file__).resolve().parents[1] / "scenarios" / "book-returning-patient-with-caller-id.yaml"
LAST_WORD_LEVEL = 1000     # int16: the read-back's last sample this loud ends its last word
ANSWER_LIMIT_S = 8.0       # the engine answers the caller within this, or the answer was lost


@dataclass(frozen=True)
class Say:
    """The caller says `pcm` `at` seconds after the end of the read-back's last word (negative: over it).

    Said in real time when it starts over the agent (its timing against the agent's speech is the point), else
    faster than real time, `at` seconds after the agent has fallen quiet (or after the caller's last line). With
    `answered`, the caller waits for the engine's answer before going on."""

    pcm: bytes
    at: float = 0.0
    answered: bool = True


@dataclass
class Outcome:
    heard: list[tuple[str, bool]] = field(default_factory=list)   # (text, not heard) of each caller turn
    answer: TurnResult | None = None       # the engine's answer to the caller's last answered line (None: none came)
    answers: list[TurnResult] = field(default_factory=list)      # all the engine said after the read-back
    booked: bool = False                   # the booking was written
    barge_ins: int = 0
    read_back_cut: bool = False

    @property
    def came_to(self) -> str:
        """"yes" (booked), "no" (the engine moved on without booking), "asked again" (the read-back was asked
        again) or "lost" (the engine never got a turn: the caller met silence)."""
        if self.answer is None:
            return "lost"
        if self.booked:
            return "yes"
        return "asked again" if self.answer.waiting_for == "confirm" else "no"

    def __str__(self) -> str:
        state = self.answer.state if self.answer is not None else None
        return f"heard {self.heard}, engine -> {state}, booked {self.booked}, barge-ins {self.barge_ins}"


async def answer_read_back(runtime, flow, lines: list[Say], *, tail_s: float = 1.0,
                           background: bytes | None = None) -> Outcome:
    """Play the read-back and the caller's `lines`; return once the engine has answered the last of them.
    `background`: what the line carries while the caller is quiet (a noisy room), looped.

    `tail_s` is at least a second: the VAD measures loudness over the line's last 0.4 s and reads none until it
    has that much, so a caller answering a read-back played in no time at all would not be heard."""
    full, clinic = scenario(BOOKING)
    # the caller's voice needs none of the script's lines: they were said in text
    quiet = full.model_copy(update={"caller": full.caller.model_copy(update={"answers": {}, "opening": "", "default": ""})})
    rig = await ScenarioCall.prepare(quiet, clinic, flow, runtime, fast=True, realtime_output=False)
    rig.line.background = background
    try:
        read_back = await rig.host.call(_drive_to_read_back, rig.engine, full)
        rate = rig.rate
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, runtime.speech_cache.warm, [read_back.reply], rate)
        # as the line plays it: the speaker cuts the voice's lead-in quiet
        audio = np.frombuffer(trim_leading_quiet(runtime.speech_cache.get(read_back.reply, rate), rate), np.int16)
        length_s = len(audio) / rate
        last_word_s = float(np.nonzero(np.abs(audio) >= LAST_WORD_LEVEL)[0][-1]) / rate
        output = _play_tail_in_real_time(rig, length_s - tail_s, length_s)
        outcome = Outcome()

        async def caller(rig: ScenarioCall) -> None:
            while await rig.speaking.get() != "greeting":
                pass
            for line in lines:
                answered = len(rig.call.conversation.results)
                if line.at >= 0:
                    while output.written_s < length_s:
                        await asyncio.sleep(0.005)
                    await rig.agent_quiet()
                    await asyncio.sleep(line.at)
                    rig.line.fast = True
                else:
                    while output.written_s < last_word_s + line.at:
                        await asyncio.sleep(0.005)
                    rig.line.fast = False
                await rig.line.say(line.pcm)
                if line.answered:
                    outcome.answer = await _next_answer(rig, answered)
            await _heard_out(rig)
            # the caller hangs up; what the agent was about to say is not the point, so its voice is not waited for
            await rig.call.hang_up()
            await rig.call.conversation.finished.wait()
            await rig.call.worker.cancel()

        await rig.run(caller, limit_s=60)
        conversation = rig.call.conversation
        outcome.heard = [(e.text, e.data.get("unheard", False)) for e in rig.events if e.kind == "heard"]
        outcome.answers = list(conversation.results[1:])
        outcome.booked = bool(await rig.host.call(lambda: rig.store.appointments_for_call(rig.engine.ctx.call_id)))
        outcome.barge_ins = sum(e.kind == "barge_in" for e in rig.events)
        outcome.read_back_cut = bool(conversation.timings) and conversation.timings[0].cut
        return outcome
    finally:
        rig.close()


def steady_voice(runtime, text: str, rate: int, *, length: float = 1.0, gain: float = 0.8) -> bytes:
    """The simulated caller's voice (Piper, through the phone line) saying `text` the same way every time: without
    its sampling noise, so a test hears the same audio on every run. `length` > 1 says it slower."""
    from piper.config import SynthesisConfig

    synthesizer = runtime.synthesizer
    steady = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0, length_scale=length)
    audio = np.concatenate([chunk.audio_float_array for chunk in synthesizer.voice.synthesize(text, syn_config=steady)])
    return to_pcm(telephone(audio * gain, synthesizer.rate, rate))


def _drive_to_read_back(engine, script) -> TurnResult:
    """On the engine's thread: answer every question in text until the booking is read back; the spoken
    call opens with that read-back (the engine's greeting is what a call's first words are)."""
    result = engine.start(CallInfo(caller_id=script.caller_id))
    caller = SimulatedCaller.of(script)
    while result.waiting_for != "confirm":
        result = engine.turn(caller.answer(result))
    engine.greeting = result
    return result


def _play_tail_in_real_time(rig: ScenarioCall, from_s: float, until_s: float):
    """The line's output takes the agent's audio at once, except between `from_s` and `until_s` of it."""
    output = rig.transport.output()
    write = output.write_audio_frame

    async def paced(frame):
        output.realtime = from_s <= output.written_s < until_s
        return await write(frame)

    output.write_audio_frame = paced
    return output


async def _heard_out(rig: ScenarioCall, limit_s: float = 5.0) -> None:
    """Return once the line has carried a second of quiet after the caller's last words and the listener has
    judged and handed over all it heard (or after `limit_s`)."""
    listener = rig.call.listener
    quiet_until = rig.line.sent_s + 1.0
    for _ in range(int(limit_s / 0.02)):
        if rig.line.sent_s >= quiet_until and listener._utt is None and listener._pending is None:
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.2)   # a turn just handed over reaches the engine


async def _next_answer(rig: ScenarioCall, answered: int) -> TurnResult | None:
    """The engine's next answer after `answered` results, or None if none comes within ANSWER_LIMIT_S."""
    results = rig.call.conversation.results
    for _ in range(int(ANSWER_LIMIT_S / 0.02)):
        if len(results) > answered:
            return results[answered]
        await asyncio.sleep(0.02)
    return None
