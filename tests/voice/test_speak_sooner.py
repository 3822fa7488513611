"""Speaking sooner, without models: a reply's fixed opening comes from the speech cache (memory, then disk),
the rest is made after it; a slow tool gets a filler, never the same one twice in a row."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("pipecat")

from pipecat.frames.frames import TTSAudioRawFrame  # noqa: E402

from appliance.engine.types import TurnResult  # noqa: E402
from appliance.voice.conversation import EngineProcessor, TurnTiming  # noqa: E402
from appliance.voice.engine_host import EngineHost  # noqa: E402
from appliance.voice.frames import AgentSpeechFrame  # noqa: E402
from appliance.voice.speaker import PiperSpeaker  # noqa: E402
from appliance.voice.speech_cache import FILLERS, SpeechCache  # noqa: E402
from appliance.voice.tts import fixed_openings  # noqa: E402

from .timed_speech import timed  # noqa: E402

RATE = 16000


class _Voice:
    """Speaks each text as its own bytes, and notes every phrase it had to make."""

    def __init__(self, folder: Path):
        self.voice_path = folder / "voice.onnx"
        self.executor = ThreadPoolExecutor(max_workers=1)
        self.made: list[str] = []

    def speak(self, text: str, rate: int) -> bytes:
        self.made.append(text)
        return text.encode()

    def phrase(self, phrase: str, rate: int, stop: threading.Event | None = None):
        self.made.append(phrase)
        yield phrase.encode()


def _collector(kind: type, part: str):
    """A list, and a push_frame that adds to it `part` of each frame of `kind` pushed."""
    got: list = []

    async def push_frame(frame, direction=None):
        if isinstance(frame, kind):
            got.append(getattr(frame, part))

    return got, push_frame


def _spoken(speaker: PiperSpeaker, text: str) -> list[bytes]:
    audio, speaker.push_frame = _collector(TTSAudioRawFrame, "audio")
    asyncio.run(speaker._speak(AgentSpeechFrame(text=text, kind="reply", utterance_id=1)))
    return audio


def test_the_fixed_opening_of_a_reply_template_is_cached_and_played_without_synthesis(tmp_path):
    templates = {"anything_else": ["Is there anything else I can help you with today?"],
                 "confirm_slot": ["Just to confirm: {appointment}. Shall I book it?"],
                 "ask_name": ["{thanks} And your name?"]}
    openings = fixed_openings(templates.values())
    assert openings == ["Is there anything else I can help you with today?", "Just to confirm:"]

    voice = _Voice(tmp_path)
    SpeechCache(voice, tmp_path / "cache").warm(openings, RATE)
    assert voice.made == openings
    voice.made.clear()
    cache = SpeechCache(voice, tmp_path / "cache")        # a restarted appliance: read back from disk
    speaker = PiperSpeaker(voice, cache, RATE)
    audio = _spoken(speaker, "Just to confirm: a massage on Thursday the 26th at 9 am. Shall I book it?")
    assert audio[0] == b"Just to confirm:"                # the cached opening first ...
    assert voice.made == ["a massage on Thursday the 26th at 9 am.", "Shall I book it?"]   # ... only the rest made


def _with_the_opening_cached(tmp_path) -> tuple[_Voice, PiperSpeaker]:
    """A voice and a speaker whose cache holds "Just to confirm:" (the voice's record of what it made cleared)."""
    voice = _Voice(tmp_path)
    cache = SpeechCache(voice, None)
    cache.warm(["Just to confirm:"], RATE)
    voice.made.clear()
    return voice, PiperSpeaker(voice, cache, RATE)


def test_as_a_pipecat_tts_service_the_speaker_uses_the_same_cache(tmp_path):
    from pipecat.services.tts_service import TTSService

    voice, speaker = _with_the_opening_cached(tmp_path)
    assert isinstance(speaker, TTSService)

    async def spoken():
        text = "Just to confirm: a massage on Thursday the 26th at 9 am. Shall I book it?"
        return [frame.audio async for frame in speaker.run_tts(text, "context")]

    rest = ["a massage on Thursday the 26th at 9 am.", "Shall I book it?"]
    assert asyncio.run(spoken()) == [b"Just to confirm:", *(phrase.encode() for phrase in rest)]
    assert voice.made == rest                             # the cached opening was not made again


class _SlowToolEngine:
    llm_ms = None

    def turn(self, text):
        time.sleep(0.6)                                   # a tool taking longer than the filler's delay
        return TurnResult(reply="Done.", state="s", waiting_for="none")


def test_a_slow_tool_gets_a_filler_and_never_the_same_one_twice_in_a_row():
    async def run() -> list[list]:
        host = EngineHost("slow")
        engine = _SlowToolEngine()
        processor = EngineProcessor(host=host, engine=engine, filler_after_ms=300)
        said = timed(processor, line_s=0.1)
        try:
            for _ in range(4):
                timing = TurnTiming(seq=-1, kind="reply")
                await processor._ask_engine(timing, engine.turn, "book it")
                assert timing.filler
        finally:
            host.close()
        return said

    fillers = [text for _, _, text in asyncio.run(run())]
    assert len(fillers) == 4 and set(fillers) <= set(FILLERS)
    assert all(a != b for a, b in zip(fillers, fillers[1:])), fillers


def _lead_ms(pcm: bytes) -> float:
    """Milliseconds before the first 5 ms window louder than the trim's level."""
    import numpy as np

    from appliance.voice.audio import LEAD_LEVEL

    samples = np.frombuffer(pcm, np.int16).astype(np.float32)
    window = int(0.005 * RATE)
    frames = samples[: len(samples) - len(samples) % window].reshape(-1, window)
    return float(np.argmax(np.sqrt(np.mean(frames * frames, axis=1)) >= LEAD_LEVEL)) * 5


def test_a_replys_first_audio_starts_on_its_first_sound_not_on_the_voices_lead_in(runtime, tmp_path):
    from appliance.voice.audio import LEAD_KEEP_S

    text = "No worries. Which clinic suits you best?"
    made = b"".join(runtime.synthesizer.phrase("No worries.", RATE))
    assert _lead_ms(made) >= 30                            # Piper's own lead-in silence
    speaker = PiperSpeaker(runtime.synthesizer, SpeechCache(runtime.synthesizer, None), RATE)
    audio = _spoken(speaker, text)
    assert _lead_ms(audio[0]) <= LEAD_KEEP_S * 1000 + 5    # what the caller waits through: cut to a breath
    assert len(b"".join(audio)) >= len(made)               # nothing else cut


def test_trimming_keeps_quiet_audio_and_a_soft_onset_whole():
    import numpy as np

    from appliance.voice.audio import trim_leading_quiet

    quiet = bytes(3200)
    assert trim_leading_quiet(quiet, RATE) == quiet         # nothing to start on: left as it is
    onset = (np.sin(np.arange(1600) / 3) * 150).astype(np.int16).tobytes()
    pcm = bytes(1600) + onset
    trimmed = trim_leading_quiet(pcm, RATE)
    assert trimmed.endswith(onset) and len(trimmed) == len(onset) + int(0.01 * RATE) * 2


def _spoken_after_ready(speaker: PiperSpeaker, ready: str, said: str) -> list[bytes]:
    """`ready` made ready (as while the caller's quiet is waited out), then `said` spoken: its audio."""
    audio, speaker.push_frame = _collector(TTSAudioRawFrame, "audio")

    async def main():
        speaker._make_ready(ready)
        await asyncio.sleep(0.2)             # the voice makes it meanwhile
        await speaker._speak(AgentSpeechFrame(text=said, kind="reply", utterance_id=1))

    asyncio.run(main())
    return audio


def test_a_reply_made_ready_plays_its_first_phrase_without_making_it_again(tmp_path):
    voice = _Voice(tmp_path)
    speaker = PiperSpeaker(voice, SpeechCache(voice, None), RATE)
    reply = "Thanks, Tom. And your date of birth?"
    audio = _spoken_after_ready(speaker, reply, reply)
    assert audio == [b"Thanks, Tom.", b"And your date of birth?"]
    assert voice.made == ["Thanks, Tom.", "And your date of birth?"]      # each phrase made once


def test_a_reply_other_than_the_one_made_ready_is_made_whole(tmp_path):
    voice = _Voice(tmp_path)
    speaker = PiperSpeaker(voice, SpeechCache(voice, None), RATE)
    audio = _spoken_after_ready(speaker, "Thanks, Tom. And your date of birth?", "Sorry, could you say that again?")
    assert audio == [b"Sorry, could you say that again?"]
    assert speaker._ready is None                                          # the other one is let go


def test_a_reply_whose_opening_is_cached_is_not_made_ready_again(tmp_path):
    voice, speaker = _with_the_opening_cached(tmp_path)
    speaker._make_ready("Just to confirm: a massage on Thursday the 26th at 9 am. Shall I book it?")
    assert speaker._ready is None and voice.made == []


class _PreviewingEngine:
    llm_ms = None

    def __init__(self):
        self.previewed: list[str] = []

    def preview(self, text, doubtful=()):
        self.previewed.append(text)
        return f"Thanks. You said {text}."


def _made_ready(processor: EngineProcessor, frames: list, *, turn_between: bool = False) -> list[str]:
    from appliance.voice.frames import PrepareSpeechFrame

    out, processor.push_frame = _collector(PrepareSpeechFrame, "text")

    async def main():
        for frame in frames:
            task = asyncio.ensure_future(processor._prepare_reply(frame, processor._turns_in))
            if turn_between:
                processor._turns_in += 1     # the turn itself came in while the reply was worked out
            await task

    asyncio.run(main())
    return out


def test_words_heard_while_the_quiet_is_waited_out_have_their_reply_made_ready():
    from appliance.voice.frames import ProvisionalTurnFrame

    host = EngineHost("preview")
    try:
        engine = _PreviewingEngine()
        processor = EngineProcessor(host=host, engine=engine, filler_after_ms=300)
        assert _made_ready(processor, [ProvisionalTurnFrame(text="Tom Harris")]) == ["Thanks. You said Tom Harris."]
        # not once the turn itself has been taken: that reply is under way already
        assert _made_ready(processor, [ProvisionalTurnFrame(text="Tom")], turn_between=True) == []
        # nor where the language model rewords replies: its words would differ
        processor.rephraser = object()
        assert _made_ready(processor, [ProvisionalTurnFrame(text="Tom Harris")]) == []
        assert engine.previewed == ["Tom Harris", "Tom"]
    finally:
        host.close()


def _spoke_ahead(processor: EngineProcessor, words: str, *, turn_between: bool = False) -> list[str]:
    """The replies the processor starts when the listener asks it to speak ahead of `words`' hand-over."""
    from appliance.voice.frames import ProvisionalTurnFrame

    said, push = _collector(AgentSpeechFrame, "text")

    async def push_frame(frame, direction=None):
        await push(frame, direction)

    processor.push_frame = push_frame

    async def main():
        turns_in = processor._turns_in
        await processor._prepare_reply(ProvisionalTurnFrame(text=words), turns_in)
        if turn_between:
            processor._turns_in += 1     # the turn itself came in first: its reply is the engine's to say
        await processor._speak_ahead(words, turns_in)

    asyncio.run(main())
    return said


@pytest.fixture
def previewing():
    """An engine processor whose engine works a reply out ahead ("Thanks. You said <words>.")."""
    host = EngineHost("ahead")
    try:
        yield EngineProcessor(host=host, engine=_PreviewingEngine(), filler_after_ms=300)
    finally:
        host.close()


def test_a_reply_started_ahead_of_the_hand_over_is_the_one_the_turn_then_speaks(previewing):
    assert _spoke_ahead(previewing, "Tom Harris") == ["Thanks. You said Tom Harris."]
    playing = previewing._ahead.speech
    assert asyncio.run(previewing._reply_ahead("Thanks. You said Tom Harris.")) is playing   # not said twice
    assert previewing._ahead is None


def test_a_reply_started_ahead_that_is_not_the_engines_stops(previewing):
    interruptions: list = []

    async def broadcast_interruption():
        interruptions.append(True)

    previewing.broadcast_interruption = broadcast_interruption
    assert _spoke_ahead(previewing, "Tom Harris") == ["Thanks. You said Tom Harris."]
    playing = previewing._ahead.speech
    assert asyncio.run(previewing._reply_ahead("Sorry, could you say that again?")) is None
    assert interruptions == [True] and playing.cut


def test_no_reply_starts_ahead_once_the_turn_is_in_or_while_the_agent_speaks(previewing):
    assert _spoke_ahead(previewing, "Tom Harris", turn_between=True) == []
    previewing._new_speech("filler")                  # something is being said
    assert _spoke_ahead(previewing, "Tom Harris") == []
