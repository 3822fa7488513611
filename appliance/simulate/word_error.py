"""Word error rate of what the engine heard against what the caller said.

Both sides are lowercased, stripped of punctuation and have their numbers
written as digits ("nineteen eighty five" and "1985" are the same words), so
the figure counts misheard words, not Whisper's way of writing them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ORDINAL = re.compile(r"\b(\d+)(st|nd|rd|th)\b")
_PUNCT = re.compile(r"[^\w\s']")


@dataclass(frozen=True)
class WordErrors:
    errors: int
    words: int

    @property
    def rate(self) -> float:
        return self.errors / self.words if self.words else 0.0

    def __add__(self, other: "WordErrors") -> "WordErrors":
        return WordErrors(self.errors + other.errors, self.words + other.words)


def normalise(text: str) -> list[str]:
    text = text.lower().replace("-", " ")
    try:
        from text_to_num import alpha2digit

        text = alpha2digit(text, "en")
    except Exception:
        pass
    text = _ORDINAL.sub(r"\1", text)
    text = _PUNCT.sub(" ", text)
    words: list[str] = []
    for word in text.split():  # "nineteen eighty five" -> "19 85" -> "1985"
        if words and _is_year_half(words[-1], 10, 29) and _is_year_half(word, 10, 99) and len(word) == 2:
            words[-1] += word
        else:
            words.append(word)
    return words


def _is_year_half(word: str, low: int, high: int) -> bool:
    return word.isdigit() and len(word) == 2 and low <= int(word) <= high


def word_errors(reference: str, heard: str) -> WordErrors:
    ref, hyp = normalise(reference), normalise(heard)
    previous = list(range(len(hyp) + 1))
    for i, word in enumerate(ref, 1):
        current = [i] + [0] * len(hyp)
        for j, other in enumerate(hyp, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (word != other))
        previous = current
    return WordErrors(previous[-1], len(ref))
