"""A short answer the question expects, scored against the audio when Whisper's own words miss it.

At a question whose whole answers are declared (`short_answers` in config/flows/questions.yaml: the yes
and no of a read-back), Whisper at phone quality writes a short answer as something near it ("Yet." for
"yep", "Crack." for "correct") or as nothing at all (a two-note "uh-huh"). There, Whisper's decoder is made
to read each declared answer over the clip's encoded audio (CTranslate2's `Whisper.align`, the same
encoder pass as the transcription), and each is scored by the summed log-probability of its tokens (the
alignment gives the end of text no probability, so a phrase may fit the start of a longer answer: hence
short clips only, and only where Whisper wrote one word or none).

Never inventing an answer is the rule: a forced reading always fits some phrase, even to a question or a
cough. So an answer is taken only when
- the clip is short (`SCORE_MAX_S`): a long one is no short answer;
- Whisper's words are not already understood (the caller decides that: `transcribe(..., expected=...)` is
  only asked where the free words settle nothing);
- Whisper wrote a word: where it wrote nothing, a forced reading of "yeah" fitted a caller's "Uh." (the
  hearing probe's non-answers), so nothing is never made an answer;
- it reads nearly as well as Whisper's own word (`MARGIN`); and
- it reads clearly better than every answer of the other meaning (`GAP`): a yes never wins by a hair over
  a no.
Otherwise Whisper's words stand, and the engine asks again when it understands nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

SCORE_MAX_S = 2.0     # seconds of audio: longer clips are not short answers
# Whisper's own words, at most: a shorter declared answer reads better summed than a longer answer it begins
# ("Yes." over "Yes, that's great."), so only a one-word miss ("Yet.", "Crack.") or nothing is second-guessed
SCORED_MAX_WORDS = 1
# nats: how far below Whisper's own words an answer may read and still be taken (a near miss of it)
MARGIN = 2.0
# nats: how much better than any answer of the other meaning the one taken must read
GAP = 3.0
_WORDS = re.compile(r"[^\w']+")


@dataclass(frozen=True)
class Reading:
    meaning: str      # the declared intent ("yes", "no")
    text: str         # the answer as written in the question's declaration
    score: float      # summed log-probability of its tokens
    tokens: int

    @property
    def mean(self) -> float:
        return self.score / max(1, self.tokens)


def plain(text: str) -> str:
    return " ".join(_WORDS.sub(" ", text.lower().replace("-", " ")).split())


def as_whisper_writes(phrase: str) -> str:
    """A phrase as Whisper writes a short answer: a leading space, a capital, a full stop ("yep" -> " Yep.")."""
    phrase = phrase.strip()
    return " " + phrase[:1].upper() + phrase[1:] + ("" if phrase.endswith((".", "?", "!")) else ".")


def choose(free: str, free_score: float | None, readings: Sequence[Reading]) -> Reading | None:
    """The declared answer to take instead of Whisper's words `free`, under the rule above, or None."""
    if not readings:
        return None
    best = max(readings, key=lambda r: r.score)
    others = [r.score for r in readings if r.meaning != best.meaning]
    if others and best.score - max(others) < GAP:
        return None
    if not plain(free) or free_score is None:
        return None
    return best if best.score >= free_score - MARGIN else None


class AnswerScorer:
    """Scores phrases over audio Whisper has already encoded."""

    def __init__(self, model: Any, tokenizer: Any):
        self.model = model            # ctranslate2.models.Whisper
        self.tokenizer = tokenizer    # faster_whisper.tokenizer.Tokenizer

    def scores(self, encoded: Any, frames: int, texts: Sequence[str]) -> list[tuple[float, int]]:
        """(summed log-probability, tokens) of each text read over `encoded` (one clip's encoder output, from
        `frames` mel frames)."""
        import ctranslate2

        tokenizer = self.tokenizer
        tokens = [tokenizer.encode(text) for text in texts]
        batch = np.repeat(np.asarray(encoded), len(tokens), axis=0)
        start = [*tokenizer.sot_sequence, tokenizer.no_timestamps]
        results = self.model.align(ctranslate2.StorageView.from_array(np.ascontiguousarray(batch)), start,
                                   tokens, [frames] * len(tokens))
        return [(float(np.sum(np.log(np.maximum(np.asarray(r.text_token_probs, dtype=np.float64), 1e-12)))),
                 len(t)) for r, t in zip(results, tokens)]

    def pick(self, encoded: Any, frames: int, free: str,
             expected: Sequence[tuple[str, Sequence[str]]]) -> Reading | None:
        phrases = [(meaning, text) for meaning, texts in expected for text in texts]
        if not phrases or not plain(free):
            return None
        texts = [as_whisper_writes(text) for _, text in phrases]
        if plain(free):
            texts.append(" " + free.strip())
        scored = self.scores(encoded, frames, texts)
        free_score = scored[-1][0] if plain(free) else None
        readings = [Reading(meaning, text, score, n) for (meaning, text), (score, n) in zip(phrases, scored)]
        return choose(free, free_score, readings)
