"""Turn one transcribed caller line into the plain word stream every rule reads.

Speech-to-text output varies: with or without punctuation, "2pm" or "2 p.m.",
"don't" or "dont". Everything downstream matches against one form:

- lower case, single spaces, no punctuation inside the word stream; letters of
  any script kept as they are, in Unicode NFC ("Dóe", "Đỗ", "Ødoe");
- contractions expanded ("don't" -> "do not", "it's" -> "it is");
- hesitation fillers ("um", "uh") dropped, backchannels ("uh huh") -> "mhm", the two-note no
  ("uh-uh", "mm-mm") -> "no";
- numbers kept as written ("9:30", "26th", "04/03/1985", "0412-345-678");
- "2pm" -> "2 pm", "o'clock" -> "oclock", possessive "tuesday's" -> "tuesday 's";
- where the caller paused (a comma, full stop, question mark) the next word is
  remembered as the start of a clause, so rules can keep negation and
  "Doe, Jane" apart from the words around them;
- where a hyphen joined two words ("Doe-Roe") the second word is remembered
  as hyphen-joined, so names can be rebuilt.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from itertools import accumulate, chain
from operator import add
from dataclasses import dataclass, field

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'", "\u00b4": "'", "\u201c": " ", "\u201d": " ", '"': " "})

_BREAK = "\x00"
_HYPHEN_JOIN = "\x05"

_MERIDIEM = re.compile(r"(?<![a-z])([ap])\s?\.\s?m\b\.?")
_OCLOCK = re.compile(r"\bo\s?'?\s?clock\b")
# what every spelling of a two-note yes ("uh-huh", "mm-hmm", "mhmm") reads as
TWO_NOTE_YES = "mhm"
_BACKCHANNEL = re.compile(r"\b(?:uh[\s-]?huh|mm[\s-]?hmm+|m+hm+|mhmm|uh[\s-]?hum)\b")
# the two-note "no" ("uh-uh", "mm-mm", "nuh-uh"), written with its hyphen: not the filler "uh, uh"
_NEGATIVE_GRUNT = re.compile(r"\b(?:uh-uh|mm-mm|m-m|nuh-uh|unh-unh|uhn-uhn)\b")
_DIGIT_MERIDIEM = re.compile(r"(\d)\s?(am|pm)\b")
_TITLE_DOT = re.compile(r"\b(dr|mr|mrs|ms|st|prof|drs)\.")
_PLUS_DIGIT = re.compile(r"\+\s?(?=\d)")
_DIGIT_SEP = re.compile(r"(?<=\d)([:/.\-])(?=\d)")
_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_]{2})-(?=[^\W\d_]{2})")
# Pauses: punctuation, and a dash standing apart. Two patterns, not one alternation:
# a pattern that starts with a character class is scanned for quickly, and
# every break the dash pattern adds next to a punctuation break is the same pause.
# a pause written as punctuation, an em dash among it ("I'm away \u2014 a week Tuesday?")
_CLAUSE_PUNCT = re.compile(r"[,;:!?.\u2026\u2014]+")
# ... or as a dash with space around it (an en dash unspaced is a range: "Monday\u2013Friday")
_CLAUSE_DASH = re.compile(r"\s[-\u2013]+\s|--+")
_HAS_DIGIT = re.compile(r"\d")
# anything but letters (of any script), digits, the apostrophe, the markers and spaces
_OTHER = re.compile(r"(?:[^\w'\x00-\x05 ]|_)+")

_PROTECT = {":": "\x01", "/": "\x02", ".": "\x03", "-": "\x04"}
_RESTORE = str.maketrans({"\x01": ":", "\x02": "/", "\x03": ".", "\x04": "-"})

FILLERS = frozenset({"um", "umm", "ummm", "uh", "uhh", "uhm", "erm", "er", "err", "ah", "ahh", "hmm", "hm", "mmm", "mm"})

# Whole-token contractions, with or without the apostrophe (speech-to-text
# engines often drop it). Ambiguous bare forms ("ill", "were", "well") are left alone.
_CONTRACTIONS: dict[str, tuple[str, ...]] = {
    "can't": ("can", "not"), "cant": ("can", "not"), "cannot": ("can", "not"),
    "won't": ("will", "not"), "wont": ("will", "not"), "shan't": ("shall", "not"),
    "ain't": ("is", "not"), "aint": ("is", "not"),
    "i'm": ("i", "am"), "im": ("i", "am"), "i've": ("i", "have"), "ive": ("i", "have"),
    "i'd": ("i", "would"), "id": ("i", "would"), "i'll": ("i", "will"),
    "dont": ("do", "not"), "doesnt": ("does", "not"), "didnt": ("did", "not"),
    "isnt": ("is", "not"), "arent": ("are", "not"), "wasnt": ("was", "not"),
    "werent": ("were", "not"), "havent": ("have", "not"), "hasnt": ("has", "not"),
    "hadnt": ("had", "not"), "couldnt": ("could", "not"), "shouldnt": ("should", "not"),
    "wouldnt": ("would", "not"), "mustnt": ("must", "not"),
    "thats": ("that", "is"), "whats": ("what", "is"), "wheres": ("where", "is"),
    "whens": ("when", "is"), "hows": ("how", "is"), "whos": ("who", "is"),
    "theres": ("there", "is"), "heres": ("here", "is"), "its": ("it", "is"),
    "hes": ("he", "is"), "shes": ("she", "is"), "youre": ("you", "are"),
    "theyre": ("they", "are"), "gonna": ("going", "to"), "wanna": ("want", "to"),
    "gotta": ("got", "to"), "gimme": ("give", "me"), "lemme": ("let", "me"),
    "let's": ("let", "us"), "y'all": ("you",), "ok": ("ok",), "okay": ("ok",),
    "alright": ("all", "right"), "tmrw": ("tomorrow",), "tmr": ("tomorrow",),
    "appt": ("appointment",), "appts": ("appointments",),
}
# "<word>'s" that is a contraction of "is"; any other "'s" is a possessive.
_IS_BEFORE = frozenset({
    "it", "that", "what", "where", "when", "how", "who", "there", "here", "he", "she",
    "name", "number", "surname", "everything", "nothing", "this", "mine", "which",
})
_SUFFIXES = (("n't", ("not",)), ("'re", ("are",)), ("'ve", ("have",)), ("'ll", ("will",)),
             ("'d", ("would",)), ("'m", ("am",)))


@dataclass(frozen=True)
class CallerText:
    raw: str
    text: str                       # tokens joined by single spaces
    tokens: tuple[str, ...]
    clause_starts: frozenset[int]   # token indexes that begin a clause (0 always)
    hyphen_joined: frozenset[int]   # token indexes joined to the previous by a hyphen
    offsets: tuple[int, ...]        # character offset of each token in `text`
    clauses: tuple[tuple[int, int], ...] = ()  # per token: the span of its clause
    words: frozenset[str] = frozenset()        # the distinct tokens, for cheap "is any of these said" checks
    clause_spans: tuple[tuple[int, int], ...] = ()  # each clause's token span, in order
    has_digit: bool = False         # whether the line held a digit (False: no token has one)
    # Facts derived from the words once and shared by every rule that needs
    # them (which rules could match, say): filled on first use.
    memo: dict = field(default_factory=dict, compare=False, repr=False)

    def token_index(self, char_pos: int) -> int:
        """The index of the token that contains (or starts after) `char_pos`."""
        return max(0, bisect_right(self.offsets, char_pos) - 1)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Token span [first, last+1) covering the character span [start, end)."""
        first = bisect_right(self.offsets, start) - 1
        last = bisect_right(self.offsets, max(start, end - 1)) - 1
        return max(0, first), max(0, last) + 1

    def clause_of(self, index: int) -> tuple[int, int]:
        """Token span of the clause containing token `index`."""
        if 0 <= index < len(self.clauses):
            return self.clauses[index]
        return (0, len(self.tokens))


def _expand(token: str) -> tuple[str, ...]:
    if token in _CONTRACTIONS:
        return _CONTRACTIONS[token]
    if "'" not in token:
        return (token,)
    if token.endswith("in'") and len(token) > 5 and token[-4] not in "aeiou'":
        return (token[:-1] + "g",)   # a dropped g written out: "mornin'", "somethin'", "lookin'"
    token = token.strip("'")
    if not token:
        return ()
    if token in _CONTRACTIONS:
        return _CONTRACTIONS[token]
    if token.endswith("'s"):
        base = token[:-2]
        if base in _IS_BEFORE:
            return (base, "is")
        return (base, "'s") if base else ()
    if token.endswith("s'") and len(token) > 2:  # plural possessive: "the kids'"
        return (token[:-1],)
    for suffix, words in _SUFFIXES:
        if token.endswith(suffix) and len(token) > len(suffix):
            base = token[: -len(suffix)]
            if suffix == "n't":
                base = {"ca": "can", "wo": "will", "sha": "shall"}.get(base, base)
            return (base, *words)
    return (token,)




# speech-to-text writes a spoken "eight thirty-one" ("the 8:30 one") as "8,31": one clock number, like "831"
_CLOCK_COMMA = re.compile(r"(?<![\d,])(1[0-2]|0?[1-9]),([0-5]\d)(?![\d,])")


def normalise(raw: str, regional: tuple[tuple[str, str], ...] = ()) -> CallerText:
    """`regional`: (regional word, general word) pairs from the clinic's region ("arvo" -> "afternoon")."""
    t = raw.lower()
    if not t.isascii():
        t = unicodedata.normalize("NFC", t).translate(_QUOTES)
    elif "`" in t or '"' in t:  # the only ASCII characters _QUOTES changes
        t = t.translate(_QUOTES)
    has_digit = _HAS_DIGIT.search(t) is not None
    # each substitution runs only when the text holds what it looks for
    if "-" in t and ("uh" in t or "m-m" in t or "mm" in t):
        t = _NEGATIVE_GRUNT.sub(" no ", t)
    if "uh" in t or "mm" in t or "mh" in t:
        t = _BACKCHANNEL.sub(f" {TWO_NOTE_YES} ", t)
    if "." in t:
        t = _MERIDIEM.sub(r" \1m ", t)
        t = _TITLE_DOT.sub(r"\1 ", t)
    if "clock" in t:
        t = _OCLOCK.sub(" oclock ", t)
    if has_digit:
        if "," in t:
            t = _CLOCK_COMMA.sub(r"\1\2", t)
        t = _DIGIT_MERIDIEM.sub(r"\1 \2", t)
        if "+" in t:
            t = _PLUS_DIGIT.sub(" plus ", t)
        t = _DIGIT_SEP.sub(lambda m: _PROTECT[m.group(1)], t)
    if "&" in t:
        t = t.replace("&", " and ")
    if "-" in t:
        t = _WORD_HYPHEN.sub(_HYPHEN_JOIN, t)
    t = _CLAUSE_PUNCT.sub(f" {_BREAK} ", t)
    if "-" in t or "\u2013" in t:
        t = _CLAUSE_DASH.sub(f" {_BREAK} ", t)
    t = t.replace("-", " ").replace("/", " ")
    t = _OTHER.sub(" ", t)
    if has_digit or not raw.isprintable():  # \x01-\x04 come from _PROTECT (or a control character said as is)
        t = t.translate(_RESTORE)

    if _HYPHEN_JOIN in t or not raw.isprintable():
        tokens, starts, hyphen_joined = _words(t)
    else:
        tokens, starts, hyphen_joined = _plain_words(t), [0], []
        if _BREAK in t:
            tokens, starts = _clauses(t)
    if regional:
        general = dict(regional)
        tokens = [general.get(tok, tok) for tok in tokens]
    n = len(tokens)
    # each token starts one past the end of the one before: 0, len0 + 1, len0 + len1 + 2, ...
    offsets = (0, *map(add, accumulate(map(len, tokens)), range(1, n))) if n else ()
    spans = [(first, starts[k + 1] if k + 1 < len(starts) else n) for k, first in enumerate(starts)]
    clauses: list[tuple[int, int]] = []
    for span in spans:
        clauses.extend([span] * (span[1] - span[0]))
    return CallerText(
        raw=raw,
        text=" ".join(tokens),
        tokens=tuple(tokens),
        clause_starts=frozenset(starts),
        hyphen_joined=frozenset(hyphen_joined),
        offsets=offsets,
        clauses=tuple(clauses),
        words=frozenset(tokens),
        clause_spans=tuple(spans),
        has_digit=has_digit,
    )


def _words(t: str) -> tuple[list[str], list[int], list[int]]:
    """(tokens, clause starts, hyphen-joined token indexes) of the cleaned text."""
    tokens: list[str] = []
    starts = [0]          # clause starts, found in order
    hyphen_joined: list[int] = []
    pending_break = False
    for chunk in t.split():
        if chunk == _BREAK:
            pending_break = True
            continue
        words = _CHUNKS.get(chunk)
        if words is None:
            words = _chunk_words(chunk)
        for word, joined in words:
            if pending_break and tokens:
                starts.append(len(tokens))
            pending_break = False
            if joined:
                hyphen_joined.append(len(tokens))
            tokens.append(word)
    return tokens, starts, hyphen_joined


# `_words` without a word loop, for text with no hyphen-joined words and no
# control characters (so every \x00 is a clause break standing alone): most lines.

def _plain_words(t: str) -> list[str]:
    chunks = t.split()
    found = list(map(_PLAIN.get, chunks))
    if None in found:  # a chunk not seen before
        for k, chunk in enumerate(chunks):
            if found[k] is None:
                _chunk_words(chunk)
                found[k] = _PLAIN[chunk]
    return list(chain.from_iterable(found))


def _clauses(t: str) -> tuple[list[str], list[int]]:
    tokens: list[str] = []
    starts = [0]
    for piece in t.split(_BREAK):
        words = _plain_words(piece)
        if words:
            if tokens:
                starts.append(len(tokens))  # the first word after a pause
            tokens.extend(words)
    return tokens, starts


# What one whitespace-separated chunk becomes: its words, each with whether it
# was hyphen-joined to the word before (and the words alone, in _PLAIN).
# Callers reuse a small vocabulary, so this is remembered per chunk (bounded)
# rather than worked out on every line.
_CHUNKS: dict[str, tuple[tuple[str, bool], ...]] = {}
_PLAIN: dict[str, tuple[str, ...]] = {}
_CHUNKS_MAX = 20000


def _chunk_words(chunk: str) -> tuple[tuple[str, bool], ...]:
    out: list[tuple[str, bool]] = []
    for p, part in enumerate(chunk.split(_HYPHEN_JOIN)):
        expanded = _expand(part)
        for word in expanded:
            if not word or word in FILLERS:
                continue
            out.append((word, p > 0 and word == expanded[0]))
    words = tuple(out)
    if len(_CHUNKS) >= _CHUNKS_MAX:
        _CHUNKS.clear()
        _PLAIN.clear()
    _CHUNKS[chunk] = words
    _PLAIN[chunk] = tuple(word for word, _joined in words)
    return words
