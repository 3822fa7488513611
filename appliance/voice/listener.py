"""The agent's ears, a Pipecat STT service: from VAD events and audio to finished, transcribed caller turns.

Sits after Pipecat's VADProcessor. It keeps the audio of the utterance under
way (with a little audio from before the VAD fired, so the first syllable is
not lost) and decides when the caller's turn is over, asking its turn analyser
(`turn_analyzer.QuestionTurnAnalyzer`, a Pipecat BaseTurnAnalyzer) at the VAD's pause:

- with Smart Turn on, the VAD reports a short pause (`SMART_TURN_PAUSE_S`)
  and Smart Turn judges whether the utterance sounds finished: if so the turn
  ends there; if not, it ends once the quiet reaches `[voice] vad_stop_secs`
  (or earlier speech resumes the same utterance);
- with Smart Turn off, the turn ends after `vad_stop_secs` of quiet;
- while the question just asked has a patience (`patience_s` in
  config/flows/questions.yaml: a phone number, a date of birth, a spelling,
  which callers say in groups with pauses), the turn ends only after that
  much quiet.

Quiet is counted in line audio, not wall time, so a test may feed audio
faster than real time and get the same decisions.

Transcribing while the caller speaks: the line's own level shows a pause
`EARLY_PAUSE_S` after the last sound, well before the VAD reports one; the
utterance so far is decoded then, speculatively, on the box's STT lane
(`scheduler.py`: behind every call's ended turns, so a caller's many pauses do
not queue other calls' answers; a newer pause drops an older decode that has
not started). When the turn ends with
nothing louder than the line's quiet since (the tail is silence), that
transcript is the turn's (moved up the queue if it has not run yet): nothing
is decoded again. It decodes the turn's audio up to the last sound, then
silence where the turn has the line's own quiet (below ONSET_LEVEL): on a
silent line the words are exactly those of a decode of the whole turn. Sound after it starts a
new one at the next pause.

Ending sooner where the answer is short (`completes_sooner`): at a read-back,
a pick or a single detail (not an open request, a message or a spelling), the
turn ends at the VAD's pause, and once its transcript is a whole answer it is
handed over after only `QUICK_HANDOVER_QUIET_S` of quiet (a date of birth or a
phone number, which otherwise wait out their patience, ends at once). Whole:
the understanding layer's reading of the words (the engine's `understand`)
fills what the question is answered by (a yes or no, a slot, a date of birth
with its year, a phone number with all its digits), and the words do not end
as words with more to come do ("Yes, but", "0412,"): `answer_looks_complete`.
Anything else waits `HANDOVER_QUIET_S`. Both are counted from the words' last
sound on the line, not from the VAD's end of speech, which lags it. The quick
quiet cannot be much shorter: callers pause 0.3-0.4 s at a comma ("Yes, | but
can we make it Tuesday?"), and Smart Turn scores the "Yes," before it as
finished as a lone "Yes." (0.84-0.98 against 0.74-0.99 on Piper's voice).

Speaking ahead of the hand-over (`speak_ahead_s`, `[voice] speak_ahead_s`): once
the line has been quiet that long after words whose reply is being made ready
(the ProvisionalTurnFrame), a SpeakAheadFrame starts that reply playing, while
the hand-over still waits out its quiet. The engine has changed nothing yet
(the reply was worked out on a copy of the call), so if the caller's sound
comes again the listener takes the reply back at once (an interruption, the
agent cut off after a syllable or two, as people do when they both start) and
the utterance goes on as one turn; if not, the turn is handed over and the
reply the engine gives, the same words, is the one already playing. Until the
hand-over the reply's audio is not the agent speaking over the caller: the
caller going on reopens their utterance, as in any pause.

Barge-in: while the agent is speaking, caller speech stops the agent only
when it is real words: once the utterance has lasted `barge_in_min_s`, it is
transcribed and, if Whisper hears words (not a cough) that are more than a
backchannel (one word in under `BACKCHANNEL_MAX_S`: "mm-hmm", "yeah"), an
interruption goes out and the utterance carries on as the caller's next
turn. Speech over the agent that ends unconfirmed is let go, unless the agent
falls quiet within `LAST_WORDS_S` of its start: then it answered what the
agent was finishing ("Yep" over "... shall I book that?") and is the caller's
turn, like anything said just after.

Each finished turn is transcribed whole and sent on as a CallerTurnFrame. If
the caller speaks again before that transcript is handed over (a pause
mid-sentence taken for the end), the utterance is reopened and sent later as
one turn, so the engine never answers half a sentence it was about to get
whole. A transcript is handed over only once the line has been quiet
`HANDOVER_QUIET_S` after the words (sound starting again meanwhile holds it
for the VAD to reopen the utterance): with Whisper as quick as it is now,
"Oh sorry, | I think I dialled the wrong number" otherwise reached the engine
as two turns over a real-time line. While it waits, the words go ahead as a
ProvisionalTurnFrame, so the reply can be worked out and made ready meanwhile. If
STT fails, the turn still goes on, marked `stt_failed`, so the engine asks
again: the call never goes quiet. So does speech Whisper makes no words of at
a question that short answers settle ("uh-huh" comes back empty), marked
`unheard`: the engine asks again instead of waiting out a silence, and an
unclear sound is never taken for a yes.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, AsyncGenerator, Callable

import numpy as np

from pipecat.audio.turn.base_turn_analyzer import EndOfTurnState
from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    BotStoppedSpeakingFrame,
    Frame,
    InputAudioRawFrame,
    TranscriptionFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.settings import STTSettings
from pipecat.services.stt_service import STTService
from pipecat.utils.time import time_now_iso8601

from ..understanding import Question
from ..understanding.normalise import TWO_NOTE_YES, normalise
from .answer_scoring import Expected, expected_for
from .frames import CallerTurnFrame, ProvisionalTurnFrame, SpeakAheadFrame
from .scheduler import BoxScheduler, Job, Priority, box_scheduler
from .stt import Transcript, WhisperTranscriber
from .turn_analyzer import (QuestionTurnAnalyzer, answer_looks_complete, completes_sooner,  # noqa: F401 (tests' names)
                            may_be_whole)
from .turn_detection import SmartTurn

log = logging.getLogger("appliance.voice")

SMART_TURN_PAUSE_S = 0.2   # the pause at which Smart Turn is asked (with Smart Turn on)
PRE_ROLL_S = 0.6           # audio kept from before the VAD's start: a short "Hi," or "yes," before a pause is otherwise lost
HISTORY_S = 8.0           # line audio kept: pre-roll, and the gap when a finished utterance is reopened
# a short sound dropped over the agent's last words ("Yes," as the agent finishes) starts the caller's
# next utterance when that follows within this much quiet, after the agent has stopped
HELD_GAP_S = 1.0
# The VAD's start can reach us late (its analysis lags the audio when the box is busy, or when audio comes
# faster than real time), and a soft first word ("February") may not trip it at all: the utterance's start
# is found again in the line audio, going back through sound louder than ONSET_LEVEL (int16 RMS) with
# gaps of at most ONSET_GAP_S, never more than ONSET_BACK_S and never into the previous utterance.
ONSET_LEVEL = 300
ONSET_GAP_S = 0.3
ONSET_BACK_S = 3.0
MAX_BARGE_CHECKS = 3
# a pause inside a caller's sentence ends within this (the simulated caller's longest: 0.52 s); a turn is handed
# to the engine only after this much quiet following its words, so that the rest of the sentence can join it
HANDOVER_QUIET_S = 0.6
HANDOVER_SOUND_S = 0.04   # sound this long after the words (past their fading) means the caller went on
WORD_FADE_S = 0.15        # how long the VAD's end of speech may still carry the last word's fading sound
HANDOVER_MAX_HOLD_S = 1.5 # wall time; a noisy line never holds a turn longer than this
# a pause in the line's sound this long is when the utterance so far is decoded, before the VAD reports a pause
# (its 0.2 s, plus its analysis lag); shorter gaps are mostly a word's own stops ("book a")
EARLY_PAUSE_S = 0.12
VAD_LAG_S = 0.1           # how long after its pause the VAD's stop typically reaches the listener
# quiet after the last sound before a whole short answer is handed over: longer than the comma pauses callers
# leave before more words (0.12-0.45 s in the simulated callers). At 0.35 s, "Yes, | that's right" at a read-back
# was sometimes taken as two turns over SIP: the yes booked, and the repeat answered "anything else?"
QUICK_HANDOVER_QUIET_S = 0.5
# A sound dropped over the agent that began at most this long before the agent fell quiet answered what the agent
# was finishing ("Yep" over "... shall I book that?"): it becomes the caller's turn. One that began earlier, with
# more of the agent's sentence still to come, was a backchannel ("mm-hmm") and is let go. Wall time: the agent's
# speech is timed by the clock, not by line samples.
LAST_WORDS_S = 0.8
# Over the agent, an utterance shorter than this that Whisper makes one word of ("Mm-hmm.", "Yeah.", or a
# name it hears in a hum) is a backchannel, not a barge-in; more words, or a longer utterance, stop the agent
BACKCHANNEL_MAX_S = 1.0
# Speech in which Whisper finds no words goes to the engine as "not heard" (so it asks again rather than waiting in
# silence) at a question that short answers settle ("uh-huh" is written as nothing), when it holds this much sound
UNHEARD_MIN_S = 0.15
# Whisper base writes a hesitant "uh", a throat-clear or a breathy "huh" as "Yeah." or "Okay." (45 of 306 such
# sounds, in ten voices at three levels, each said alone), and at a read-back that is a yes. Its own doubt that the
# clip held speech was at least this for 39 of those 45, for 24 of 254 short answers it heard as a yes and for none
# of 57 it heard as a no: a short answer (SHORT_ANSWER_WORDS or fewer) it doubts that much is "not heard" there.
DOUBTED_SPEECH = 0.4
SHORT_ANSWER_WORDS = 3
# ... but not a two-note yes: Whisper writes "Uh-huh.", "Aha." or "Emama." only for a two-note sound (none of 240
# hesitations, "ah", "oh", "er", "huh", "um", in six voices, nor 128 "uh-uh" and "huh?" in four, nor 300 "um", "hmm",
# "mm", "mm-mm", "uh-uh" in six), while its doubt on real ones ran 0.17-0.51. Its spellings are the question's own
# whole-answer repairs (config/flows/questions.yaml), and the understanding layer's reading of what they repair to.
# the most the hand-over waits for the understanding layer's reading of a transcript (the engine's thread reads it);
# without it the transcript's words alone decide whether the answer is whole
READING_WAIT_S = 0.2


@dataclass
class _Decode:
    """A transcription queued on the box's STT lane (`scheduler`)."""
    job: Job
    result: asyncio.Future            # the Transcript, on the call's loop
    speculative: bool                 # started before the turn was over (at a pause)


@dataclass
class _Utterance:
    start_sample: int
    chunks: list[bytes] = field(default_factory=list)
    speech_start: float = 0.0
    speech_end: float = 0.0
    end_sample: int = 0
    waiting_end: bool = False
    end_deadline: int | None = None
    generation: int = 0               # bumped when speech resumes, so stale decisions are ignored
    overlapped: bool = False          # the agent spoke during it
    confirmed: bool = False           # real words over the agent: barge-in done
    checks: int = 0
    check_task: asyncio.Task | None = None
    draft: _Decode | None = None      # STT started at the pause, used if the caller says no more
    draft_generation: int = -1
    next_sample: int = 0              # line sample just after its last chunk
    finished_as: int = -1             # the generation that was sent off to be transcribed
    loud_until: int = 0               # line sample just after its last chunk louder than ONSET_LEVEL
    early: _Decode | None = None      # STT of the utterance up to a pause in its sound (EARLY_PAUSE_S)
    early_covers: int = -1            # the loud_until that transcript covers
    speculated: list[Job] = field(default_factory=list)   # its speculative decodes, for the log


class CallerListener(STTService):
    """The appliance's transcriber as a Pipecat STT service: Whisper with the question's prompt, decoding while the
    caller speaks, and the turn's end (`turn_analyzer`, a `QuestionTurnAnalyzer`) decided here, where the audio
    is. A finished turn goes on as a CallerTurnFrame; `run_stt` transcribes a whole segment as any Pipecat STT
    service does (TranscriptionFrame), for a pipeline that segments the audio itself."""

    def __init__(self, *, transcriber: WhisperTranscriber, rate: int, vad_start_secs: float, vad_stop_secs: float,
                 smart_turn: SmartTurn | None = None, barge_in_min_s: float = 0.5, hotwords: str = "",
                 call_id: str = "-", on_barge_in: Callable[[float], None] | None = None,
                 turn_analyzer: QuestionTurnAnalyzer | None = None, answer_scoring: bool = True,
                 scheduler: BoxScheduler | None = None, speak_ahead_s: float = 0.0, **kwargs):
        # the caller's audio stops here: nothing after the ears needs it
        model = getattr(transcriber, "model_dir", None)
        super().__init__(audio_passthrough=False, sample_rate=rate, **kwargs,
                         settings=STTSettings(model=str(model) if model else None, language="en"))
        self.transcriber = transcriber
        self.scheduler = scheduler or box_scheduler()   # Whisper's lane, shared with every call on the box
        self.rate = rate
        self.vad_start_secs = vad_start_secs
        self.vad_stop_secs = vad_stop_secs
        self.turn_analyzer = turn_analyzer or QuestionTurnAnalyzer(smart_turn, sample_rate=rate)
        self.turn_analyzer.set_sample_rate(rate)
        self.barge_in_min_s = barge_in_min_s
        # quiet after the words at which the reply worked out for them starts playing, before the turn is handed
        # over (0: only once it is); see the module
        self.speak_ahead_s = speak_ahead_s
        self.hotwords = hotwords
        self.turn_hotwords = ""    # what the next answer is likely to hold (set by the EngineProcessor)
        # the engine's likely answers to the question just asked, each option's phrases (ditto)
        self.expected: tuple[tuple[str, ...], ...] = ()
        self.answer_scoring = answer_scoring  # score them against the audio where Whisper's words miss
        self.understand: Callable[[str], Any] | None = None   # words -> Utterance, for the question just asked
        self.call_id = call_id
        self.on_barge_in = on_barge_in
        self.accepting = True
        self.agent_speaking = False
        self._bot_playing = False                 # the line is carrying the agent's audio (the transport's word)
        self._ahead: _Utterance | None = None     # whose reply is playing ahead of its hand-over
        self.clock: Callable[[], float] = time.time   # wall time (a test may stand in for it)
        self.stt_failures = 0
        self.taken_back = 0   # replies started ahead of a hand-over and stopped: the caller went on
        self._samples = 0
        self._history: deque[tuple[int, float, bytes]] = deque()
        self._utt: _Utterance | None = None
        self._pending: _Utterance | None = None   # finished, being transcribed, not yet handed over
        self._turns: asyncio.Task | None = None   # the chain of turns being transcribed, in order
        self._held: tuple[int, int] | None = None # (first sample, end sample) of a short sound dropped over the agent
        self._floor = 0                           # no utterance starts before this sample (the last one's end)

    @property
    def question(self) -> Question | None:
        """The question just asked (set by the EngineProcessor): its prompt, patience and how soon it is answered."""
        return self.turn_analyzer.question

    @question.setter
    def question(self, question: Question | None) -> None:
        self.turn_analyzer.question = question

    @property
    def smart_turn(self) -> SmartTurn | None:
        return self.turn_analyzer.smart_turn

    @property
    def prompt_words(self) -> str:
        # alone: behind the clinic's long list of names they no longer steer Whisper ("First day evening")
        return self.turn_hotwords or self.hotwords

    @property
    def vad_pause_secs(self) -> float:
        """The quiet after which the VAD reports a stop."""
        return min(SMART_TURN_PAUSE_S, self.vad_stop_secs) if self.smart_turn is not None else self.vad_stop_secs

    # ------------------------------------------------------------ frames

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        # the line's audio, the agent's speaking and the VAD's events are this service's to read before they go on
        if isinstance(frame, BotStartedSpeakingFrame):
            self._bot_playing = True
            if self._ahead is None:   # a reply playing ahead is the caller's turn's, until it is handed over
                self._agent_started()
        elif isinstance(frame, BotStoppedSpeakingFrame):
            self._bot_playing = False
            if self._ahead is None:
                self._agent_stopped()
        elif isinstance(frame, VADUserStartedSpeakingFrame):
            self._speech_started()
        elif isinstance(frame, VADUserStoppedSpeakingFrame):
            self._speech_stopped()
        await super().process_frame(frame, direction)

    async def process_audio_frame(self, frame: InputAudioRawFrame, direction: FrameDirection):
        if not self._muted:
            self._audio(frame.audio)

    async def run_stt(self, audio: bytes) -> AsyncGenerator[Frame | None, None]:
        """A whole segment transcribed with the question's prompt (Pipecat's STT service contract)."""
        heard: Transcript = await self._decode(audio, Priority.TURN_ENDED).result
        if heard.has_words:
            yield TranscriptionFrame(text=heard.text, user_id=self._user_id, timestamp=time_now_iso8601(),
                                     finalized=True)

    def _agent_started(self) -> None:
        self.agent_speaking = True
        log.debug("call %s: agent speaking (line %.2f s)", self.call_id, self._samples / self.rate)
        if self._utt is not None and not self._utt.waiting_end:
            self._utt.overlapped = True

    def _agent_stopped(self) -> None:
        self.agent_speaking = False
        log.debug("call %s: agent quiet (line %.2f s)", self.call_id, self._samples / self.rate)
        self._answer_held()

    def _audio(self, pcm: bytes) -> None:
        now = self.clock()
        self._history.append((self._samples, now, pcm))
        self._samples += len(pcm) // 2
        while self._history and self._history[0][0] < self._samples - HISTORY_S * self.rate:
            self._history.popleft()
        utt = self._utt
        if utt is None:
            return
        utt.chunks.append(pcm)
        utt.next_sample = self._samples
        if self.agent_speaking and not utt.waiting_end:
            utt.overlapped = True
        self._track_sound(utt, pcm)
        if utt.waiting_end and utt.end_deadline is not None and self._samples >= utt.end_deadline:
            self._finish(utt)
            return
        if utt.overlapped and not utt.confirmed and self.agent_speaking and not utt.waiting_end:
            spoken = (self._samples - utt.start_sample) / self.rate
            due = self.barge_in_min_s * (utt.checks + 1)
            if spoken >= due and utt.checks < MAX_BARGE_CHECKS and (utt.check_task is None or utt.check_task.done()):
                utt.checks += 1
                utt.check_task = self.create_task(self._check_barge_in(utt))

    def _track_sound(self, utt: _Utterance, pcm: bytes) -> None:
        """Note the utterance's last sound; at a pause after it, decode what was said so far (see the module)."""
        if _rms(pcm) >= ONSET_LEVEL:
            utt.loud_until = self._samples
            return
        if (self.transcriber is None or utt.overlapped or not utt.loud_until or utt.early_covers == utt.loud_until
                or self._samples - utt.loud_until < EARLY_PAUSE_S * self.rate or not self.accepting):
            return
        if utt.early is not None and not utt.early.result.done():
            # sound since made it useless: dropped if it has not started (another call's ended turn goes first
            # anyway: speculative decodes wait behind those on the scheduler)
            self.scheduler.cancel(utt.early.job, only=Priority.SPECULATIVE)
        # the clip is given the quiet it would have had at the VAD's pause, so it is decoded as it would be then
        # (Whisper's prompt is left out of clips under stt.HOTWORDS_MIN_S: a short answer is heard the same way)
        quiet_to_come = utt.loud_until + int((self.vad_pause_secs + VAD_LAG_S) * self.rate) - self._samples
        utt.early = self._decode(b"".join(utt.chunks) + bytes(max(0, quiet_to_come) * 2), Priority.SPECULATIVE)
        utt.early_covers = utt.loud_until
        utt.speculated.append(utt.early.job)

    def _early_transcript(self, utt: _Utterance) -> _Decode | None:
        """The early transcript, when no sound has come since the pause it was started at."""
        return utt.early if utt.early is not None and utt.early_covers == utt.loud_until else None

    def _moment(self, sample: int) -> float:
        """Wall time at which line sample `sample` arrived."""
        best = None
        for first, at, pcm in self._history:
            if first <= sample:
                best = at + (sample - first) / self.rate
            else:
                break
        return best if best is not None else self.clock()

    # ------------------------------------------------------------ turn boundaries

    def _speech_started(self) -> None:
        if not self.accepting:
            return
        utt = self._utt
        if utt is not None:
            if utt.waiting_end:  # the caller went on: same utterance
                utt.waiting_end = False
                utt.end_deadline = None
                utt.generation += 1
            return
        pending = self._pending
        if pending is not None and pending.finished_as >= 0 and not self.agent_speaking:
            # the caller went on before their words were handed over: one turn, not two
            self._pending = None
            pending.chunks.extend(pcm for first, _, pcm in self._history if first >= pending.next_sample)
            pending.next_sample = self._samples
            pending.waiting_end = False
            pending.end_deadline = None
            pending.generation += 1
            pending.finished_as = -1
            pending.loud_until = self._samples   # sound again: a transcript from before it no longer covers it
            self._utt = pending
            return
        start = self._onset(max(0, self._samples - int(self.vad_start_secs * self.rate)))
        keep_from = start - int(PRE_ROLL_S * self.rate)
        held, self._held = self._held, None
        joins_held = held is not None and not self.agent_speaking and start - held[1] <= HELD_GAP_S * self.rate
        if joins_held:
            start, keep_from = held[0], min(keep_from, held[0] - int(PRE_ROLL_S * self.rate))
        utt = _Utterance(start_sample=start, speech_start=self._moment(start),
                         overlapped=self.agent_speaking, next_sample=self._samples)
        utt.chunks = self._line_since(keep_from)
        utt.loud_until = self._last_sound_end(start)
        self._utt = utt
        log.debug("call %s: caller speech from %.2f s (line %.2f s)%s%s", self.call_id, start / self.rate,
                  self._samples / self.rate, " over the agent" if self.agent_speaking else "",
                  " (joining the sound held before it)" if joins_held else "")

    def _answer_held(self) -> None:
        """The agent has just fallen quiet: a sound dropped over its last words (LAST_WORDS_S) is the caller's turn."""
        held = self._held
        if held is None or self._utt is not None or not self.accepting:
            return
        if self.clock() - self._moment(held[0]) > LAST_WORDS_S:
            return
        self._held = None
        start, end = held
        utt = _Utterance(start_sample=start, speech_start=self._moment(start), speech_end=self._moment(end),
                         end_sample=end, waiting_end=True, overlapped=True, next_sample=self._samples)
        utt.chunks = self._line_since(start - int(PRE_ROLL_S * self.rate))
        self._utt = utt
        log.debug("call %s: the %.2f s sound over the agent's last words is the caller's turn", self.call_id,
                  (end - start) / self.rate)
        self._decide_end(utt)

    def _last_sound_end(self, since: int) -> int:
        """The line sample just after the last chunk louder than ONSET_LEVEL from `since` on (0: none)."""
        for first, _, pcm in reversed(self._history):
            if first + len(pcm) // 2 <= since:
                break
            if _rms(pcm) >= ONSET_LEVEL:
                return first + len(pcm) // 2
        return 0

    def _line_since(self, sample: int) -> list[bytes]:
        """The line's audio from `sample` (the chunk holding it included) up to now."""
        return [pcm for first, _, pcm in self._history if first + len(pcm) // 2 > sample]

    def _onset(self, sample: int) -> int:
        """Where the sound around `sample` began (see ONSET_LEVEL)."""
        floor = max(self._floor, sample - int(ONSET_BACK_S * self.rate))
        gap_limit = int(ONSET_GAP_S * self.rate)
        onset, quiet = sample, 0
        for first, _, pcm in reversed(self._history):
            if first >= sample:
                continue
            if first < floor:
                break
            if _rms(pcm) >= ONSET_LEVEL:
                onset, quiet = first, 0
            else:
                quiet += len(pcm) // 2
                if quiet > gap_limit:
                    break
        return onset

    def _speech_stopped(self) -> None:
        utt = self._utt
        if utt is None or utt.waiting_end:
            return
        utt.waiting_end = True
        utt.end_sample = max(utt.start_sample, self._samples - int(self.vad_pause_secs * self.rate))
        utt.speech_end = self._moment(utt.end_sample)
        log.debug("call %s: caller quiet after %.2f s of speech%s", self.call_id,
                  (utt.end_sample - utt.start_sample) / self.rate, " (agent speaking)" if self.agent_speaking else "")
        if utt.overlapped and not utt.confirmed and self.agent_speaking:
            spoken = (utt.end_sample - utt.start_sample) / self.rate
            if spoken < self.barge_in_min_s:
                self._held = (utt.start_sample, utt.end_sample)
                self._drop(utt, "short sound over the agent")
                return
            if utt.check_task is None or utt.check_task.done():
                utt.check_task = self.create_task(self._check_barge_in(utt))
            return  # the check decides: real words go on as a turn, anything else is dropped
        self._decide_end(utt)

    def _decide_end(self, utt: _Utterance) -> None:
        patience = self.question.patience_s if self.question is not None else None
        if patience:   # answers said in groups with pauses: the turn ends only after this much quiet
            utt.end_deadline = utt.end_sample + int(max(patience, self.vad_stop_secs) * self.rate)
            if self._samples >= utt.end_deadline:
                self._finish(utt)
            elif self._early_transcript(utt) is not None:   # ... unless what was said is already the whole answer
                self.create_task(self._finish_if_complete(utt, utt.generation))
            return
        if self.turn_analyzer.ends_at_pause():
            self._finish(utt)   # the hand-over's quiet (see _transcribe_turn) keeps a sentence whole
            return
        utt.end_deadline = utt.end_sample + int(self.vad_stop_secs * self.rate)
        if self._samples >= utt.end_deadline:
            self._finish(utt)
            return
        # transcribe what was said so far while Smart Turn decides: if the caller says no more, the turn
        # is ready sooner (STT runs alongside the decision and the rest of the quiet, not after them)
        utt.draft = self._early_transcript(utt) or self._decode(b"".join(utt.chunks), Priority.SPECULATIVE)
        utt.draft_generation = utt.generation
        self.create_task(self._ask_smart_turn(utt, utt.generation))

    async def _finish_if_complete(self, utt: _Utterance, generation: int) -> None:
        """At a question with patience: end the turn now if the early transcript is already a whole answer."""
        early = self._early_transcript(utt)
        try:
            heard: Transcript = await early.result
        except (Exception, asyncio.CancelledError):
            return
        reading = await self._reading(heard)
        if (self._utt is utt and utt.waiting_end and utt.generation == generation
                and self._early_transcript(utt) is early and answer_looks_complete(self.question, heard.text, reading)):
            self._finish(utt)

    async def _reading(self, heard: Transcript):
        """The understanding layer's reading of the words, for the question just asked (an Utterance), where a
        short answer may be the whole of it; None when there is none to be had in READING_WAIT_S."""
        if self.understand is None or not heard.text or not may_be_whole(self.question):
            return None
        try:
            return await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(None, self.understand, heard.text),
                                          READING_WAIT_S)
        except Exception as exc:   # a slow or failing engine thread: the words alone decide
            log.debug("call %s: no reading of the transcript (%s)", self.call_id, type(exc).__name__)
            return None

    async def _ask_smart_turn(self, utt: _Utterance, generation: int) -> None:
        analyzer = self.turn_analyzer
        analyzer.clear()
        analyzer.append_audio(b"".join(utt.chunks), True)
        try:
            state, _ = await analyzer.analyze_end_of_turn()
        except Exception as exc:
            log.warning("call %s: smart turn failed (%s); waiting for the quiet instead", self.call_id,
                        type(exc).__name__)
            return
        if self._utt is utt and utt.waiting_end and utt.generation == generation and state is EndOfTurnState.COMPLETE:
            self._finish(utt)

    async def _check_barge_in(self, utt: _Utterance) -> None:
        pcm = b"".join(utt.chunks)
        checked_to = self._samples
        spoken = ((utt.end_sample if utt.waiting_end else checked_to) - utt.start_sample) / self.rate
        try:
            decode = self._decode(pcm, Priority.BARGE_IN, scored=False)
            heard: Transcript = await decode.result
        except Exception as exc:
            log.warning("call %s: STT failed while checking a barge-in (%s)", self.call_id, type(exc).__name__)
            heard = Transcript("", 0.0, 0.0)
        if self._utt is not utt:
            return
        backchannel = heard.has_words and is_backchannel(heard.text, spoken)
        log.debug("call %s: barge-in check on %.2f s: %s (%.0f ms, waited %.0f)", self.call_id, spoken,
                  "a backchannel" if backchannel else "words" if heard.has_words else "no words", heard.ms,
                  decode.job.wait_ms or 0)
        if heard.has_words and not backchannel and not utt.confirmed:
            utt.confirmed = True
            log.info("call %s: barge-in after %.2f s of caller speech", self.call_id,
                     (self._samples - utt.start_sample) / self.rate)
            if self.on_barge_in is not None:
                self.on_barge_in(time.time())
            await self.broadcast_interruption()
        if utt.waiting_end:
            if utt.confirmed or not self.agent_speaking:
                self._decide_end(utt)
            elif utt.end_sample > checked_to:
                # the check heard only the start ("Second" of "Second Street, please"): judge the whole of it
                utt.check_task = self.create_task(self._check_barge_in(utt))
            else:   # kept in case the agent is finishing: then it was the caller's answer
                self._held = (utt.start_sample, utt.end_sample)
                self._drop(utt, "a backchannel over the agent" if backchannel else "no words over the agent")

    def _drop(self, utt: _Utterance, why: str) -> None:
        log.debug("call %s: ignored caller sound (%s)", self.call_id, why)
        self._floor = max(self._floor, utt.end_sample or self._samples)
        if self._utt is utt:
            self._utt = None

    # ------------------------------------------------------------ transcription

    def _finish(self, utt: _Utterance) -> None:
        if self._utt is not utt:
            return
        self._utt = None
        self._floor = max(self._floor, utt.end_sample or self._samples)
        if not self.accepting:
            return
        turn_end = time.time()
        pcm = b"".join(utt.chunks)
        draft = utt.draft if utt.draft is not None and utt.draft_generation == utt.generation else None
        heard = self._early_transcript(utt) or draft or self._decode(pcm, Priority.TURN_ENDED)
        self.scheduler.promote(heard.job, Priority.TURN_ENDED)   # the caller now waits for it
        utt.finished_as = utt.generation
        self._pending = utt
        previous = self._turns
        self._turns = self.create_task(self._transcribe_turn(previous, utt, pcm, turn_end, heard, utt.generation))

    def _decode(self, pcm: bytes, priority: Priority, *, scored: bool = True) -> _Decode:
        """`pcm` transcribed with the question's prompt (`scored`: and its expected answers scored against the
        audio), queued on the box's STT lane as `priority`."""
        transcriber, rate, hotwords = self.transcriber, self.rate, self.prompt_words
        question = self.question
        expected = expected_for(question, self.expected) if scored and self.answer_scoring else Expected()
        scoring = {"expected": expected, "question": question, "understand": self.understand} if expected else {}
        if scored and question is not None and question.name_part is not None:
            scoring["doubt"] = True   # which words of a name the decoder was unsure of
        job = self.scheduler.submit("stt", lambda: transcriber.transcribe(pcm, rate, hotwords=hotwords, **scoring),
                                    priority=priority, size=len(pcm) / 2 / rate, label=f"call {self.call_id}")
        result = job.wrap()
        result.add_done_callback(_swallow)
        return _Decode(job, result, speculative=priority is Priority.SPECULATIVE)

    async def _transcribe_turn(self, previous: asyncio.Task | None, utt: _Utterance, pcm: bytes,
                               turn_end: float, decode: _Decode, generation: int) -> None:
        if previous is not None and not previous.done():
            try:
                await previous
            except Exception:
                pass
        failed: BaseException | None = None
        try:
            heard = await decode.result
        except (Exception, asyncio.CancelledError) as exc:   # cancelled: only a speculative decode, never this one
            failed = exc
            heard = Transcript("", (time.time() - turn_end) * 1000, len(pcm) / 2 / self.rate)
        if not self.accepting or utt.finished_as != generation:
            return  # the caller went on: this utterance will be sent again, whole
        quick = failed is None and answer_looks_complete(self.question, heard.text, await self._reading(heard))
        provisional = (failed is None and heard.has_words and not self._not_heard(utt, heard)
                       and self._holding(utt, quick))
        if provisional:
            # the reply can be worked out and its first phrase made while the quiet is waited out
            await self.push_frame(ProvisionalTurnFrame(text=heard.text, doubtful=heard.doubtful))
        await self._hold_for_more(utt, generation, quick=quick, ahead=heard.text if provisional else None)
        if self._ahead is utt and (not self.accepting or utt.finished_as != generation):
            await self._take_back_ahead(utt, "the caller went on")
        if not self.accepting or utt.finished_as != generation:
            return
        if failed is not None:
            self.stt_failures += 1
            log.error("call %s: STT failed on a %.1f s utterance (%s); asking the caller again", self.call_id,
                      len(pcm) / 2 / self.rate, type(failed).__name__)
        if self._pending is utt:
            self._pending = None
        utt.finished_as = -2  # handed over: it can no longer be reopened
        unheard = failed is None and self._not_heard(utt, heard)
        job = decode.job
        log.debug("call %s: its decode (%s) queued %+.0f ms from the turn's end, waited %.0f ms, ran %.0f ms; "
                  "%d speculative decodes, %d of them run", self.call_id,
                  "speculative" if decode.speculative else "at the end", (job.submitted - turn_end) * 1000,
                  job.wait_ms or 0, heard.ms, len(utt.speculated), sum(j.started is not None for j in utt.speculated))
        log.debug("call %s: turn of %.2f s handed over (%d words%s)", self.call_id, len(pcm) / 2 / self.rate,
                  len(heard.text.split()), ", not heard" if unheard else "")
        if self._ahead is utt:   # its reply is playing: from now on it is the agent speaking
            self._ahead = None
            if self._bot_playing:
                self._agent_started()
        await self.push_frame(CallerTurnFrame(
            text="" if unheard else heard.text, speech_start=utt.speech_start, speech_end=utt.speech_end,
            turn_end=turn_end, heard_at=time.time(), stt_ms=heard.ms, audio_s=heard.audio_s,
            stt_failed=failed is not None, barged_in=utt.confirmed, unheard=unheard,
            written=None if unheard else heard.written, doubtful=() if unheard else heard.doubtful,
            decoded_at=decode.job.finished_at or turn_end, stt_wait_ms=decode.job.wait_ms or 0.0,
            stt_speculative=decode.speculative))

    def _not_heard(self, utt: _Utterance, heard: Transcript) -> bool:
        """Where a short answer settles the question: speech Whisper made no words of, or a short answer it
        doubts was speech at all (DOUBTED_SPEECH). The engine asks again; an unclear sound is never a yes."""
        if self.question is None or not self.question.short_answers:
            return False
        if heard.has_words:
            return (len(heard.text.split()) <= SHORT_ANSWER_WORDS and heard.no_speech >= DOUBTED_SPEECH
                    and not self._two_note_yes(heard.text))
        return self._sounded(utt)

    def _two_note_yes(self, text: str) -> bool:
        """Whether `text` is a two-note yes once the question's whole-answer repairs have undone how Whisper
        writes one ("Emama." is "mm hmm" at a read-back)."""
        return normalise(self.question.repair(text.strip(), None, where="whole_answer")).text == TWO_NOTE_YES

    def _sounded(self, utt: _Utterance) -> bool:
        """Whether the utterance holds UNHEARD_MIN_S of sound (louder than ONSET_LEVEL)."""
        loud = sum(len(pcm) // 2 for pcm in utt.chunks if _rms(pcm) >= ONSET_LEVEL)
        return loud >= UNHEARD_MIN_S * self.rate


    def _quiet_window(self, utt: _Utterance, quick: bool) -> tuple[int, int, int]:
        """The line samples from which no sound may come, and until which, before `utt` is handed over; and the
        sample the quiet is counted from."""
        quiet_from = utt.end_sample + int(WORD_FADE_S * self.rate)
        counted_from, quiet_s = utt.end_sample, HANDOVER_QUIET_S
        if utt.loud_until:
            # counted from the words' last sound on the line, not from the VAD's end of speech, which comes later
            # by the VAD's lag (VAD_LAG_S); never from much before the VAD's end (a soft ending under ONSET_LEVEL)
            quiet_s = QUICK_HANDOVER_QUIET_S if quick else HANDOVER_QUIET_S
            quiet_from = utt.loud_until
            counted_from = max(utt.loud_until, utt.end_sample - int(VAD_LAG_S * self.rate))
        return quiet_from, counted_from + int(quiet_s * self.rate), counted_from

    def _holding(self, utt: _Utterance, quick: bool) -> bool:
        """Whether the hand-over of `utt` will still wait for quiet (there is time to make the reply ready)."""
        return self._samples < self._quiet_window(utt, quick)[1]

    async def _hold_for_more(self, utt: _Utterance, generation: int, *, quick: bool = False,
                             ahead: str | None = None) -> None:
        """Return once the line has been quiet HANDOVER_QUIET_S after the utterance's last sound (`quick`:
        QUICK_HANDOVER_QUIET_S; without a sound tracked, HANDOVER_QUIET_S after the VAD's end), or the caller
        has gone on (the VAD reopens it), or HANDOVER_MAX_HOLD_S has passed. With the words `ahead` (their reply
        is being made ready), the reply starts playing once the line has been quiet `speak_ahead_s`, and is taken
        back the moment the caller's sound comes again."""
        quiet_from, quiet_until, counted_from = self._quiet_window(utt, quick)
        ahead_from = counted_from + int(self.speak_ahead_s * self.rate)
        give_up = time.monotonic() + HANDOVER_MAX_HOLD_S
        while utt.finished_as == generation and self.accepting and time.monotonic() < give_up:
            sound = self._sound_since(quiet_from)
            if self._ahead is utt and sound:
                await self._take_back_ahead(utt, "caller sound again")
            elif (ahead is not None and self.speak_ahead_s and self._ahead is None and not self.agent_speaking
                  and ahead_from <= self._samples < quiet_until and not sound):
                self._ahead = utt
                text, ahead = ahead, None   # once: taken back, the reply waits for the hand-over
                log.debug("call %s: the reply starts ahead of the hand-over", self.call_id)
                await self.push_frame(SpeakAheadFrame(text=text))
            if self._samples >= quiet_until and not sound:
                return
            await asyncio.sleep(0.02)

    async def _take_back_ahead(self, utt: _Utterance, why: str) -> None:
        """The reply playing ahead of `utt`'s hand-over stops: the caller went on, so it answered half a sentence."""
        if self._ahead is not utt:
            return
        self._ahead = None
        self.taken_back += 1
        log.info("call %s: the reply started ahead is taken back (%s)", self.call_id, why)
        await self.broadcast_interruption()

    def _sound_since(self, sample: int) -> bool:
        """Whether the line has carried HANDOVER_SOUND_S of sound in a row since `sample`."""
        needed = int(HANDOVER_SOUND_S * self.rate)
        run = 0
        for first, _, pcm in self._history:
            if first < sample:
                continue
            run = run + len(pcm) // 2 if _rms(pcm) >= ONSET_LEVEL else 0
            if run >= needed:
                return True
        return False


def is_backchannel(text: str, seconds: float) -> bool:
    """Whether words heard over the agent are only a listener's "go on": one word, said in under BACKCHANNEL_MAX_S."""
    return seconds < BACKCHANNEL_MAX_S and len(set(_WORD.findall(text.lower()))) <= 1


_WORD = re.compile(r"[a-z0-9']+(?:-[a-z0-9']+)*")   # "mm-hmm" is one word


def _swallow(future: asyncio.Future) -> None:
    """A transcription nobody awaited (a stale draft) must not log 'exception never retrieved'."""
    if not future.cancelled():
        future.exception()


def _rms(pcm: bytes) -> float:
    samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float32)
    return float(np.sqrt(np.mean(samples * samples))) if samples.size else 0.0
