"""The answers a question expects, scored against the audio where Whisper's own words understood nothing.

Where the next answer is one of a few known phrases (engine/expected_answers.py: the slots just offered, the
clinic's sites and services, the patients on the caller's number; the declared yes and no of a read-back),
Whisper's decoder is made to read each phrase over the clip's encoded audio (CTranslate2's `Whisper.align`,
the same encoder pass as the free transcription) and each is scored by the summed log-probability of its
tokens. Whisper's own words are scored the same way.

A forced reading always fits some phrase, even to a cough or a question, and it cannot tell a misheard
answer from another word that shares its sounds ("Incorrect." reads well as "correct"). So it is used two
ways, by what a wrong pick would cost:

- A choice (a slot, a site, a service, a name): a wrong pick is read back before anything is written. Only
  where Whisper's words, understood as the engine would (`understand`), say nothing at all. Each phrase is
  judged by how much better it reads over the clip than over silence of the same length (its score less its
  prior, in nats: the evidence the audio gives for it, with the decoder's taste for common words taken out;
  a rare name such as a suburb reads badly anywhere, and a short common word reads well anywhere). The best
  phrase is taken when that is at least CHOICE_EVIDENCE_MIN and beats every other option's phrases by
  CHOICE_EVIDENCE_GAP (not another way of saying the same option: a site's name and its alias mean one
  thing). Measured on spoken sites and slot picks in three voices (Piper joe, espeak-ng en-us, flite awb) over
  G.711: a site said as its name or "the <site> one" read 10-31 nats better than over silence, a slot said as
  its time or position 6.5-13, and no other option nor any non-answer ("I'm not sure", "hang on", "which one
  is closer?") more than 5.3. On the hearing probe every answer it changed was changed to the right one
  (bench/RESULTS.md, "Hearing: scoring the expected answers").
- A read-back's yes or no: a yes unlocks a write, so scoring never gives one. Where Whisper wrote nothing or
  one word that settles nothing, it gives a declared no that reads clearly better than every yes (NO_GAP)
  and no worse than every rival (the question's `yes_rivals` in config/flows/questions.yaml: negated yeses,
  fillers, questions); otherwise the engine asks again. A yes was allowed at first, only where it beat every rival by
  3 nats: on the hearing probe a spoken "Not quite." that Whisper wrote "Outline" still read as "that's
  right" (bench/RESULTS.md, "Hearing: scoring the expected answers").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from ..understanding import Question
from ..understanding.normalise import normalise

SCORE_MAX_S = 3.0        # seconds of audio: a longer clip is no short answer, and is never scored
CHOICE_MAX_WORDS = 4     # Whisper's own words, at most, for a choice to be second-guessed
YES_NO_MAX_WORDS = 1     # ... for a read-back's answer (a shorter phrase reads better summed than a longer
                         # answer it begins: "Yes." over "Yes, that's great.")
MARGIN = 2.0             # nats: how far below Whisper's own words a declared no may read and still be taken
EMPTY_MEAN_MIN = -1.2    # nats per token: where Whisper wrote nothing, how well a phrase must read on its own
CHOICE_EVIDENCE_MIN = 8.0   # nats a choice must read better over the clip than over silence (see the module)
CHOICE_EVIDENCE_GAP = 4.0   # nats by which that must beat every other option's
NO_GAP = 1.0             # nats: how far a declared no must read above every yes to be taken
_WORDS = re.compile(r"[^\w']+")


@dataclass(frozen=True)
class Expected:
    """What may be scored for one turn: a choice's options (each its phrases), or a read-back's yeses, noes and
    rivals."""
    choices: tuple[tuple[str, ...], ...] = ()
    yes: tuple[str, ...] = ()
    no: tuple[str, ...] = ()
    rivals: tuple[str, ...] = ()

    @property
    def read_back(self) -> bool:
        return bool(self.yes)

    def __bool__(self) -> bool:
        return bool(self.choices or self.yes)


@dataclass(frozen=True)
class Reading:
    text: str          # the phrase as declared
    role: str          # "choice", "yes", "no" or "rival"
    score: float       # summed log-probability of its tokens
    tokens: int
    option: int = -1   # a choice: which option it says (its place in Expected.choices)
    prior: float = 0.0   # a choice: its score over silence

    @property
    def evidence(self) -> float:
        return self.score - self.prior

    @property
    def mean(self) -> float:
        return self.score / max(1, self.tokens)


def plain(text: str) -> str:
    return " ".join(_WORDS.sub(" ", text.lower().replace("-", " ")).split())


def as_whisper_writes(phrase: str) -> str:
    """A phrase as Whisper writes a short answer: a leading space, a capital, a full stop ("yep" -> " Yep.")."""
    phrase = phrase.strip()
    return " " + phrase[:1].upper() + phrase[1:] + ("" if phrase.endswith((".", "?", "!")) else ".")


def expected_for(question: Question | None, options: Sequence[Sequence[str]]) -> Expected:
    """What the turn after `question` may score: `options` are the engine's expected answers for it, each
    option's phrases (engine/expected_answers.py)."""
    if question is None:
        return Expected()
    if question.read_back and question.short_answer_phrases:
        by_intent = dict(question.short_answer_phrases)
        return Expected(yes=tuple(by_intent.get("yes", ())), no=tuple(by_intent.get("no", ())),
                        rivals=question.yes_rivals)
    if question.short_answers:    # "anything else?": a yes or a no there is the caller's to say plainly
        return Expected()
    return Expected(choices=tuple(tuple(phrases) for phrases in options if phrases))


def worth_scoring(expected: Expected, question: Question | None, free: str,
                  understand: Callable[[str], Any] | None = None) -> bool:
    """Whether Whisper's words `free` are short enough to second-guess and say nothing to the question
    (`understand`: words -> Utterance, as the engine reads them; without it no choice is second-guessed)."""
    if not expected:
        return False
    words = plain(free)
    if expected.read_back:
        if len(words.split()) > YES_NO_MAX_WORDS:
            return False
        if question is not None and words and question.short_answer(normalise(free).text) is not None:
            return False
        if words in {plain(r) for r in expected.rivals}:
            return False
    elif understand is None or len(words.split()) > CHOICE_MAX_WORDS:
        return False
    if not words or understand is None:
        return True
    utterance = understand(free)
    if expected.read_back or question is None:
        return says_nothing(utterance)
    return gives_nothing_asked(utterance, question)


def gives_nothing_asked(utterance: Any, question: Any) -> bool:
    """Whether an Utterance holds no intent and none of what `question` asks for: a site misheard as a name
    (a site's name written as "I'm <two odd words>") still answers nothing of "which clinic?". Where the
    question's kinds are not known here, nothing at all (`says_nothing`)."""
    u = utterance
    if u.intents or u.patient_status or u.answers:
        return False
    given = {"name": bool(u.name or u.spelled), "service": bool(u.service_ids), "location": u.location_id is not None,
             "practitioner": u.practitioner_id is not None,
             "slot": u.slot_pick is not None or bool(u.booking_picks or u.window or u.weekdays or u.refused_days)}
    if not question.expects or not question.expects <= given.keys():
        return says_nothing(u)
    return not any(given[kind] for kind in question.expects)


def says_nothing(utterance: Any) -> bool:
    """Whether an Utterance holds no intent and no detail at all."""
    u = utterance
    return not (u.intents or u.name or u.spelled or u.dob or u.phone or u.service_ids or u.location_id
                or u.practitioner_id or u.window or u.weekdays or u.slot_pick is not None or u.booking_picks
                or u.patient_status or u.answers)


def choose(free: str, free_score: float | None, readings: Sequence[Reading]) -> Reading | None:
    """The phrase to take instead of Whisper's words `free` (scored `free_score`), or None to keep them."""
    if not readings:
        return None
    if any(r.role == "yes" for r in readings):
        return _yes_or_no(free, free_score, readings)
    ranked = sorted(readings, key=lambda r: r.evidence, reverse=True)
    best = ranked[0]
    runner_up = next((r for r in ranked[1:] if r.option != best.option or r.option < 0), None)
    if best.evidence < CHOICE_EVIDENCE_MIN:
        return None
    if runner_up is not None and best.evidence - runner_up.evidence < CHOICE_EVIDENCE_GAP:
        return None
    return best


def _yes_or_no(free: str, free_score: float | None, readings: Sequence[Reading]) -> Reading | None:
    """A declared no, or None: never a yes (see the module)."""
    noes = [r for r in readings if r.role == "no"]
    if not noes:
        return None
    no = max(noes, key=lambda r: r.score)
    yes = max(r.score for r in readings if r.role == "yes")
    rival = max((r.score for r in readings if r.role == "rival"), default=no.score)
    return no if no.score - yes >= NO_GAP and no.score >= rival and _reads_well(no, free, free_score) else None


def _reads_well(reading: Reading, free: str, free_score: float | None, margin: float = MARGIN) -> bool:
    if plain(free):
        return free_score is not None and reading.score >= free_score - margin
    return reading.mean >= EMPTY_MEAN_MIN


class AnswerScorer:
    """Scores phrases over audio Whisper has already encoded."""

    def __init__(self, model: Any, tokenizer: Any):
        self.model = model            # ctranslate2.models.Whisper
        self.tokenizer = tokenizer    # faster_whisper.tokenizer.Tokenizer
        self._priors: dict[tuple[int, str], float] = {}   # (silence's frames, text) -> its score over silence

    def scores(self, encoded: Any, frames: int, texts: Sequence[str]) -> list[tuple[float, int]]:
        """(summed log-probability, tokens) of each text read over `encoded` (one clip's encoder output, from
        `frames` mel frames)."""
        tokens = [self.tokenizer.encode(text) for text in texts]
        return [(float(np.sum(np.log(np.maximum(np.asarray(probabilities, dtype=np.float64), 1e-12)))), len(t))
                for probabilities, t in zip(self._token_probabilities(encoded, frames, tokens), tokens)]

    def _token_probabilities(self, encoded: Any, frames: int, tokens: Sequence[list[int]]) -> list[Sequence[float]]:
        """Each token list forced through the decoder over `encoded`: the probability of each of its tokens."""
        import ctranslate2

        batch = np.repeat(np.asarray(encoded), len(tokens), axis=0)
        start = [*self.tokenizer.sot_sequence, self.tokenizer.no_timestamps]
        results = self.model.align(ctranslate2.StorageView.from_array(np.ascontiguousarray(batch)), start,
                                   list(tokens), [frames] * len(tokens))
        return [r.text_token_probs for r in results]

    def word_probabilities(self, encoded: Any, frames: int, text: str) -> list[tuple[str, float]]:
        """Each word of `text` (Whisper's own words for the clip) with how sure the decoder is of it, read over
        the clip: the least probability among its tokens, punctuation aside."""
        tokenizer = self.tokenizer
        ids = tokenizer.encode(" " + text.strip())
        if not ids:
            return []
        words: list[list] = []
        for token, probability in zip(ids, self._token_probabilities(encoded, frames, [ids])[0]):
            piece = tokenizer.decode([token])
            if piece.startswith(" ") or not words:
                words.append([piece.strip(), 1.0])
            else:
                words[-1][0] += piece
            if any(ch.isalnum() for ch in piece):
                words[-1][1] = min(words[-1][1], float(probability))
        return [(word, probability) for word, probability in words]

    def priors(self, quiet: tuple[Any, int], texts: Sequence[str]) -> list[float]:
        """Each text's score over silence (`quiet`: its encoding and frames), kept: it never changes."""
        encoded, frames = quiet
        missing = [t for t in dict.fromkeys(texts) if (frames, t) not in self._priors]
        if missing:
            for text, (score, _n) in zip(missing, self.scores(encoded, frames, missing)):
                self._priors[(frames, text)] = score
        return [self._priors[(frames, t)] for t in texts]

    def pick(self, encoded: Any, frames: int, free: str, expected: Expected,
             quiet: Callable[[], tuple[Any, int]] | None = None) -> Reading | None:
        """The phrase to take instead of Whisper's words, or None. `quiet`: silence's encoding for the clip's
        window, which a choice is weighed against (without it no choice is taken)."""
        phrases = ([(c, "choice", i) for i, option in enumerate(expected.choices) for c in option]
                   + [(y, "yes", -1) for y in expected.yes] + [(n, "no", -1) for n in expected.no]
                   + [(r, "rival", -1) for r in expected.rivals])
        if not phrases:
            return None
        texts = [as_whisper_writes(text) for text, _, _ in phrases]
        if plain(free):
            texts.append(" " + free.strip())
        scored = self.scores(encoded, frames, texts)
        free_score = scored[-1][0] if plain(free) else None
        if expected.choices:
            if quiet is None:
                return None
            priors = self.priors(quiet(), texts[:len(phrases)])
        else:
            priors = [0.0] * len(phrases)
        readings = [Reading(text, role, score, n, option, prior)
                    for (text, role, option), (score, n), prior in zip(phrases, scored, priors)]
        return choose(free, free_score, readings)
