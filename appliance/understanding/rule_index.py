"""Which rule patterns could match a line, found from its words without
running any of them.

Each pattern knows the word starts one of which a line must hold for it to
match (`signals.first_words`): the start of a word ("cancel" for
`\\bcancel\\w*`), a whole word ("book "), or two words in a row ("book a ").
Every pattern of every `StartIndex` (a rule family, or one `WordPattern`)
owns one bit of a shared table, so a line is looked up once for all of them,
not once per family: each token gets the bits of its word (remembered per
word: callers reuse a small vocabulary) and of the pair it makes with the
next word, and the line keeps them (`CallerText.memo`). A family reads its
own bits of the whole line to know which patterns to run; a pattern reads
which tokens carry its bit to know where a match could start, so its regex
is tried only there (`signals.WordPattern.finditer_in`).
"""

from __future__ import annotations

from functools import reduce
from itertools import chain, repeat
from operator import or_

from .normalise import CallerText


class _Table:
    def __init__(self) -> None:
        self.whole: dict[str, int] = {}                # "book" -> bits of the patterns it starts
        self.prefix: dict[str, int] = {}               # "cancel": any word starting so
        self.pairs: dict[str, int] = {}                # "book a": two words in a row
        self.prefix_lengths: tuple[int, ...] = ()
        self.bits = 0                                  # bits handed out so far
        self.version = 0                               # changes whenever a start is filed
        self._per_word: dict[str, int] = {}

    def reserve(self, count: int) -> int:
        """`count` fresh bits; the first one's number."""
        base = self.bits
        self.bits += count
        return base

    def add(self, bit: int, start: str) -> None:
        """File one word start ("boo", "book ", "book a ") of the pattern owning `bit`."""
        flag = 1 << bit
        if start.endswith(" "):
            words = start[:-1].split(" ")
            if len(words) == 1:
                self.whole[words[0]] = self.whole.get(words[0], 0) | flag
            else:
                pair = " ".join(words)
                self.pairs[pair] = self.pairs.get(pair, 0) | flag
        else:
            self.prefix[start] = self.prefix.get(start, 0) | flag
            self.prefix_lengths = tuple(sorted({*self.prefix_lengths, len(start)}))
        self.version += 1
        self._per_word.clear()

    def _word(self, word: str) -> int:
        bits = self.whole.get(word, 0)
        for n in self.prefix_lengths:
            if n > len(word):
                break
            bits |= self.prefix.get(word[:n], 0)
        if len(self._per_word) >= 20000:
            self._per_word.clear()
        self._per_word[word] = bits
        return bits

    def scan(self, ct: CallerText) -> tuple[int, int, list[tuple[int, int]], list[int]]:
        """What the table says of a line, kept on it: (table version, bits of the
        whole line, (char offset, bits) of each token some pattern could start
        at, by its word and the word after it; word boundaries inside tokens)."""
        tokens = ct.tokens
        words = list(map(self._per_word.get, tokens))
        if None in words:  # a word not seen before
            words = [self._word(word) if bits is None else bits for word, bits in zip(tokens, words)]
        # each token with the one after it: "book a", "a new", ... ("" after the last)
        pairs = map(self.pairs.get, map(" ".join, zip(tokens, tokens[1:])), repeat(0))
        token_bits = list(map(or_, words, chain(pairs, (0,))))
        line = reduce(or_, token_bits, 0)
        hot = [(offset, bits) for offset, bits in zip(ct.offsets, token_bits) if bits]
        inner = [] if ct.text.replace(" ", "").isalnum() else _inner_boundaries(ct)
        found = ct.memo["starts"] = (self.version, line, hot, inner)
        return found


_TABLE = _Table()


def line_bits(ct: CallerText) -> int:
    """The bits of every pattern that could match the line, worked out once per line."""
    memo = ct.memo.get("starts")
    if memo is None or memo[0] != _TABLE.version:
        memo = _TABLE.scan(ct)
    return memo[1]


def starts_of(ct: CallerText, bit: int) -> list[int]:
    """Char offsets where the pattern owning `bit` could start a match, in
    order: the starts of tokens that carry its bit, and any word boundary
    inside a token ("o'brien", "9:30"), which the table cannot see (so there
    the regex is tried whatever the word)."""
    memo = ct.memo.get("starts")
    if memo is None or memo[0] != _TABLE.version:
        memo = _TABLE.scan(ct)
    flag = 1 << bit
    if not memo[1] & flag:
        return []
    found = [offset for offset, bits in memo[2] if bits & flag]
    inner = memo[3]
    return sorted(found + inner) if inner else found


def _inner_boundaries(ct: CallerText) -> list[int]:
    """Char offsets of the word boundaries inside tokens ("o'|brien", "9:|30")."""
    found = []
    for word, offset in zip(ct.tokens, ct.offsets):
        if word.isalnum():
            continue
        for j in range(1, len(word)):
            if word[j - 1].isalnum() != word[j].isalnum():
                found.append(offset + j)
    return found


class StartIndex:
    """Which of several patterns could match a line, found from the words the
    line holds, without running any of them."""

    def __init__(self, starts: list[frozenset[str] | None]) -> None:
        self.always = frozenset(i for i, s in enumerate(starts) if s is None)
        self.base = _TABLE.reserve(len(starts))
        self.size = len(starts)
        known: set[str] = set()
        for i, group in enumerate(starts):
            if group is None:
                continue
            for start in group:
                if " " in start[:-1] and not start.endswith(" "):
                    start = start.split(" ")[0] + " "  # "after a": the whole word "after" is enough
                known.add(start)
                _TABLE.add(self.base + i, start)
        self.known = frozenset(known)
        self._always_bits = sum(1 << i for i in self.always)
        self._mask = (1 << self.size) - 1

    def _bits(self, ct: CallerText) -> int:
        return ((line_bits(ct) >> self.base) & self._mask) | self._always_bits

    def any(self, ct: CallerText) -> bool:
        """Whether any of the patterns could match."""
        return self._bits(ct) != 0

    def in_order(self, ct: CallerText) -> list[int]:
        """The patterns that could match, in the order given."""
        bits = self._bits(ct)
        found = []
        while bits:
            low = bits & -bits
            found.append(low.bit_length() - 1)
            bits ^= low
        return found

    def candidates(self, ct: CallerText) -> set[int]:
        return set(self.in_order(ct))
