"""The turn's end in Pipecat's turn-analyser form, without models: told the question, it ends a short answer at the
VAD's pause without asking Smart Turn, and asks Smart Turn about anything else."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("pipecat")

from pipecat.audio.turn.base_turn_analyzer import BaseTurnAnalyzer, EndOfTurnState  # noqa: E402

from appliance.understanding import Question  # noqa: E402
from appliance.voice.turn_analyzer import QuestionTurnAnalyzer  # noqa: E402

RATE = 16000
READ_BACK = Question("confirm", expects=frozenset({"confirmation"}))
OPENING = Question("intent", expects=frozenset({"task"}))


class _SmartTurn:
    def __init__(self, probability: float):
        self.executor = ThreadPoolExecutor(max_workers=1)
        self.value = probability
        self.asked: list[int] = []

    def probability(self, audio, rate):
        self.asked.append(len(audio))
        return self.value


def _judge(analyzer: QuestionTurnAnalyzer, question: Question | None) -> EndOfTurnState:
    analyzer.question = question
    analyzer.clear()
    analyzer.append_audio(b"\x00\x00" * 100, False)     # quiet before the words is left out
    analyzer.append_audio(b"\x10\x00" * RATE, True)
    state, _ = asyncio.run(analyzer.analyze_end_of_turn())
    return state


def test_a_short_answer_ends_at_the_pause_without_asking_smart_turn():
    unsure = _SmartTurn(0.1)
    analyzer = QuestionTurnAnalyzer(unsure, sample_rate=RATE)
    assert isinstance(analyzer, BaseTurnAnalyzer)
    assert _judge(analyzer, READ_BACK) is EndOfTurnState.COMPLETE and unsure.asked == []


def test_an_opening_request_waits_for_smart_turn_to_hear_it_finished():
    unsure, sure = _SmartTurn(0.3), _SmartTurn(0.9)
    assert _judge(QuestionTurnAnalyzer(unsure, sample_rate=RATE), OPENING) is EndOfTurnState.INCOMPLETE
    assert unsure.asked == [RATE]                       # the utterance's audio, not the quiet before it
    assert _judge(QuestionTurnAnalyzer(sure, sample_rate=RATE), OPENING) is EndOfTurnState.COMPLETE


def test_without_smart_turn_every_turn_ends_at_the_pause():
    assert _judge(QuestionTurnAnalyzer(None, sample_rate=RATE), OPENING) is EndOfTurnState.COMPLETE
