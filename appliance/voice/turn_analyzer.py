"""Whether the caller's turn is over, in Pipecat's turn-analyser form: Smart Turn v3, told what was just asked.

`QuestionTurnAnalyzer` is a Pipecat `BaseTurnAnalyzer`. With the question just asked (`question`) it knows
where a short answer is all that is wanted (`completes_sooner`: a read-back, a pick, one detail): there the
turn is complete at the VAD's pause without asking the model. Elsewhere Smart Turn judges the utterance
(`SMART_TURN_COMPLETE`). Without Smart Turn every turn is complete at the VAD's pause (which is then the
whole of `[voice] vad_stop_secs`).

The caller listener holds the utterance's audio itself (with pre-roll and reopened pauses), so it hands the
analyser the whole utterance (`clear`, then `append_audio`) before asking; the audio is taken when asked, so a
newer utterance appended while an older answer is being worked out does not change that answer. Being a
BaseTurnAnalyzer, it also serves in Pipecat's own turn handling
(`TurnAnalyzerUserTurnStopStrategy(turn_analyzer=QuestionTurnAnalyzer(smart_turn))`), which feeds it the line's
audio as it comes.
"""

from __future__ import annotations

import asyncio
import re

from pipecat.audio.turn.base_turn_analyzer import BaseTurnAnalyzer, BaseTurnParams, EndOfTurnState
from pipecat.metrics.metrics import MetricsData

from ..understanding import Question
from .audio import to_float

SMART_TURN_COMPLETE = 0.5  # Smart Turn probability from which an utterance counts as finished


class QuestionTurnAnalyzer(BaseTurnAnalyzer):
    def __init__(self, smart_turn=None, *, sample_rate: int | None = None):
        """`smart_turn`: a `turn_detection.SmartTurn` (or None: end at the VAD's pause)."""
        super().__init__(sample_rate=sample_rate)
        self.smart_turn = smart_turn
        self.question: Question | None = None
        self._audio: list[bytes] = []
        self._params = BaseTurnParams()

    @property
    def speech_triggered(self) -> bool:
        return bool(self._audio)

    @property
    def params(self) -> BaseTurnParams:
        return self._params

    def append_audio(self, buffer: bytes, is_speech: bool) -> EndOfTurnState:
        if is_speech or self._audio:   # quiet before the first speech is not the utterance's
            self._audio.append(buffer)
        return EndOfTurnState.INCOMPLETE

    def clear(self) -> None:
        self._audio = []

    def ends_at_pause(self) -> bool:
        """Whether the turn is over at the VAD's pause, without asking Smart Turn."""
        return self.smart_turn is None or completes_sooner(self.question)

    async def analyze_end_of_turn(self) -> tuple[EndOfTurnState, MetricsData | None]:
        if self.ends_at_pause():
            return EndOfTurnState.COMPLETE, None
        audio = to_float(b"".join(self._audio))
        loop = asyncio.get_running_loop()
        probability = await loop.run_in_executor(self.smart_turn.executor, self.smart_turn.probability, audio,
                                                 self.sample_rate)
        return (EndOfTurnState.COMPLETE if probability >= SMART_TURN_COMPLETE else EndOfTurnState.INCOMPLETE), None


def completes_sooner(question: Question | None) -> bool:
    """Whether a short answer is all this question wants: a yes or no, a pick, one detail (not an open request,
    a message, or an answer given in groups)."""
    return (question is not None and not question.open and not question.patience_s
            and not question.wants("message"))


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
PHONE_DIGITS = 9   # the fewest digits of a whole phone number with its area code, in the regions served
# a transcript that ends on one of these has more coming ("Yes, but", "The first one and", "Thursday at")
_MORE_COMING = re.compile(r"(?:^|[^\w'])(?:and|but|or|because|then|also|um+|uh+|er+|erm|with|at|on|in|the|a|an|to|"
                          r"of|for|if|just|actually)[^\w']*$", re.IGNORECASE)
_TRAILING = (",", "...", "-", "…")

# what, in the understanding layer's reading of the words (an Utterance), fills each fact a question is
# `answered_by` (config/flows/questions.yaml); a task or a message is never a whole short answer
_FILLS = {
    "yes": lambda u: u.has("yes"),
    "no": lambda u: u.has("no"),
    "full_name": lambda u: u.name is not None and bool(u.name.first and u.name.last),
    "first_name": lambda u: u.name is not None and bool(u.name.first),
    "last_name": lambda u: u.name is not None and bool(u.name.last),
    "a_name": lambda u: u.name is not None,
    "dob": lambda u: u.dob is not None,
    "phone": lambda u: u.phone is not None,
    "service": lambda u: bool(u.service_ids),
    "location": lambda u: u.location_id is not None,
    "practitioner": lambda u: u.practitioner_id is not None,
    "window": lambda u: u.window is not None,
    "slot": lambda u: u.slot_pick is not None,
    "booking": lambda u: bool(u.booking_picks),
    "status": lambda u: u.patient_status is not None,
}


def may_be_whole(question: Question | None) -> bool:
    """Whether a short answer can be the whole of what `question` wants: not an open request, a message or a
    spelling (spellings come in groups with pauses and only their patience tells they are done)."""
    return (question is not None and not question.open and not question.wants("message")
            and not question.wants("spelling"))


def answer_understood(question: Question, reading) -> bool:
    """Whether the understanding layer's reading of the words (`understanding.understand`'s Utterance, for this
    question) fills a fact the question is answered by: a yes or no at a read-back, a slot picked, a whole phone
    number, a date of birth with its year."""
    return any(fact in _FILLS and _FILLS[fact](reading) for fact in question.answered_by)


def answer_looks_complete(question: Question | None, text: str, reading=None) -> bool:
    """Whether `text` reads as the whole of a short answer to `question` (see `may_be_whole`): it does not end
    as words with more to come do ("Yes, but", "0412,"), and, given the understanding layer's `reading` of it,
    that reading answers the question (`answer_understood`). Without a reading: a date of birth needs its year
    and a phone number all its digits (callers say them in groups); anything else at a question that
    `completes_sooner` counts."""
    words = text.strip()
    if not may_be_whole(question) or not words or words.endswith(_TRAILING) or _MORE_COMING.search(words):
        return False
    if reading is not None:
        return answer_understood(question, reading)
    if question.wants("dob"):
        return bool(_YEAR.search(words))
    if question.wants("phone"):
        return len(re.findall(r"\d", words)) >= PHONE_DIGITS
    return completes_sooner(question)
