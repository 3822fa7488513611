"""How callers correct a name without spelling all of it.

- One name for another: "it's Doe, not Roe", "not Smith, Smyth", "Roe is my old name, it's Doe
  now", "change Roe to Doe", "Doe instead of Roe" -> (said before: "roe", now: "doe").
- A letter changed: "with a Y", "K not C", "a K, not a C", "two Ls", "double L", "no H", "without the H",
  "with an E on the end" -> `LetterEdit`s the engine applies to the name read back.

Understanding does not know the name on record; the engine applies a correction only when its old name
or letter is in the name it read back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common_words import NAME_PARTICLES, NAME_WORDS, STOP_WORDS
from .normalise import CallerText


# a name, maybe after the particles names start with ("Ó Doe", "van Roe", "de la Doe"): the particles
# and the name are one name, however short a particle
_PARTICLE = "(?:" + "|".join(sorted(map(re.escape, NAME_PARTICLES), key=len, reverse=True)) + r")\b"
_NAME = r"((?:" + _PARTICLE + r" )*(?!" + _PARTICLE + r" )[^\W\d_](?:[^\W\d_]|')+)"
_REPLACEMENTS = (
    # "it's Doe, not Roe", "Smyth not Smith", "should be Doe not Roe"
    re.compile(r"(?:\b(?:it is|it should be|should be|make it|it is actually|i said|i meant) )?\b" + _NAME +
               r" (?:and |but )?not " + _NAME + r"\b"),
    # "not Smith, Smyth", "not Smith but Smyth", "not Smith, it's Smyth"
    re.compile(r"\bnot " + _NAME + r" (?:but |it is |it should be |it is actually |rather )?" + _NAME + r"\b"),
    # "Roe is wrong, it's Doe", "Roe is my old name, it is Doe now"
    re.compile(r"\b" + _NAME + r" (?:is|was) (?:wrong|not right|incorrect|my old name|my maiden name|my old surname|"
               r"my previous name|not my name any more|not my name anymore|not it)(?: now)? (?:it is|it should be|"
               r"my name is|my surname is|i am|now it is)(?: now)? " + _NAME + r"\b"),
    # "change Roe to Doe", "Doe instead of Roe"
    re.compile(r"\bchange (?:it from )?" + _NAME + r" to " + _NAME + r"\b"),
    re.compile(r"\b" + _NAME + r" instead of " + _NAME + r"\b"),
)
_NEW_FIRST = {0: True, 1: False, 2: False, 3: False, 4: True}   # whether each pattern says the new name first


@dataclass(frozen=True)
class LetterEdit:
    """One change to a name's letters. kind: "replace" (old -> new), "with" (new, in place of the letter that
    sounds like it), "double" (old said twice), "drop" (old left out), "add_end" (new added at the end)."""

    kind: str
    new: str = ""
    old: str = ""


_LETTER = r"([a-z])"
_LETTER_EDITS = (
    ("replace", re.compile(r"\b(?:an? |the )?" + _LETTER + r"(?: instead of| not| rather than) (?:an? |the )?" + _LETTER +
                           r"\b")),
    ("replace_back", re.compile(r"\bnot (?:an? |the )?" + _LETTER + r"(?:,| but)? (?:it is )?(?:an? |the )?" + _LETTER +
                                r"\b")),
    ("double", re.compile(r"\b(?:two|double) " + _LETTER + r"(?:s|'s)?\b")),
    ("drop", re.compile(r"\b(?:without (?:an?|the)|not with (?:an?|the)) " + _LETTER + r"\b")),
    ("drop_said_short", re.compile(r"\bno " + _LETTER + r"(?: in it| at the end)?\b")),
    ("add_end", re.compile(r"\bwith (?:an?|the) " + _LETTER + r" (?:on|at) the end\b")),
    ("with", re.compile(r"\bwith (?:an?|the) " + _LETTER + r"\b(?! (?:on|at) the end)")),
    ("with", re.compile(r"\bspelt with (?:an?|the) " + _LETTER + r"\b")),
)
_SPELLING_CONTEXT = re.compile(r"\b(?:with|not|instead of|double|two|without|no|spelt|spelled)\b")


def name_replacements(ct: CallerText) -> tuple[tuple[str, str], ...]:
    """(name said before, name meant now) pairs, both as said (lower case as heard)."""
    text = ct.text
    found: list[tuple[str, str]] = []
    for k, pattern in enumerate(_REPLACEMENTS):
        for m in pattern.finditer(text):
            first, second = _said_name(ct, m, 1), _said_name(ct, m, 2)
            new, old = (first, second) if _NEW_FIRST[k] else (second, first)
            if _name_word(new) and _name_word(old) and new != old:
                found.append((old, new))
    return tuple(dict.fromkeys(found))


def _said_name(ct: CallerText, m: re.Match, group: int) -> str:
    """The name a pattern's group took, whole: its particle ("ó") and the name after it, or a hyphenated name."""
    particle, _, _ = m.group(group).rpartition(" ")
    last_word_at = m.start(group) + (len(particle) + 1 if particle else 0)
    return f"{particle} {_double_barrelled(ct, last_word_at)}" if particle else _double_barrelled(ct, last_word_at)


def _double_barrelled(ct: CallerText, char_at: int) -> str:
    """The name whose word starts at `char_at`, whole where it is one part of a hyphenated name ("O'Doe-Róe"),
    which the normalised text holds as separate words."""
    start = end = ct.token_index(char_at)
    while start in ct.hyphen_joined:
        start -= 1
    while end + 1 in ct.hyphen_joined:
        end += 1
    return "-".join(ct.tokens[start:end + 1])


def letter_edits(ct: CallerText) -> tuple[LetterEdit, ...]:
    """The letter changes said ("with a Y", "K not C", "two Ls"), in order."""
    text = ct.text
    if not _SPELLING_CONTEXT.search(text):
        return ()
    edits: list[LetterEdit] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _LETTER_EDITS:
        for m in pattern.finditer(text):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            if kind == "drop_said_short" and not _ends_clause(ct, m.end()):
                continue   # "no H" ends what was said; "no I don't" is a no
            if kind == "double" and not _two_of_a_letter(ct, m.start(), m.end()):
                continue
            taken.append((m.start(), m.end()))
            if kind == "replace":
                edits.append(LetterEdit("replace", new=m.group(1), old=m.group(2)))
            elif kind == "replace_back":
                edits.append(LetterEdit("replace", new=m.group(2), old=m.group(1)))
            elif kind in ("double", "drop"):
                edits.append(LetterEdit(kind, old=m.group(1)))
            elif kind == "drop_said_short":
                edits.append(LetterEdit("drop", old=m.group(1)))
            else:
                edits.append(LetterEdit(kind, new=m.group(1)))
    return tuple(edits)


_TENS = frozenset({"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "and"})


def _two_of_a_letter(ct: CallerText, char_start: int, char_end: int) -> bool:
    """"two Ls" said of a name: not the end of a number ("seventy-two, I need ...") and not a letter that opens
    the next clause."""
    two = ct.token_index(char_start)
    letter = ct.token_index(char_end - 1)
    if two > 0 and (ct.tokens[two - 1] in _TENS or ct.tokens[two - 1].isdigit()):
        return False
    return not any(two < k <= letter for k in ct.clause_starts)


def _ends_clause(ct: CallerText, char_end: int) -> bool:
    at = ct.token_index(char_end) + 1 if char_end < len(ct.text) else len(ct.tokens)
    return at >= len(ct.tokens) or at in ct.clause_starts


def _name_word(word: str) -> bool:
    last = word.rpartition(" ")[2]   # a particle's name: the name after it ("ó ceallaigh")
    return len(last) >= 2 and (last not in STOP_WORDS or last in NAME_WORDS)


# letters (or pairs) that a letter said "with a ..." may stand in for, by sound
_SOUNDS_LIKE = {
    "y": ("ie", "i", "ey", "ee"), "i": ("y", "ee", "ie"), "k": ("ch", "ck", "c", "q"), "c": ("k", "ck"),
    "f": ("ph", "v"), "z": ("s",), "s": ("z", "c"), "e": ("a", "i"), "a": ("e",), "o": ("ou", "u"),
    "u": ("o", "oo"), "j": ("g",), "g": ("j",), "v": ("f", "w"), "w": ("v",), "x": ("cks", "ks"),
}


def apply_letter_edit(name: str, edit: LetterEdit) -> str | None:
    """`name` with the edit made, or None when it does not fit the name (or could fit it in two ways)."""
    lower = name.lower()
    if edit.kind == "replace":
        if lower.count(edit.old) != 1:
            return None if edit.old not in lower else _replace_at(name, lower.index(edit.old), 1, edit.new)
        return _replace_at(name, lower.index(edit.old), 1, edit.new)
    if edit.kind == "double":
        spots = [i for i, ch in enumerate(lower) if ch == edit.old and (i + 1 >= len(lower) or lower[i + 1] != ch)
                 and (i == 0 or lower[i - 1] != ch)]
        return _replace_at(name, spots[-1], 1, lower[spots[-1]] * 2) if len(spots) == 1 else None
    if edit.kind == "drop":
        spots = [i for i, ch in enumerate(lower) if ch == edit.old]
        return _replace_at(name, spots[0], 1, "") if len(spots) == 1 and len(lower) > 2 else None
    if edit.kind == "add_end":
        return name + edit.new if not lower.endswith(edit.new) else None
    if edit.kind == "with":
        if edit.new in lower:
            return None   # already has it: nothing to change
        for sound in _SOUNDS_LIKE.get(edit.new, ()):
            spots = [m.start() for m in re.finditer(re.escape(sound), lower)]
            if len(spots) == 1 and spots[0] > 0:   # a first letter is said as the name starts, not fixed
                return _replace_at(name, spots[0], len(sound), edit.new)
            if len(spots) == 1 and spots[0] == 0 and len(sound) > 1:   # "Chris" with a K: "Kris"
                return _replace_at(name, 0, len(sound), edit.new)
        return None
    return None


def letter_edit_done(name: str, edit: LetterEdit) -> bool:
    """Whether `name` already reads as the edit asks ("Katherine" for "K, not C")."""
    lower = name.lower()
    if edit.kind == "replace":
        return edit.new in lower and edit.old not in lower
    if edit.kind == "with":
        return edit.new in lower
    if edit.kind == "double":
        return edit.old * 2 in lower
    if edit.kind == "drop":
        return edit.old not in lower
    if edit.kind == "add_end":
        return lower.endswith(edit.new)
    return False


def _replace_at(name: str, at: int, length: int, new: str) -> str:
    piece = name[at:at + length]
    if piece[:1].isupper():
        new = new[:1].upper() + new[1:]
    return name[:at] + new + name[at + length:]
