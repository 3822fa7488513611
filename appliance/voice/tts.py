"""Text to speech: a Piper voice from its local .onnx file, shared by every call.

Pipecat's PiperTTSService would fetch a voice it does not find in its own
cache; this wraps PiperVoice on the resolved file instead. Piper speaks one
chunk per sentence at the voice's rate (22,050 Hz for joe); each sentence is
resampled to the call's rate as soon as it exists, so the first sentence
plays while the next is still being made.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from pathlib import Path
from typing import Iterator

import numpy as np

from .audio import resample, to_pcm

# piper-tts logs every text it speaks, with its phonemes, at DEBUG: read-backs hold names, dates of birth and
# phone numbers, so its log stops at warnings whatever level the appliance's own logs run at
logging.getLogger("piper").setLevel(logging.WARNING)

FIRST_PHRASE_WORDS = 8     # a first phrase longer than this is split at a comma, so it starts sooner
PHRASE_WORDS = 14          # later phrases longer than this are split at commas (then at " and ")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")


def phrases(text: str) -> list[str]:
    """The text in the pieces it is spoken in: sentences, long ones cut at commas or " and ".

    Piper makes a sentence whole before any of it can play, so a 15-second
    list of opening hours would keep the caller waiting for all of it; cut at
    its commas, the first piece plays while the rest is made.
    """
    pieces: list[str] = []
    for sentence in _SENTENCE_END.split(" ".join(text.split())):
        limit = FIRST_PHRASE_WORDS if not pieces else PHRASE_WORDS
        pieces.extend(_cut(sentence, limit))
    return [piece for piece in pieces if piece.strip()]


def _cut(sentence: str, limit: int) -> list[str]:
    if len(sentence.split()) <= limit:
        return [sentence]
    for separator in (": ", ", ", " and "):
        parts = sentence.split(separator)
        if len(parts) == 1:
            continue
        keep_left = separator != " and "      # ":" and "," stay with the words before them
        out: list[str] = []
        current = ""
        for part in parts:
            joined = part if not current else current + separator + part
            if current and len(joined.split()) > limit:
                out.append(current + (separator.rstrip() if keep_left else ""))
                current = part if keep_left else "and " + part
                limit = PHRASE_WORDS
            else:
                current = joined
        out.append(current)
        if len(out) > 1:
            return [piece for chunk in out for piece in _cut(chunk, PHRASE_WORDS)]
    return [sentence]


def fixed_openings(templates) -> list[str]:
    """The first phrase of each reply template where it is fixed words ("Just to confirm:" of "Just to confirm:
    {appointment}. Shall I book it?"): the same words open every reply made from it when its facts run long, so
    they can be synthesised before any call. A template is cut as a filled one would be, with long facts."""
    openings: dict[str, None] = {}
    for texts in templates:
        for text in (texts if isinstance(texts, (list, tuple)) else [texts]):
            text = " ".join(str(text).split())
            fixed = text.split("{", 1)[0]
            pieces = phrases(re.sub(r"\{[^}]*\}", _LONG_FACT, text))
            if pieces and fixed.startswith(pieces[0]):
                openings[pieces[0]] = None
    return list(openings)


_LONG_FACT = " ".join(["fact"] * PHRASE_WORDS)


class SpeechFailed(RuntimeError):
    """The voice could not speak a text (the message never holds the text)."""


class PiperSynthesizer:
    def __init__(self, voice_path: str | Path, *, threads: int = 1, use_cuda: bool = False):
        import onnxruntime
        from piper import PiperVoice
        from piper.config import PiperConfig

        self.voice_path = Path(voice_path)
        started = time.perf_counter()
        config = json.loads(Path(f"{self.voice_path}.json").read_text(encoding="utf-8"))
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        providers = ["CUDAExecutionProvider", "CPUExecutionProvider"] if use_cuda else ["CPUExecutionProvider"]
        session = onnxruntime.InferenceSession(str(self.voice_path), sess_options=options, providers=providers)
        self.voice = PiperVoice(config=PiperConfig.from_dict(config), session=session)
        self.rate = self.voice.config.sample_rate
        self.load_s = time.perf_counter() - started
        # no thread pool of its own: every call's speech, and the front desk's brief, is a job on the box's TTS lane
        # (scheduler.py), so the most urgent runs first

    def sentences(self, text: str, rate: int, stop: threading.Event | None = None) -> Iterator[bytes]:
        """Blocking generator: PCM at `rate`, one item per phrase; stops early when `stop` is set."""
        for piece in phrases(text):
            yield from self.phrase(piece, rate, stop)
            if stop is not None and stop.is_set():
                return

    def phrase(self, phrase: str, rate: int, stop: threading.Event | None = None) -> Iterator[bytes]:
        """Blocking generator: one phrase (a piece `phrases` made) as PCM at `rate`, not cut again."""
        try:
            for chunk in self.voice.synthesize(phrase):
                if stop is not None and stop.is_set():
                    return
                yield to_pcm(resample(chunk.audio_float_array, self.rate, rate))
        except Exception as exc:
            raise SpeechFailed(f"Piper could not speak a {len(phrase)}-character phrase: {type(exc).__name__}") from exc

    def speak(self, text: str, rate: int) -> bytes:
        return b"".join(self.sentences(text, rate))

    def speak_float(self, text: str, *, length_scale: float | None = None) -> tuple[np.ndarray, int]:
        """The whole text at the voice's own rate (the simulated caller uses it); `length_scale` above 1
        speaks more slowly."""
        from piper.config import SynthesisConfig

        parts = [chunk.audio_float_array
                 for chunk in self.voice.synthesize(text, SynthesisConfig(length_scale=length_scale))]
        return (np.concatenate(parts) if parts else np.zeros(0, np.float32)), self.rate
