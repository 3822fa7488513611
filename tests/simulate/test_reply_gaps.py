"""Reply latency read off a call's recording: the caller's last sound to the agent's next sound."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pipecat")

from appliance.simulate.reply_gaps import first_agent_sound_s, reply_gaps  # noqa: E402
from appliance.voice.audio import CallTape  # noqa: E402

RATE = 8000


def _quiet(seconds: float) -> bytes:
    return bytes(int(seconds * RATE) * 2)


def _tone(seconds: float) -> bytes:
    t = np.arange(int(seconds * RATE)) / RATE
    return (np.sin(2 * np.pi * 300 * t) * 8000).astype(np.int16).tobytes()


def _say(tape: CallTape, pcm: bytes) -> None:
    tape.caller_line_starts(len(pcm) // 2)
    tape.caller(pcm)


def test_latency_runs_from_the_callers_last_sound_to_the_agents_first_sound():
    tape = CallTape(RATE)
    tape.agent(_tone(0.5))                                # the greeting, at the line's start
    tape.caller(_quiet(1.0))
    _say(tape, _quiet(0.2) + _tone(1.0) + _quiet(0.3))    # a line with quiet around its words
    tape.caller(_quiet(0.4))
    tape.agent(_tone(0.5))                                # the reply: 0.3 + 0.4 s after the last word
    tape.caller(_quiet(1.0))
    (gap,) = reply_gaps(tape)
    assert gap.speech_start_s == pytest.approx(1.2, abs=0.011)
    assert gap.speech_end_s == pytest.approx(2.2, abs=0.011)
    assert gap.latency_ms == pytest.approx(700, abs=15)
    assert not gap.interrupted
    assert first_agent_sound_s(tape) == 0.0


def test_an_agent_starting_inside_a_callers_line_is_an_interruption():
    tape = CallTape(RATE)
    _say(tape, _tone(0.8))
    tape.agent(_tone(0.3))                                # the agent took the pause for the end
    _say(tape, _quiet(0.2) + _tone(0.8))                  # ... but the caller went on (the same line in life)
    tape.caller(_quiet(1.0))
    _say(tape, _tone(0.5) + _quiet(0.5) + _tone(0.5))
    tape.agent(_tone(0.2))
    tape.caller(_quiet(0.5))
    gaps = reply_gaps(tape)
    assert [g.interrupted for g in gaps] == [False, False, False]
    whole = CallTape(RATE)
    whole.caller_line_starts(int(2.8 * RATE))
    whole.caller(_tone(0.8))
    whole.agent(_tone(0.3))
    whole.caller(_quiet(1.0) + _tone(1.0))
    whole.caller(_quiet(0.5))
    (gap,) = reply_gaps(whole)
    assert gap.interrupted
    assert gap.latency_ms is None                         # nothing said after the whole line


def test_the_tape_lays_wall_clock_moments_on_the_line(monkeypatch):
    import appliance.voice.audio as audio

    now = [1000.0]
    monkeypatch.setattr(audio.time, "time", lambda: now[0])
    tape = CallTape(RATE)
    for _ in range(50):                                   # a second of line, 20 ms at a time, in real time
        tape.caller(_quiet(0.02))
        now[0] += 0.02
    now[0] = 1000.5                                       # the agent writes half a second in
    tape.agent(_tone(0.1))
    assert tape.wall_time(int(0.5 * RATE)) == pytest.approx(1000.5)
    assert tape.line_sample(1000.25) == int(0.25 * RATE)
    assert tape.agent_writes == [(len(tape._caller) // 2, 1000.5)]
