"""The voice pipeline's own frames, all in one place (Pipecat's frames carry the audio).

    transport in -> VAD -> CallerListener (STT service) --CallerTurnFrame--> EngineProcessor
        --AgentSpeechFrame--> PiperSpeaker (TTS service) --SpeechMarkFrame + TTS audio--> transport out
        -> PlaybackMonitor
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipecat.frames.frames import DataFrame, SystemFrame


@dataclass
class CallerTurnFrame(DataFrame):
    """One finished caller utterance, transcribed (text "" with `stt_failed` when STT broke, or with `unheard`
    when it was speech with no words in it, at a question short answers settle).

    Not dropped by a barge-in: the words were said, so the engine hears them.
    """

    interruptible: bool = field(default=False, init=False)
    text: str = ""
    speech_start: float = 0.0      # wall-clock time.time() moments
    speech_end: float = 0.0
    turn_end: float = 0.0          # when the end of the turn was decided
    heard_at: float = 0.0          # when the transcript was handed over (STT may start before the turn end)
    stt_ms: float = 0.0
    audio_s: float = 0.0
    stt_failed: bool = False
    barged_in: bool = False        # the caller spoke over the agent to say it
    unheard: bool = False          # speech in which no words were made out, where a short answer was expected
    written: str | None = None     # Whisper's own words, where an expected answer scored against the audio replaced them
    doubtful: tuple[str, ...] = ()  # words of a name the transcriber was unsure of (stt.DOUBTFUL_WORD)
    decoded_at: float = 0.0        # when the transcript was ready (heard_at is later by the hand-over's hold)
    stt_wait_ms: float = 0.0       # how long its decode waited on the box's STT lane (appliance/voice/scheduler.py)
    stt_speculative: bool = False  # its decode was started at a pause, before the turn was over


@dataclass
class ProvisionalTurnFrame(DataFrame):
    """A caller turn's words, transcribed, while the listener still waits out the quiet that keeps a sentence whole:
    the reply can be made ready meanwhile (engine/preview.py). The turn itself follows as a CallerTurnFrame, or
    does not, if the caller went on."""

    text: str = ""
    doubtful: tuple[str, ...] = ()


@dataclass
class SpeakAheadFrame(DataFrame):
    """The caller has been quiet long enough after the words of the last ProvisionalTurnFrame (`text`) that the
    reply made ready for them starts playing, before the turn is handed over. If the caller goes on, the listener
    takes it back with an interruption; if not, the reply the engine then gives is the one already playing."""

    text: str = ""


@dataclass
class PrepareSpeechFrame(DataFrame):
    """A reply the agent is likely to say next: the speaker makes its first phrase ready, and plays it at once if
    the reply then asked for is exactly this text."""

    text: str = ""


@dataclass
class CallerBargeInFrame(SystemFrame):
    """The caller spoke real words over the agent: the agent has been told to stop."""

    at: float = 0.0


@dataclass
class AgentSpeechFrame(DataFrame):
    """Something the agent says: a reply to turn `seq`, the greeting, a filler or a check-in."""

    text: str = ""
    seq: int = 0
    kind: str = "reply"            # greeting | reply | checkin | filler | fallback
    utterance_id: int = 0


@dataclass
class SpeechMarkFrame(DataFrame):
    """Travels with an utterance's audio: `start` just before its first audio, `end` after its last."""

    utterance_id: int = 0
    edge: str = "start"            # start | end
    first_audio_ms: float | None = None   # on `start`: text in to first audio out
    queue_ms: float = 0.0                 # on `start`: of that, waiting on the box's TTS lane (scheduler.py)
    failed: bool = False           # on `end`: the voice failed part way


@dataclass
class CallEndedFrame(SystemFrame):
    """The call is over (goodbye spoken, transfer handed off, or the caller hung up)."""

    outcome: str | None = None
    reason: str = ""
    extra: dict = field(default_factory=dict)
