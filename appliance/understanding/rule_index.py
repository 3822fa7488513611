"""Which rule patterns could match a line, found from its words without
running any of them.

Each pattern knows the word starts one of which a line must hold for it to
match (`signals.first_words`): the start of a word ("cancel" for
`\\bcancel\\w*`), a whole word ("book "), or two words in a row ("book a ").
Every pattern of every `StartIndex` (a rule family, or one `WordPattern`)
owns one bit of a shared table, so a line is looked up once for all of them,
not once per family: the bits of each distinct word (remembered per word:
callers reuse a small vocabulary) and of each pair of neighbouring words,
OR-ed together and kept on the line (`CallerText.memo`). A family then reads
its own bits.
"""

from __future__ import annotations

from .normalise import CallerText


class _Table:
    def __init__(self) -> None:
        self.whole: dict[str, int] = {}                # "book" -> bits of the patterns it starts
        self.prefix: dict[str, int] = {}               # "cancel": any word starting so
        self.pairs: dict[str, dict[str, int]] = {}     # "book" -> "a" -> bits
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
                seconds = self.pairs.setdefault(words[0], {})
                seconds[words[1]] = seconds.get(words[1], 0) | flag
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

    def scan(self, ct: CallerText) -> tuple[int, int, list[int]]:
        """(table version, bits of the whole line, bits of each token), kept on
        the line: a token holds the bits of the patterns that could start at
        it, by its word and the word after it."""
        per_word = self._per_word
        pairs = self.pairs
        tokens = ct.tokens
        last = len(tokens) - 1
        line = 0
        token_bits = []
        for k, word in enumerate(tokens):
            bits = per_word.get(word)
            if bits is None:
                bits = self._word(word)
            if k < last:
                seconds = pairs.get(word)
                if seconds is not None:
                    bits |= seconds.get(tokens[k + 1], 0)
            token_bits.append(bits)
            line |= bits
        found = ct.memo["starts"] = (self.version, line, token_bits)
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
    offsets = ct.offsets
    found = [offsets[k] for k, bits in enumerate(memo[2]) if bits & flag]
    inner = ct.memo.get("inner")
    if inner is None:
        inner = ct.memo["inner"] = _inner_boundaries(ct)
    return sorted(found + inner) if inner else found


def _inner_boundaries(ct: CallerText) -> list[int]:
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
