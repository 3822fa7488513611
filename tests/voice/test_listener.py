"""The listener's turn boundaries, without models: a short word said as the agent finishes is kept."""

from __future__ import annotations

import pytest

pytest.importorskip("pipecat")

from appliance.voice.listener import HELD_GAP_S, CallerListener  # noqa: E402

RATE = 16000


def listener() -> CallerListener:
    return CallerListener(transcriber=None, rate=RATE, vad_start_secs=0.2, vad_stop_secs=0.5, barge_in_min_s=1.0)


def feed(ears: CallerListener, seconds: float, level: int) -> None:
    for _ in range(int(seconds / 0.02)):
        ears._audio(level.to_bytes(2, "little", signed=True) * int(0.02 * RATE))


def test_a_yes_over_the_agents_last_word_starts_the_callers_next_utterance():
    ears = listener()
    feed(ears, 1.0, 0)
    ears.agent_speaking = True
    ears._speech_started()                  # "Yes," as the agent says its last word
    feed(ears, 0.3, 1000)
    ears._speech_stopped()
    assert ears._utt is None                # too short to stop the agent: dropped as a sound
    ears.agent_speaking = False
    feed(ears, 0.4, 0)
    ears._speech_started()                  # "... cancel it", after the agent stopped
    utt = ears._utt
    assert utt is not None and utt.start_sample <= 1.0 * RATE
    assert any(b"\xe8\x03" in chunk for chunk in utt.chunks)   # the "Yes," audio is in the utterance


def test_a_cough_over_the_agent_long_before_the_caller_speaks_is_not_kept():
    ears = listener()
    feed(ears, 1.0, 0)
    ears.agent_speaking = True
    ears._speech_started()
    feed(ears, 0.3, 1000)
    ears._speech_stopped()
    ears.agent_speaking = False
    feed(ears, HELD_GAP_S + 2.0, 0)
    ears._speech_started()
    assert not any(b"\xe8\x03" in chunk for chunk in ears._utt.chunks)


def test_a_late_vad_start_still_keeps_the_first_word():
    ears = listener()
    feed(ears, 1.0, 0)
    feed(ears, 1.5, 900)                    # "February seventeenth" before the VAD speaks up
    ears._speech_started()
    utt = ears._utt
    assert utt.start_sample == 1.0 * RATE
    assert len(b"".join(utt.chunks)) // 2 >= 1.5 * RATE


def test_the_start_is_never_looked_for_inside_the_previous_utterance():
    ears = listener()
    feed(ears, 1.0, 900)                    # the caller's last answer
    ears._floor = int(1.0 * RATE)           # ... which ended here
    feed(ears, 0.1, 0)
    feed(ears, 0.5, 900)
    ears._speech_started()
    assert ears._utt.start_sample >= 1.0 * RATE
