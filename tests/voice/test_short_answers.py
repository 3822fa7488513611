"""Short answers at a booking read-back, spoken: each is heard whether said just after the agent stops or over its
last word; a backchannel in the middle of the agent's sentence neither stops it nor becomes a turn; a soft breath
or a cough never becomes a yes.

Real models throughout (Silero, Smart Turn, Whisper base, Piper), the caller's lines said the same way on every
run (see `steady_voice`). Calls run two at a time: most of a call is waiting on the line.
"""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("pipecat")

from .read_back import Say, answer_read_back, steady_voice  # noqa: E402

# what each short answer must come to. Whisper base hears Piper's lone "correct" at its own pace as "Crack" (a
# transcriber limit, not the listener's), so that one is said a little faster. Said "uh-huh", Piper makes an "uh"
# and a breath, which Whisper writes as nothing; "mm-hmm" comes back as "Emma", "Emama" or "MMR", which the
# confirmation's repairs read as the "mm-hmm" it is. Neither may become a no or be met with silence: it is a yes,
# or the engine asks again.
ANSWERS = {
    "yep": "yes", "yeah": "yes", "yes": "yes", "sure": "yes", "correct": "yes", "uh huh": "yes",
    "that's right": "yes", "go ahead": "yes",
    "no": "no", "nope": "no",
    "uh-huh": ("yes", "asked again"), "mm-hmm": ("yes", "asked again"),
}
PACE = {"correct": 0.9}
JUST_AFTER_S = (0.1, 0.3, 0.6)   # (a) the answer starts this long after the agent falls quiet
OVER_LAST_WORD_S = -0.2          # (b) the answer starts this long before the agent's last word ends
AT_ONCE = 2                      # calls played side by side


def _answers(runtime, flow, at_of) -> dict[str, tuple[str, str]]:
    """Each short answer said at `at_of(i)`: what it came to, and the outcome's account of it."""
    rate = runtime.settings.voice.sample_rate
    lines = {word: steady_voice(runtime, word, rate, length=PACE.get(word, 1.0)) for word in ANSWERS}

    async def main():
        gate = asyncio.Semaphore(AT_ONCE)

        async def one(i: int, word: str):
            at = at_of(i)
            async with gate:
                outcome = await answer_read_back(runtime, flow, [Say(lines[word], at=at)])
            return word, (outcome.came_to, f"at {at:+.1f} s: {outcome}")

        return dict(await asyncio.gather(*(one(i, word) for i, word in enumerate(ANSWERS))))

    return asyncio.run(main())


def _wrong(results) -> list[str]:
    return [f"{word!r} came to {came!r}, not {ANSWERS[word]!r} ({account})"
            for word, (came, account) in results.items() if came not in _allowed(ANSWERS[word])]


def _allowed(expected: str | tuple[str, ...]) -> tuple[str, ...]:
    return (expected,) if isinstance(expected, str) else expected


def test_a_short_answer_just_after_the_agent_stops_reaches_the_engine(runtime, flow):
    results = _answers(runtime, flow, lambda i: JUST_AFTER_S[i % len(JUST_AFTER_S)])
    assert not _wrong(results), "\n".join(_wrong(results))


def test_a_short_answer_over_the_agents_last_word_reaches_the_engine(runtime, flow):
    results = _answers(runtime, flow, lambda i: OVER_LAST_WORD_S)
    assert not _wrong(results), "\n".join(_wrong(results))


def test_a_backchannel_in_the_middle_of_the_read_back_neither_stops_it_nor_is_a_turn(runtime, flow):
    rate = runtime.settings.voice.sample_rate
    lines = [
        Say(steady_voice(runtime, "mm-hmm", rate), at=-3.0, answered=False),          # over "... on Wednesday"
        Say(steady_voice(runtime, "yeah", rate, gain=0.25), at=-1.5, answered=False),  # softly, a moment later
        Say(steady_voice(runtime, "yes", rate), at=0.3),                               # the answer
    ]
    outcome = asyncio.run(answer_read_back(runtime, flow, lines, tail_s=3.6))
    assert outcome.barge_ins == 0 and not outcome.read_back_cut, outcome
    assert [(text.strip(".").lower(), unheard) for text, unheard in outcome.heard] == [("yes", False)], outcome
    assert outcome.booked, outcome


def test_a_breath_a_cough_or_a_soft_grunt_at_a_read_back_is_never_a_yes(runtime, flow):
    from .noises import breath, cough

    rate = runtime.settings.voice.sample_rate
    grunts = [steady_voice(runtime, "[[ hˈʌ ]]", rate, gain=0.1),     # a breathy "huh"
              steady_voice(runtime, "uh", rate, gain=0.3),            # a hesitant "uh"
              steady_voice(runtime, "ahem", rate, gain=0.08)]         # clearing the throat, softly
    quiet = bytes(int(0.5 * rate) * 2)
    alone = [runtime.transcriber.transcribe(quiet + pcm + quiet, rate).text for pcm in grunts[:2]]
    assert alone == ["Yeah.", "Yeah."]      # what Whisper makes of the first two, given them alone
    sounds = [breath(rate), cough(rate), *grunts, breath(rate, level=0.1, seed=1)]
    outcome = asyncio.run(answer_read_back(runtime, flow, [Say(pcm, at=0.8, answered=False) for pcm in sounds]))
    assert not outcome.booked, outcome
    assert all(answer.waiting_for == "confirm" for answer in outcome.answers), outcome   # asked again, if anything


def test_a_two_note_yes_whisper_doubts_was_speech_is_still_a_yes(runtime, flow):
    """Said with the simulated caller's own variation (these seeds: Whisper writes "Uh-huh.", "Aha.", "Emma." or
    "Inama." but doubts the clip held speech by up to 0.51, which for a "Yeah." would mean a hesitation), a
    two-note yes books."""
    from appliance.simulate.caller_speech import CallerVoice

    rate = runtime.settings.voice.sample_rate
    for said, seed in (("uh-huh", 1), ("uh-huh", 2), ("uh-huh", 5), ("mm-hmm", 3), ("mm-hmm", 10)):
        pcm = CallerVoice(runtime, rate, voice="piper-joe", line="g711", seed=seed).audio(said)
        outcome = asyncio.run(answer_read_back(runtime, flow, [Say(pcm, at=0.3)]))
        assert outcome.came_to == "yes" and outcome.booked, (said, seed, outcome)
