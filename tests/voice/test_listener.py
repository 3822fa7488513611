"""The listener's turn boundaries, without models: a short word said as the agent finishes is kept."""

from __future__ import annotations

import threading

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


class _HearsOnlyLongClips:
    """A transcriber that hears words only in a clip of at least `words_from_s` (the start of a name is not words)."""

    def __init__(self, words_from_s: float):
        from concurrent.futures import ThreadPoolExecutor

        self.words_from_s = words_from_s
        self.executor = ThreadPoolExecutor(max_workers=1)
        self.clips: list[float] = []
        self.release = threading.Event()   # the first check is still at work until the test lets it finish

    def transcribe(self, pcm, rate, *, hotwords=None):
        from appliance.voice.stt import Transcript

        seconds = len(pcm) / 2 / rate
        self.clips.append(seconds)
        self.release.wait(5)
        return Transcript("North Sydney" if seconds >= self.words_from_s else "", 1.0, seconds)


def test_speech_over_the_agent_is_judged_whole_not_by_a_check_on_its_first_half_second():
    import asyncio

    async def scenario():
        ears = CallerListener(transcriber=_HearsOnlyLongClips(1.6), rate=RATE, vad_start_secs=0.2,
                              vad_stop_secs=0.5, barge_in_min_s=0.5)
        ears.create_task = lambda coro, *a, **k: asyncio.get_running_loop().create_task(coro)
        interrupted = []

        async def interruption():
            interrupted.append(True)

        ears.broadcast_interruption = interruption
        ears._decide_end = lambda utt: None     # the turn's end is another test's business
        feed(ears, 1.0, 0)
        ears.agent_speaking = True
        ears._speech_started()                  # "North Sydney," over the end of the agent's long question
        feed(ears, 0.5, 1000)
        utt = ears._utt
        utt.check_task = check = asyncio.get_running_loop().create_task(ears._check_barge_in(utt))
        while not ears.transcriber.clips:       # the check has taken the first 0.5 s and is transcribing it
            await asyncio.sleep(0.01)
        feed(ears, 0.6, 1000)
        feed(ears, 0.4, 0)
        ears._speech_stopped()
        ears.transcriber.release.set()
        await check
        while utt.check_task is not None and not utt.check_task.done():
            await utt.check_task
        assert ears._utt is utt and utt.confirmed and interrupted
        assert max(ears.transcriber.clips) >= 2.0     # judged on the whole of what was said

    asyncio.run(scenario())



class _QuickTranscriber:
    """Hears "words" at once, as Whisper in its short window nearly does."""

    def __init__(self):
        from concurrent.futures import ThreadPoolExecutor

        self.executor = ThreadPoolExecutor(max_workers=1)
        self.clips: list[float] = []

    def transcribe(self, pcm, rate, *, hotwords=None):
        from appliance.voice.stt import Transcript

        self.clips.append(len(pcm) / 2 / rate)
        return Transcript(f"words for {len(pcm) / 2 / rate:.1f} s", 1.0, len(pcm) / 2 / rate)


def _quick_listener():
    import asyncio

    from appliance.voice.frames import CallerTurnFrame

    ears = CallerListener(transcriber=_QuickTranscriber(), rate=RATE, vad_start_secs=0.2, vad_stop_secs=0.5)
    ears.create_task = lambda coro, *a, **k: asyncio.get_running_loop().create_task(coro)
    turns: list = []

    async def push_frame(frame, direction=None):
        if isinstance(frame, CallerTurnFrame):
            turns.append(frame)

    ears.push_frame = push_frame
    return ears, turns


def test_a_pause_mid_sentence_does_not_hand_half_of_it_to_the_engine():
    """"Oh sorry, | I think I dialled the wrong number": quick STT had the first half answered on its own."""
    import asyncio

    async def scenario():
        ears, turns = _quick_listener()
        feed(ears, 0.5, 0)
        ears._speech_started()
        feed(ears, 0.6, 1000)                   # "Oh sorry,"
        feed(ears, 0.5, 0)                      # the comma's pause: the VAD calls it the end (no Smart Turn)
        ears._speech_stopped()
        await asyncio.sleep(0.1)                # Whisper has the first half by now
        feed(ears, 0.2, 1000)                   # "I think I dialled ..." begins, the VAD not yet sure
        await asyncio.sleep(0.1)
        assert turns == []                      # held: the caller went on
        ears._speech_started()                  # the VAD's start, 0.2 s into the rest: the utterance reopens
        feed(ears, 1.5, 1000)
        feed(ears, 0.5, 0)
        ears._speech_stopped()
        feed(ears, 0.6, 0)
        for _ in range(100):
            if turns:
                break
            await asyncio.sleep(0.02)
        assert len(turns) == 1 and turns[0].audio_s >= 0.6 + 0.5 + 0.2 + 1.5   # one turn: both halves and the pause

    asyncio.run(scenario())


def test_a_finished_turn_is_handed_over_once_the_line_has_been_quiet_long_enough():
    import asyncio

    from appliance.voice.listener import HANDOVER_QUIET_S

    async def scenario():
        ears, turns = _quick_listener()
        feed(ears, 0.5, 0)
        ears._speech_started()
        feed(ears, 1.0, 1000)
        feed(ears, 0.5, 0)
        ears._speech_stopped()                  # the words ended 0.5 s ago
        await asyncio.sleep(0.2)
        assert turns == []                      # not yet HANDOVER_QUIET_S of quiet
        feed(ears, HANDOVER_QUIET_S - 0.5 + 0.04, 0)
        for _ in range(50):
            if turns:
                break
            await asyncio.sleep(0.02)
        assert len(turns) == 1

    asyncio.run(scenario())


class _Hears:
    """A transcriber that hears `text` in whatever it is given (at once, on its own thread), as sure as `no_speech`
    says that it was speech."""

    def __init__(self, text: str, no_speech: float = 0.1):
        from concurrent.futures import ThreadPoolExecutor

        self.text = text
        self.no_speech = no_speech
        self.executor = ThreadPoolExecutor(max_workers=1)
        self.clips: list[float] = []

    def transcribe(self, pcm, rate, *, hotwords=None, **asked):
        from appliance.voice.stt import Transcript

        self.clips.append(len(pcm) / 2 / rate)
        return Transcript(self.text, 1.0, len(pcm) / 2 / rate, self.no_speech)


def _ears_hearing(text: str, no_speech: float = 0.1, **settings):
    """A listener whose transcriber hears `text`; returns it, the turns it hands over and its barge-ins."""
    import asyncio

    from appliance.voice.frames import CallerTurnFrame

    ears = CallerListener(transcriber=_Hears(text, no_speech), rate=RATE, vad_start_secs=0.2, vad_stop_secs=0.5,
                          **{"barge_in_min_s": 0.5, **settings})
    ears.create_task = lambda coro, *a, **k: asyncio.get_running_loop().create_task(coro)
    turns: list = []
    interruptions: list = []

    async def push_frame(frame, direction=None):
        if isinstance(frame, CallerTurnFrame):
            turns.append(frame)

    async def interruption():
        interruptions.append(True)

    ears.push_frame = push_frame
    ears.broadcast_interruption = interruption
    return ears, turns, interruptions


async def _settle(ears, turns, *, want: int = 1) -> None:
    """Feed quiet until `want` turns are handed over (or a second of line time has passed)."""
    import asyncio

    for _ in range(50):
        if len(turns) >= want:
            return
        feed(ears, 0.02, 0)
        await asyncio.sleep(0.02)


def _short_sound_over_the_agent(ears, seconds: float = 0.3) -> None:
    feed(ears, 1.0, 0)
    ears.agent_speaking = True
    feed(ears, 0.2, 1000)
    ears._speech_started()                  # "Yep," as the agent says its last words
    feed(ears, seconds - 0.2, 1000)
    feed(ears, 0.5, 0)
    ears._speech_stopped()                  # short: it does not stop the agent


def test_a_short_answer_over_the_agents_last_words_is_the_callers_turn():
    import asyncio

    async def scenario():
        ears, turns, interruptions = _ears_hearing("Yep.")
        _short_sound_over_the_agent(ears)
        assert ears._utt is None and turns == []
        ears._agent_stopped()                   # the agent's last word ends just after the caller's "Yep"
        await _settle(ears, turns)
        assert [t.text for t in turns] == ["Yep."] and not turns[0].barged_in and not interruptions
        assert turns[0].audio_s >= 0.3

    asyncio.run(scenario())


def test_a_short_sound_in_the_middle_of_the_agents_sentence_is_not_a_turn():
    import asyncio

    from appliance.voice.listener import LAST_WORDS_S

    async def scenario():
        ears, turns, _ = _ears_hearing("Mm-hmm.")
        now = [1000.0]
        ears.clock = lambda: now[0]
        _short_sound_over_the_agent(ears)
        now[0] += LAST_WORDS_S + 1.0            # the agent talks on for a while
        ears._agent_stopped()
        await _settle(ears, turns)
        assert turns == []

    asyncio.run(scenario())


def test_a_backchannel_over_the_agent_does_not_stop_it_but_more_words_do():
    import asyncio

    async def scenario():
        ears, turns, interruptions = _ears_hearing("Mm-hmm.")
        feed(ears, 1.0, 0)
        ears.agent_speaking = True
        feed(ears, 0.2, 1000)
        ears._speech_started()
        feed(ears, 0.5, 1000)                   # past barge_in_min_s: Whisper is asked, and hears one word
        feed(ears, 0.5, 0)
        ears._speech_stopped()
        for _ in range(50):
            await asyncio.sleep(0.01)
        assert not interruptions and ears._utt is None and turns == []

        ears.transcriber.text = "Sorry, can we make it Thursday instead"
        feed(ears, 1.5, 0)
        feed(ears, 0.2, 1000)
        ears._speech_started()
        feed(ears, 1.0, 1000)                   # the caller goes on: a barge-in, as ever
        for _ in range(50):
            await asyncio.sleep(0.01)
        assert interruptions and ears._utt is not None and ears._utt.confirmed

    asyncio.run(scenario())


@pytest.mark.parametrize("heard, seconds, backchannel", [
    ("Mm-hmm.", 0.6, True),
    ("Yeah. Yeah.", 0.7, True),
    ("Emma.", 0.6, True),                      # what Whisper writes for a hum is still one word
    ("No, Thursday.", 0.7, False),
    ("Yeah", 1.2, False),                      # a long one is more than a "go on"
])
def test_a_backchannel_is_one_word_said_briefly(heard, seconds, backchannel):
    from appliance.voice.listener import is_backchannel

    assert is_backchannel(heard, seconds) is backchannel


def _asked(short_answers: bool):
    """A read-back (the shipped confirmation question, with its repairs), or a question no short answer settles."""
    from appliance.engine.flow import SHIPPED_FLOWS, load_flow
    from appliance.understanding import Question

    return load_flow(SHIPPED_FLOWS / "clinic.yaml").questions["confirm"] if short_answers else Question("asked")


@pytest.mark.parametrize("heard, no_speech, short_answers, level, handed_over", [
    ("", 0.1, True, 1000, ("", True)),          # "uh-huh", written as nothing, at a read-back
    ("", 0.1, False, 1000, ("", False)),        # where no short answer settles anything: waiting goes on
    ("", 0.1, True, 100, ("", False)),          # too faint to be speech
    ("Yeah.", 0.5, True, 1000, ("", True)),     # a throat-clear Whisper wrote as "Yeah.", doubting it was speech
    ("Uh-huh.", 0.5, True, 1000, ("Uh-huh.", False)),   # a two-note yes, written as one, however doubted
    ("Aha.", 0.5, True, 1000, ("Aha.", False)),
    ("Emama.", 0.5, True, 1000, ("Emama.", False)),     # a two-note "mm-hmm", as the question's repairs read it
    ("Inama.", 0.5, True, 1000, ("Inama.", False)),
    ("Emma Watson.", 0.5, True, 1000, ("", True)),      # a name is no two-note yes
    ("Uh-uh.", 0.5, True, 1000, ("", True)),     # the two-note no is no exception
    ("Yeah.", 0.1, True, 1000, ("Yeah.", False)),
    ("Yeah.", 0.5, False, 1000, ("Yeah.", False)),
    ("Yes, but can we make it Thursday", 0.5, True, 1000, ("Yes, but can we make it Thursday", False)),
])
def test_what_a_short_answer_cannot_be_told_from_goes_to_the_engine_as_not_heard(heard, no_speech, short_answers,
                                                                                  level, handed_over):
    import asyncio

    async def scenario():
        ears, turns, _ = _ears_hearing(heard, no_speech)
        ears.question = _asked(short_answers)
        feed(ears, 0.5, 0)
        feed(ears, 0.2, level)
        ears._speech_started()
        feed(ears, 0.2, level)
        feed(ears, 0.5, 0)
        ears._speech_stopped()
        await _settle(ears, turns)
        assert [(t.text, t.unheard) for t in turns] == [handed_over]

    asyncio.run(scenario())


@pytest.mark.parametrize("heard, provisional", [
    ("Tom Harris.", ["Tom Harris."]),
    ("", []),                               # nothing to work a reply out from
])
def test_words_are_passed_on_ahead_while_the_quiet_after_them_is_waited_out(heard, provisional):
    import asyncio

    from appliance.voice.frames import CallerTurnFrame, ProvisionalTurnFrame

    async def scenario():
        ears, turns, _ = _ears_hearing(heard)
        order: list = []
        handed_over = ears.push_frame

        async def push_frame(frame, direction=None):
            order.append(frame)
            await handed_over(frame, direction)

        ears.push_frame = push_frame
        feed(ears, 0.5, 0)
        feed(ears, 0.2, 1000)
        ears._speech_started()
        feed(ears, 0.4, 1000)
        feed(ears, 0.25, 0)
        ears._speech_stopped()
        await _settle(ears, turns)
        ahead = [frame.text for frame in order if isinstance(frame, ProvisionalTurnFrame)]
        assert ahead == provisional
        if provisional:   # ... before the turn itself
            kinds = [type(frame) for frame in order if isinstance(frame, (ProvisionalTurnFrame, CallerTurnFrame))]
            assert kinds == [ProvisionalTurnFrame, CallerTurnFrame]

    asyncio.run(scenario())
