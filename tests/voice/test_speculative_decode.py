"""Nothing left to decode when the turn ends, with the real Whisper: the decode started at the pause after the
caller's last word is the turn's transcript, with exactly the words of a decode of the whole turn; sound after
that pause makes the turn decode again."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

pytest.importorskip("pipecat")

from appliance.voice.audio import telephone, to_pcm  # noqa: E402
from appliance.voice.frames import CallerTurnFrame  # noqa: E402
from appliance.voice.listener import HANDOVER_QUIET_S, ONSET_LEVEL, CallerListener  # noqa: E402

RATE = 16000
CHUNK = int(0.02 * RATE)
LINES = ["yes please, cancel it", "the fourth of March, nineteen eighty five",
         "Hi, I'd like to book a follow-up appointment please"]


def _phone_line(runtime, line: str) -> bytes:
    """`line` spoken at phone quality, silent after its last sound: the speculative decode, taken at the pause,
    then has the turn's own audio. (Sound under the listener's ONSET_LEVEL after the pause, such as a word's
    fading, is silence to the speculative decode and may move a comma: "appointment please." against
    "appointment, please.")"""
    audio, rate = runtime.synthesizer.speak_float(line)
    pcm = to_pcm(telephone(audio * 0.8, rate, RATE))
    samples = np.frombuffer(pcm, np.int16).astype(np.float32)
    loud = [i for i in range(0, len(samples), CHUNK) if np.sqrt(np.mean(samples[i:i + CHUNK] ** 2)) >= ONSET_LEVEL]
    return pcm[: (loud[-1] + CHUNK) * 2]


def _listener(runtime) -> tuple[CallerListener, list[CallerTurnFrame]]:
    # no Smart Turn: the turn ends at the VAD's stop, vad_stop_secs after the last word
    ears = CallerListener(transcriber=runtime.transcriber, rate=RATE, vad_start_secs=0.2, vad_stop_secs=0.5)
    ears.create_task = lambda coro, *a, **k: asyncio.get_running_loop().create_task(coro)
    turns: list[CallerTurnFrame] = []

    async def push_frame(frame, direction=None):
        if isinstance(frame, CallerTurnFrame):
            turns.append(frame)

    ears.push_frame = push_frame
    return ears, turns


async def _feed(ears: CallerListener, pcm: bytes) -> None:
    """Line audio in 20 ms chunks, faster than real time (the listener counts quiet in samples)."""
    for i in range(0, len(pcm), CHUNK * 2):
        ears._audio(pcm[i:i + CHUNK * 2])
        await asyncio.sleep(0)


async def _turn(ears: CallerListener, speech: list[bytes]) -> bytes:
    """Speak `speech` (clips with quiet between them, as the VAD hears one utterance), let the VAD stop and
    the line stay quiet until it is handed over: the audio the listener held for the turn."""
    await _feed(ears, bytes(int(0.3 * RATE) * 2))
    ears._speech_started()
    for clip in speech:
        await _feed(ears, clip)
    await _feed(ears, bytes(int(ears.vad_pause_secs * RATE) * 2))
    ears._speech_stopped()                               # the turn ends here (no Smart Turn)
    assert ears._pending is not None
    whole = b"".join(ears._pending.chunks)
    await _feed(ears, bytes(int(HANDOVER_QUIET_S * RATE) * 2))
    return whole


def test_the_turns_transcript_is_the_speculative_decode_and_has_the_words_of_a_full_decode(runtime):
    async def scenario():
        for line in LINES:
            ears, turns = _listener(runtime)
            whole = await _turn(ears, [_phone_line(runtime, line)])
            for _ in range(500):
                if turns:
                    break
                await asyncio.sleep(0.02)
            assert len(turns) == 1, line
            turn = turns[0]
            assert turn.stt_speculative, line          # started at the pause, before the turn was over
            full = runtime.transcriber.transcribe(whole, RATE, hotwords=ears.prompt_words).text
            assert turn.text == full, (line, turn.text, full)
            assert turn.text

    asyncio.run(scenario())


def test_speech_after_the_pause_drops_the_speculative_decode_for_one_of_the_whole_turn(runtime):
    async def scenario():
        ears, turns = _listener(runtime)
        first, rest = _phone_line(runtime, "the fourth of March"), _phone_line(runtime, "nineteen eighty five")
        # the pause before the year is long enough for a speculative decode of "the fourth of March"
        whole = await _turn(ears, [first, bytes(int(0.3 * RATE) * 2), rest])
        for _ in range(500):
            if turns:
                break
            await asyncio.sleep(0.02)
        assert len(turns) == 1
        full = runtime.transcriber.transcribe(whole, RATE, hotwords=ears.prompt_words).text
        assert turns[0].text == full
        assert "85" in full or "eighty" in full.lower(), full   # the words after the pause are in it

    asyncio.run(scenario())
