"""Ending the turn sooner, without models: the utterance is decoded at a pause in its sound, and a whole short
answer is handed over after a shorter quiet; an open request still waits, and a caller who goes on is one turn."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("pipecat")

from appliance.understanding.questions import Question  # noqa: E402
from appliance.voice.listener import (HANDOVER_QUIET_S, QUICK_HANDOVER_QUIET_S, CallerListener,  # noqa: E402
                                      answer_looks_complete, completes_sooner)
from appliance.voice.stt import Transcript  # noqa: E402

RATE = 16000
READ_BACK = Question("confirm", expects=frozenset({"confirmation"}))
OPENING = Question("intent", expects=frozenset({"task"}))
DOB = Question("dob", expects=frozenset({"dob"}), patience_s=1.0)
PHONE = Question("phone", expects=frozenset({"phone"}), patience_s=1.0)
SPELLING = Question("spell", expects=frozenset({"name", "spelling"}), patience_s=1.0)


class _Transcriber:
    """Says `text` for any clip, and counts the clips it was given."""

    def __init__(self, text: str):
        from concurrent.futures import ThreadPoolExecutor

        self.text = text
        self.executor = ThreadPoolExecutor(max_workers=1)
        self.clips: list[float] = []

    def transcribe(self, pcm, rate, *, hotwords=None, **scoring):
        self.clips.append(len(pcm) / 2 / rate)
        return Transcript(self.text, 1.0, len(pcm) / 2 / rate)


class _SmartTurn:
    """Smart Turn unsure whether the caller has finished (it tells pauses from ends poorly at phone quality)."""

    def __init__(self):
        from concurrent.futures import ThreadPoolExecutor

        self.executor = ThreadPoolExecutor(max_workers=1)

    def probability(self, audio, rate):
        return 0.3


def _ears(text: str, question: Question | None):
    from appliance.voice.frames import CallerTurnFrame

    ears = CallerListener(transcriber=_Transcriber(text), rate=RATE, vad_start_secs=0.2, vad_stop_secs=0.5,
                          smart_turn=_SmartTurn())
    ears.create_task = lambda coro, *a, **k: asyncio.get_running_loop().create_task(coro)
    ears.question = question
    turns: list = []

    async def push_frame(frame, direction=None):
        if isinstance(frame, CallerTurnFrame):
            turns.append(frame)

    ears.push_frame = push_frame
    return ears, turns


async def _feed(ears: CallerListener, seconds: float, level: int) -> None:
    for _ in range(round(seconds / 0.02)):
        ears._audio(level.to_bytes(2, "little", signed=True) * int(0.02 * RATE))
        await asyncio.sleep(0)


async def _quiet_until_handed_over(ears, turns, limit_s: float = 1.5) -> float:
    """Feed quiet until a turn is handed over; the seconds of quiet it took (after what was fed before)."""
    fed = 0.0
    while not turns and fed < limit_s:
        await _feed(ears, 0.02, 0)
        await asyncio.sleep(0.005)
        fed += 0.02
    return fed


async def _answer(ears, turns, speech_s: float = 0.6) -> float:
    """An answer followed by quiet, the VAD's stop coming 0.2 s into it: the quiet it took to be handed over."""
    await _feed(ears, 0.3, 0)
    ears._speech_started()
    await _feed(ears, speech_s, 1000)
    await _feed(ears, 0.2, 0)
    ears._speech_stopped()
    return 0.2 + await _quiet_until_handed_over(ears, turns)


def test_a_whole_yes_at_a_read_back_is_handed_over_sooner_than_an_open_request():
    async def scenario():
        ears, turns = _ears("Yes, that's right.", READ_BACK)
        quick = await _answer(ears, turns)
        assert len(turns) == 1 and turns[0].text == "Yes, that's right."
        assert quick <= QUICK_HANDOVER_QUIET_S + 0.1
        ears, turns = _ears("I'd like to book a massage.", OPENING)
        slow = await _answer(ears, turns)
        assert len(turns) == 1 and slow >= HANDOVER_QUIET_S - 0.25   # the VAD's end is 0.2 s before its stop
        assert slow > quick

    asyncio.run(scenario())


def test_the_utterance_is_decoded_at_its_pause_once_and_that_transcript_is_the_turns():
    async def scenario():
        ears, turns = _ears("Yes please.", READ_BACK)
        await _answer(ears, turns)
        assert len(turns) == 1
        assert len(ears.transcriber.clips) == 1    # nothing decoded again at the turn's end: the tail was quiet

    asyncio.run(scenario())


def test_a_caller_who_goes_on_after_a_short_pause_at_a_read_back_is_one_turn():
    """"Yes, | cancel it": the pause after "yes" is shorter than the quick hand-over's quiet."""
    async def scenario():
        ears, turns = _ears("Yes, cancel it.", READ_BACK)
        await _feed(ears, 0.3, 0)
        ears._speech_started()
        await _feed(ears, 0.3, 1000)                  # "Yes,"
        await _feed(ears, 0.2, 0)
        ears._speech_stopped()                        # the VAD calls the pause the end
        await asyncio.sleep(0.05)
        await _feed(ears, 0.1, 0)                     # 0.3 s of quiet in all
        assert turns == []
        await _feed(ears, 0.1, 1000)                  # "cancel it" begins
        ears._speech_started()
        await _feed(ears, 0.5, 1000)
        await _feed(ears, 0.2, 0)
        ears._speech_stopped()
        await _quiet_until_handed_over(ears, turns)
        assert len(turns) == 1 and turns[0].audio_s >= 0.3 + 0.3 + 0.6   # both parts and the pause between
        assert len(ears.transcriber.clips) == 2       # the first part's transcript was not used for the whole

    asyncio.run(scenario())


def test_a_date_of_birth_with_its_year_ends_before_its_patience():
    async def scenario():
        ears, turns = _ears("The 4th of March, 1985.", DOB)
        quiet = await _answer(ears, turns, speech_s=1.5)
        assert len(turns) == 1 and quiet < DOB.patience_s
        ears, turns = _ears("The 4th of March,", DOB)   # the year still to come: its patience holds
        quiet = await _answer(ears, turns, speech_s=1.0)
        assert len(turns) == 1 and quiet >= DOB.patience_s - 0.25

    asyncio.run(scenario())


@pytest.mark.parametrize("question, text, complete", [
    (READ_BACK, "Yes, that's right.", True),
    (READ_BACK, "Yes,", False),                        # Whisper heard more coming
    (READ_BACK, "", False),
    (OPENING, "I'd like to book a massage.", False),   # an open request may run on: the usual quiet
    (DOB, "February 17th, 1983.", True),
    (DOB, "February 17th.", False),
    (PHONE, "0412 555 023.", True),
    (PHONE, "0412 555.", False),
    (SPELLING, "M A C.", False),                       # spellings wait out their patience
    (None, "Yes.", False),
])
def test_what_counts_as_a_whole_answer(question, text, complete):
    assert answer_looks_complete(question, text) is complete


def test_open_requests_and_messages_do_not_complete_sooner():
    assert completes_sooner(READ_BACK)
    assert not completes_sooner(OPENING)
    assert not completes_sooner(Question("message", expects=frozenset({"message"})))
    assert not completes_sooner(DOB)


# ------------------------------------------------------------ whole answers, as the understanding layer reads them

def _understood_ears(text: str, waiting_for: str):
    """Ears at one of the declared questions, with the understanding layer reading the early transcript."""
    from tests.understanding.hearing import QUESTIONS, SLOTS, hear

    ears, turns = _ears(text, QUESTIONS[waiting_for])
    ears.understand = lambda words: hear(words, waiting_for, slots=SLOTS)
    return ears, turns


@pytest.mark.parametrize("waiting_for, text", [
    ("confirm", "Yes, that's right."),
    ("slot_choice", "The first one."),
])
def test_a_whole_short_answer_the_understanding_reads_is_handed_over_sooner(waiting_for, text):
    async def scenario():
        ears, turns = _understood_ears(text, waiting_for)
        quick = await _answer(ears, turns)
        assert len(turns) == 1 and turns[0].text == text
        assert quick <= QUICK_HANDOVER_QUIET_S + 0.1
        ears, turns = _ears("I'd like to book a massage.", OPENING)
        assert await _answer(ears, turns) > quick + 0.05

    asyncio.run(scenario())


@pytest.mark.parametrize("waiting_for, text", [
    ("confirm", "Yes, but"),              # a yes with more to come
    ("slot_choice", "Um."),               # no slot picked yet
    ("confirm", "Sorry?"),                # neither a yes nor a no
])
def test_an_answer_with_more_to_come_waits_the_usual_quiet(waiting_for, text):
    async def scenario():
        ears, turns = _understood_ears(text, waiting_for)
        quiet = await _answer(ears, turns)
        assert len(turns) == 1 and quiet >= HANDOVER_QUIET_S - 0.05

    asyncio.run(scenario())


def test_a_first_digit_group_of_a_phone_number_waits_its_patience_and_the_whole_number_does_not():
    async def scenario():
        ears, turns = _understood_ears("0412.", "phone")
        quiet = await _answer(ears, turns, speech_s=0.8)
        assert len(turns) == 1 and quiet >= PHONE.patience_s - 0.25
        ears, turns = _understood_ears("0412 555 023.", "phone")
        quiet = await _answer(ears, turns, speech_s=2.0)
        assert len(turns) == 1 and quiet < PHONE.patience_s - 0.25

    asyncio.run(scenario())


def test_a_reading_that_never_comes_does_not_hold_the_turn():
    async def scenario():
        ears, turns = _understood_ears("Yes.", "confirm")

        def stuck(words):   # the engine's thread busy past the wait
            import time
            time.sleep(0.5)
            raise AssertionError("not waited for")

        ears.understand = stuck
        await _answer(ears, turns)
        assert len(turns) == 1 and turns[0].text == "Yes."   # handed over all the same, never lost

    asyncio.run(scenario())


@pytest.mark.parametrize("text, complete", [
    ("Yes, but", False), ("Yes and", False), ("The first one, and", False), ("Yes, actually", False),
    ("Yes.", True), ("I think so.", True),
])
def test_words_with_more_to_come_are_no_whole_answer(text, complete):
    assert answer_looks_complete(READ_BACK, text) is complete


# ------------------------------------------------------------ the reply started ahead of the hand-over

AHEAD_S = 0.3


class _SureSmartTurn(_SmartTurn):
    def probability(self, audio, rate):
        return 0.9


def _ahead_ears(text: str, question: Question | None):
    """Ears that start a reply after AHEAD_S of quiet; what they push, and the interruptions they broadcast."""
    from appliance.voice.frames import CallerTurnFrame, SpeakAheadFrame

    ears, turns = _ears(text, question)
    ears.turn_analyzer.smart_turn = _SureSmartTurn()   # the turn ends at the VAD's pause
    ears.speak_ahead_s = AHEAD_S
    pushed: list = []
    interruptions: list = []

    async def push_frame(frame, direction=None):
        if isinstance(frame, (CallerTurnFrame, SpeakAheadFrame)):
            pushed.append(frame)
        if isinstance(frame, CallerTurnFrame):
            turns.append(frame)

    async def broadcast_interruption():
        interruptions.append(ears._samples)

    ears.push_frame = push_frame
    ears.broadcast_interruption = broadcast_interruption
    return ears, turns, pushed, interruptions


async def _quiet_until(ears, pushed, kind, limit_s: float = 1.5) -> float:
    """Feed quiet until a frame of `kind` is pushed; the seconds of quiet it took."""
    fed = 0.0
    while not any(isinstance(f, kind) for f in pushed) and fed < limit_s:
        await _feed(ears, 0.02, 0)
        await asyncio.sleep(0.005)
        fed += 0.02
    return fed


async def _words_then_the_vads_stop(ears) -> None:
    """0.8 s of words after a moment of quiet, the VAD's stop coming 0.2 s after them."""
    await _feed(ears, 0.3, 0)
    ears._speech_started()
    await _feed(ears, 0.8, 1000)
    await _feed(ears, 0.2, 0)
    ears._speech_stopped()


def test_a_reply_starts_ahead_of_the_hand_over_once_the_quiet_is_long_enough_and_the_turn_follows():
    from appliance.voice.frames import CallerTurnFrame, SpeakAheadFrame

    async def scenario():
        ears, turns, pushed, interruptions = _ahead_ears("I'd like to book a massage.", OPENING)
        await _words_then_the_vads_stop(ears)
        ahead = 0.2 + await _quiet_until(ears, pushed, SpeakAheadFrame)
        handed = ahead + await _quiet_until(ears, pushed, CallerTurnFrame)
        assert [type(f) for f in pushed] == [SpeakAheadFrame, CallerTurnFrame]
        assert pushed[0].text == turns[0].text == "I'd like to book a massage."
        assert AHEAD_S - 0.05 <= ahead < HANDOVER_QUIET_S - 0.1 < handed
        assert interruptions == [] and ears.taken_back == 0
        assert not ears.agent_speaking   # the transport has not said the reply's audio is playing

    asyncio.run(scenario())


def test_a_caller_who_goes_on_after_the_reply_started_ahead_has_it_taken_back_and_is_one_turn():
    """"I'd like to book a massage, | on Friday if you can": a pause longer than the reply's start, shorter than
    the hand-over's quiet."""
    from appliance.voice.frames import SpeakAheadFrame

    async def scenario():
        ears, turns, pushed, interruptions = _ahead_ears("I'd like to book a massage on Friday.", OPENING)
        await _words_then_the_vads_stop(ears)
        await _quiet_until(ears, pushed, SpeakAheadFrame)
        assert turns == [] and interruptions == []
        await _feed(ears, 0.1, 1000)                 # the caller goes on: the reply stops at once
        await asyncio.sleep(0.05)
        assert len(interruptions) == 1 and ears.taken_back == 1
        ears._speech_started()                       # the VAD's start, later: the same utterance, reopened
        await _feed(ears, 0.6, 1000)
        await _feed(ears, 0.2, 0)
        ears._speech_stopped()
        await _quiet_until_handed_over(ears, turns)
        assert len(turns) == 1 and turns[0].audio_s >= 0.8 + 0.3 + 0.7   # both parts and the pause between
        assert sum(isinstance(f, SpeakAheadFrame) for f in pushed) <= 2 and len(interruptions) <= 2

    asyncio.run(scenario())


def test_without_speak_ahead_the_reply_waits_for_the_hand_over():
    from appliance.voice.frames import SpeakAheadFrame

    async def scenario():
        ears, turns, pushed, _ = _ahead_ears("I'd like to book a massage.", OPENING)
        ears.speak_ahead_s = 0.0
        await _answer(ears, turns)
        assert len(turns) == 1 and not any(isinstance(f, SpeakAheadFrame) for f in pushed)

    asyncio.run(scenario())
