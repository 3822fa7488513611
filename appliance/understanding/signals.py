"""The pieces every intent rule module shares: the rule record, confidence
order, and the negation look-back."""

from __future__ import annotations

import re
from dataclasses import dataclass
from re import _constants as _c
from re import _parser

from .normalise import CallerText
from .rule_index import StartIndex, line_bits, starts_of

CONFIDENCE_RANK = {"high": 3, "medium": 2, "low": 1}

EVIDENCE = {
    "book": "booking_terms", "reschedule": "reschedule_terms", "cancel": "cancel_terms",
    "cancel_all": "cancel_all_terms", "query": "query_terms", "price": "pricing_terms",
    "hours": "hours_terms", "address": "address_terms", "service_info": "service_info_terms",
    "human": "human_terms", "callback": "callback_terms", "emergency": "emergency_terms",
    "crisis": "crisis_terms", "medical_advice": "medical_advice_terms", "non_service": "non_service_terms",
    "yes": "affirmation", "no": "negation", "correction": "correction_terms", "goodbye": "caller_closing",
    "withdraw": "withdrawal_terms", "offer_check": "offer_check_terms",
}

NEGATORS = frozenset({"not", "never", "without", "instead", "rather"})
# "either" leaves the choice to us ("either is fine", "happy either way"), but "either way" before a question is
# "anyway" ("either way, what's the address?"): no choice was made
EITHER_AS_ANY = r"either(?! way (?:what|where|when|how|who|why|which|can|could|would|will|do|does|did|is there|are there)\b)"


_ANCHORS = (_c.AT_BOUNDARY, _c.AT_BEGINNING, _c.AT_BEGINNING_STRING)
_WORD_END = (_c.AT_BOUNDARY, _c.AT_END, _c.AT_END_STRING)


def _first_words(items: list, i: int = 0, lead: str = "", anchored: bool = False,
                 prefix: str = "") -> set[str] | None:
    """The literal starts a regex sequence can begin with, or None when it
    could begin with anything (or inside a word): the first word, and the
    start of the second when the first is whole ("i mea" for "i meant"). A
    whole word ends with a space. `prefix`: letters of the current word
    already read."""
    while i < len(items):
        op, av = items[i]
        if op is _c.LITERAL and chr(av) != " ":
            if not prefix and not lead and not anchored:
                return None  # no \\b or ^ before it: the match could start inside a word
            prefix += chr(av)
            i += 1
            continue
        if prefix and op is _c.AT and av in _WORD_END:
            # a whole word; look past zero-width checks for the space before the next one
            j = i + 1
            while j < len(items) and items[j][0] in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
                j += 1
            if not lead and j < len(items) and items[j][0] is _c.LITERAL and chr(items[j][1]) == " ":
                i = j
                continue
            return {lead + prefix + " "}
        if prefix and op is _c.LITERAL and chr(av) == " ":
            if lead:
                return {lead + prefix + " "}
            second = _first_words(items, i + 1, prefix + " ", True)
            return second if second is not None else {prefix + " "}
        if op is _c.AT:
            anchored = anchored or av in _ANCHORS
            i += 1
            continue
        if op in (_c.ASSERT, _c.ASSERT_NOT):
            i += 1
            continue
        if prefix and op in (_c.SUBPATTERN, _c.BRANCH):
            # Alternatives that share their first letters are parsed as those
            # letters, then the rest ("can not|could not": "c", then "an not|ould
            # not"): read on into each alternative, so the start is the words
            # themselves and not just "c".
            alternatives = [av[-1].data] if op is _c.SUBPATTERN else [alt.data for alt in av[1]]
            found = set()
            for alternative in alternatives:
                sub = _first_words(list(alternative) + items[i + 1:], 0, lead, anchored, prefix)
                if sub is None:
                    return {lead + prefix}
                found |= sub
            return found
        if prefix:
            return {lead + prefix}
        if op is _c.SUBPATTERN:
            return _first_words(list(av[-1].data) + items[i + 1:], 0, lead, anchored)
        if op is _c.BRANCH:
            found: set[str] = set()
            for alt in av[1]:
                sub = _first_words(list(alt.data) + items[i + 1:], 0, lead, anchored)
                if sub is None:
                    return {lead} if lead else None
                found |= sub
            return found
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            low, _high, body = av
            found = _first_words(list(body.data) + items[i + 1:], 0, lead, anchored)
            if found is None:
                return {lead} if lead else None
            if low == 0:
                rest = _first_words(items, i + 1, lead, anchored)
                if rest is None:
                    return {lead} if lead else None
                found |= rest
            return found
        return {lead} if lead else None
    if lead and not prefix:
        return {lead}
    # the pattern ends inside a word: the text's word may run on ("\\bi am" matches "i amber")
    return {lead + prefix} if prefix else None


def first_words(pattern: str) -> frozenset[str] | None:
    """Word starts one of which a text must contain for `pattern` to match
    (None: no such guarantee). Lets most rules be skipped without running."""
    try:
        parsed = _parser.parse(pattern)
        found = _first_words(list(parsed.data))
    except Exception:  # pragma: no cover - a private parser API changed: just run every rule
        return None
    return frozenset(found) if found else None


class WordPattern:
    """A compiled regex that knows which word starts it needs, so it is only
    run on a text that has one of them."""

    __slots__ = ("regex", "starts", "_index", "_bit")

    def __init__(self, *alternatives: str) -> None:
        source = "|".join(f"(?:{a})" for a in alternatives)
        self.regex = re.compile(source)
        self.starts = first_words(source)
        self._index = StartIndex([self.starts])
        self._bit = None if self.starts is None else self._index.base

    def could_match(self, ct: CallerText) -> bool:
        return self._index.any(ct)

    def finditer(self, text: str):
        return self.regex.finditer(text)

    def search(self, text: str):
        return self.regex.search(text)

    # On a line: the regex is tried only where a match could start (the word
    # table knows where). One that begins with \\b cannot skip ahead by itself:
    # run over the whole line, it is tried at every character.

    def finditer_in(self, ct: CallerText):
        """What `finditer(ct.text)` gives where the line could match (nothing
        where it could not)."""
        if self._bit is None:
            return self.regex.finditer(ct.text)
        if not line_bits(ct) >> self._bit & 1:
            return ()
        return self._at_starts(ct)

    def finditer_where_could(self, ct: CallerText):
        """`finditer_in`, on a line already known to be one the pattern could match."""
        if self._bit is None:
            return self.regex.finditer(ct.text)
        return self._at_starts(ct)

    def _at_starts(self, ct: CallerText):
        text = ct.text
        match = self.regex.match
        end = 0
        for pos in starts_of(ct, self._bit):
            if pos < end:
                continue  # inside the last match: finditer goes on from its end
            m = match(text, pos)
            if m is not None:
                yield m
                end = max(m.end(), pos + 1)

    def search_in(self, ct: CallerText):
        """What `search(ct.text)` gives where the line could match (None where it could not)."""
        if self._bit is None:
            return self.regex.search(ct.text)
        if not line_bits(ct) >> self._bit & 1:
            return None
        text = ct.text
        match = self.regex.match
        for pos in starts_of(ct, self._bit):
            m = match(text, pos)
            if m is not None:
                return m
        return None


@dataclass(frozen=True)
class Rule:
    intent: str
    confidence: str
    pattern: WordPattern
    negation_window: int = 4      # tokens looked back for "not"/"never"; 0 = never negated


def rule(intent: str, confidence: str, *alternatives: str, negation_window: int = 4) -> Rule:
    return Rule(intent, confidence, WordPattern(*alternatives), negation_window)


@dataclass
class Hit:
    """One intent found, while rules are still being applied."""

    intent: str
    confidence: str
    position: int
    labels: list[str]

    def raise_to(self, confidence: str, label: str | None = None, position: int | None = None) -> None:
        if CONFIDENCE_RANK[confidence] > CONFIDENCE_RANK[self.confidence]:
            self.confidence = confidence
        if label and label not in self.labels:
            self.labels.insert(0, label)
        if position is not None:
            self.position = min(self.position, position)


def _preferring(tokens: list[str], k: int) -> bool:
    """ "I'd rather speak to someone": "rather" after "would" or "had" says what the caller prefers; only
    "rather than" and a bare "rather" set something aside."""
    return tokens[k] == "rather" and k > 0 and tokens[k - 1] in ("would", "had")


def negated_before(ct: CallerText, char_start: int, window: int) -> bool:
    """Whether "not", "never", "without", "instead of", "rather than" come in
    the `window` tokens before `char_start`, within the same clause."""
    if window <= 0:
        return False
    index = ct.token_index(char_start)
    clause_start = ct.clause_of(index)[0]
    for k in range(max(clause_start, index - window), index):
        if ct.tokens[k] in NEGATORS and not _preferring(ct.tokens, k):
            return True
        if ct.tokens[k] == "no" and k + 1 < len(ct.tokens) and ct.tokens[k + 1] in ("need", "longer"):
            return True
    return False


class RuleSet:
    """Rules applied together, with the index that skips those that cannot match."""

    def __init__(self, *rules: Rule) -> None:
        self.rules = rules
        self.index = StartIndex([r.pattern.starts for r in rules])

    def __iter__(self):
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)


def apply_rules(ct: CallerText, rules: RuleSet, hits: dict[str, Hit]) -> None:
    for i in rules.index.in_order(ct):
        r = rules.rules[i]
        for m in r.pattern.finditer_where_could(ct):  # the index said it could
            if negated_before(ct, m.start(), r.negation_window):
                continue
            add_hit(hits, r.intent, r.confidence, m.start(), EVIDENCE[r.intent])
            break


def add_hit(hits: dict[str, Hit], intent: str, confidence: str, position: int, label: str) -> None:
    hit = hits.get(intent)
    if hit is None:
        hits[intent] = Hit(intent, confidence, position, [label])
    else:
        hit.raise_to(confidence, None, position)
        if label not in hit.labels:
            hit.labels.append(label)
