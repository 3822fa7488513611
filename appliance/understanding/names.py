"""A caller's name, and any letters they spell.

A name is taken from explicit words anywhere ("my name is", "my last name
is", "surname's", "first name", "this is Jon Smyth", "Jane Doe
speaking", "I'm Jane" where that is clearly a name), and from the bare
words only when the agent asked for a name (the question's `name_part`:
full, first, last or spelling). Ordinary words ("yes", "um", "appointment",
"tomorrow", a service or place) never become a name. Given names are
kept as said ("Mary Jane Doe": given names "Mary Jane"), a middle initial dropped; "Doe, Jane" puts the surname first. Letters ("S M Y T H",
"S-M-Y-T-H", "s as in sugar", "double t") are returned upper case, and
correct the name word they spell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from anyascii import anyascii
from rapidfuzz import fuzz

from ..domain import fold_name
from .common_words import NAME_PARTICLES, NAME_WORDS, STOP_WORDS
from .name_list import given_name_first, is_listed_name   # the lists themselves load on first use
from .normalise import CallerText, normalise
from .utterance import PersonName
from .yes_no import TAKE_BACK_WORDS, takes_back

_LETTER_WORDS = {"bee": "b", "cee": "c", "dee": "d", "eff": "f", "gee": "g", "aitch": "h", "haitch": "h",
                 "jay": "j", "kay": "k", "ell": "l", "el": "l", "em": "m", "en": "n", "pee": "p", "cue": "q",
                 "queue": "q", "ar": "r", "ess": "s", "tee": "t", "vee": "v", "ex": "x", "wye": "y", "zed": "z",
                 "zee": "z"}
_NAME_TOKEN = re.compile(r"^[^\W\d_](?:[^\W\d_]|')*[^\W\d_]$")   # letters of any script, inner apostrophes
_NOT_NAME_SUFFIX = re.compile(r"(?:ing|ly|ous|ful|able|ible|ive|ness|ment|ated|ted|sed|red|ied|ped|ked)$")

# the words that put a name after its marker, and a hedge a correction says between ("is actually", "is really")
_HEDGE = r"(?: actually| really| in fact| definitely)?"
_IS = rf"(?: is| it is| would be| should be){_HEDGE}"
_FIRST_MARKER = re.compile(rf"\b(?:first|given|christian|fore) ?name(?:{_IS})?\b")
_LAST_MARKER = re.compile(rf"\b(?:last|family|second) name(?:{_IS})?\b|\bsurname(?:{_IS})?\b")
_FULL_MARKER = re.compile(rf"\b(?:my|his|her|their|the patient's|the|patient's) (?:full )?name(?:{_IS}|s)?\b|"
                          rf"\bname is{_HEDGE}\b|\bthe name\b|\bunder the name(?: of)?\b|\bput (?:it|me) "
                          r"(?:down )?(?:under|as)\b|"
                          # "name's" written without its apostrophe, opening the answer
                          r"^(?:(?:yes|yeah|yep|hi|hello|oh|ok|okay|sure|so) )?names\b")
_RESTATED = re.compile(r"\b(?:it is|it should be|should be|change it to|it is actually|it is spelt|not \w+ it is)\b")
_WEAK_MARKER = re.compile(r"\b(?:this is|i am|it is|here is|i meant)\b")
_AFTER_WEAK_NAME = frozenset({"and", "calling", "here", "speaking", "from", "i", "ringing", "phoning", "just",
                              "again", "with", "please", "thanks", "thank", "my", "returning"})
_BARE_SKIP = frozenset({"mr", "mrs", "ms", "miss", "dr", "doctor", "yes", "yeah", "yep", "yup", "sure", "ok", "so", "well", "hi", "hello", "hey", "oh", "right",
                        "sorry", "actually", "it", "is", "this", "that", "i", "am", "my", "name", "the", "full",
                        "would", "be", "yea", "ya", "no", "mhm", "its", "of", "course", "um"})
# a modal after "I" or "we" is the verb, never a name ("I'll say Smith", "I will spell it", "I may be late")
_SUBJECTS = frozenset({"i", "we"})
_MODALS = frozenset({"will", "shall", "can", "could", "should", "may", "might", "must"})
_BEFORE_LATER_NAME = frozenset({"for", "under", "is", "name", "called", "named", "as"})
_TRAILING_POLITE = frozenset({"please", "thanks", "thank", "you", "here", "speaking", "calling", "that", "is", "it",
                              "right", "mate"})
_SPEAKING = frozenset({"speaking", "here"})
_LISTING = frozenset({"and", "or", "with", "for", "to"})  # "Jane and John": two people, not one name
_INTRODUCING = frozenset({"calling", "speaking", "here", "ringing", "phoning", "from"})
_GREETINGS = frozenset({"hi", "hello", "hey", "morning", "afternoon", "evening", "yes", "yeah", "oh", "g'day", "gday"})


def _greeted(ct: CallerText, char_start: int) -> bool:
    """ "Hi, I'm Jane": an introduction straight after a greeting."""
    k = ct.token_index(char_start)
    return k > 0 and ct.tokens[k - 1] in _GREETINGS and (k - 1 == 0 or k - 1 in ct.clause_starts)


_LEAD_BEFORE_SPEAKING = frozenset({"hi", "hello", "hey", "it", "is", "yes", "yeah", "oh", "yep"})


@dataclass(frozen=True)
class Spelled:
    letters: str
    start: int
    end: int


_SPELL_MARKS = {"apostrophe": "'", "hyphen": "-", "dash": "-"}
_SPELL_SKIP = frozenset({"capital", "capitals", "big", "small", "lowercase", "uppercase", "upper", "lower", "then",
                         "and"})
_EXPLAINED_LETTER = frozenset({"with", "starts", "starting", "beginning", "begins"})
# a letter's mark said after it ("E acute", "O with a stroke", "U with two dots"): the letter is kept, the words
# of its mark are no letters (names are compared without their marks)
_MARKS = frozenset({"acute", "grave", "umlaut", "accent", "stroke", "slash", "tilde", "cedilla", "circumflex",
                    "ring", "dots", "dot", "caron", "hacek", "macron", "line", "bar"})
_MARK_FILLER = frozenset({"a", "an", "the", "two", "little"})
_MARK_PLACE = frozenset({"on", "over", "above", "through"})


def _mark_after(tokens: tuple[str, ...], i: int) -> int:
    """The index after the description of a letter's mark starting at token i, or i where there is none."""
    j = i
    if j < len(tokens) and tokens[j] == "with":   # "with a stroke", "with two dots": never a bare "a" (a letter)
        j += 1
        while j < len(tokens) and j - i < 4 and tokens[j] in _MARK_FILLER:
            j += 1
    if j < len(tokens) and tokens[j] in _MARKS:
        j += 1
        # where the mark is: "on top", "through it", "on the U" (the letter it is on, said again)
        if j < len(tokens) and tokens[j] in _MARK_PLACE:
            j += 1
            if j < len(tokens) and tokens[j] in ("it", "top"):
                j += 1
            elif j + 1 < len(tokens) and tokens[j] == "the" and len(tokens[j + 1]) == 1:
                j += 2
        return j
    return i


def _letter(tokens: tuple[str, ...], i: int) -> tuple[str, int] | None:
    """One spelled letter at token i ("s", "double t"): (letters, next index)."""
    tok = tokens[i]
    if len(tok) == 1 and tok.isalpha():
        return tok, i + 1
    if tok == "double" and i + 1 < len(tokens):
        nxt = tokens[i + 1]
        if nxt in ("u", "you"):
            return "w", i + 2
        if len(nxt) == 1 and nxt.isalpha():
            return nxt * 2, i + 2
        if nxt in _LETTER_WORDS:
            return _LETTER_WORDS[nxt] * 2, i + 2
    return None


def _groups(ct: CallerText) -> list[tuple[str, int, int, int]]:
    """Letters between pauses: (letters, start, end, single letters said)."""
    tokens = ct.tokens
    n = len(tokens)
    groups: list[tuple[str, int, int, int]] = []
    i = 0
    while i < n:
        # "Kris with a K": the letter explains the word, it is not a spelling
        if tokens[i] in _EXPLAINED_LETTER and i + 2 < n and tokens[i + 1] in ("a", "an") \
                and len(tokens[i + 2]) == 1:
            i += 3
            continue
        start = i
        letters = ""
        singles = 0
        while i < n:
            if i > start and i in ct.clause_starts:
                break
            got = _letter(tokens, i)
            tok = tokens[i]
            if got is not None:
                letters += got[0]
                singles += 1
                i = _mark_after(tokens, got[1])
            elif letters and tok in _LETTER_WORDS:
                letters += _LETTER_WORDS[tok]
                i += 1
            elif tok in _SPELL_MARKS and (letters or (i + 1 < n and len(tokens[i + 1]) == 1)):
                letters += _SPELL_MARKS[tok]
                i += 1
            elif tok in _SPELL_SKIP and i + 1 < n and _letter(tokens, i + 1) is not None \
                    and (letters or tok != "and"):
                i += 1
            elif letters and tok in ("as", "for") and i + 1 < n:
                # "s as in sugar", "s for sugar"
                j = i + 2 if tokens[i:i + 2] == ("as", "in") else i + 1
                if j < n and len(tokens[j]) > 1 and tokens[j][0] == letters[-1]:
                    i = j + 1
                else:
                    break
            else:
                break
        if letters:
            # a mark alone between pauses ("S, M, I, T, H, hyphen, J, O, N, E, S") still joins its neighbours
            groups.append((letters, start, i, singles))
        if i == start:
            i += 1
    return groups


def _letters_said(ct: CallerText) -> int:
    """At most how many letters were said one by one (single letters, and
    "double" before one), counting none when every one is "a" or "i" and no
    letter word ("bee", "ess") is said: such letters never make a run."""
    singles = ct.words & _LETTERS
    if "double" not in ct.words and singles <= _PLAIN_LETTERS and ct.words.isdisjoint(_LETTER_WORDS):
        return 0
    return sum(map(ct.tokens.count, singles)) + ct.tokens.count("double")


_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
_PLAIN_LETTERS = frozenset({"a", "i"})


def find_spelled(ct: CallerText, name_asked: bool) -> list[Spelled]:
    """Runs of spelled letters. Three letters make a run anywhere; two only
    when the agent asked for a name or its spelling. Letters said in groups
    ("M A C, capital L, E O D") join up when a group is a single letter;
    two longer groups ("A R O H A, N G A T A") stay two runs."""
    if _letters_said(ct) < (2 if name_asked else 3):
        return []  # too few letters said one by one to make a run
    merged: list[list] = []
    groups = _groups(ct)
    # "then" said before a group of letters: where the caller says it between some letters only, it ends one word
    # of the name ("C, A, O, I, M, H, E, then N, I, then B, H, ..."); where between every letter, it only paces them
    thens = [ct.tokens[start] == "then" for _letters, start, _end, _singles in groups]
    pacing = len(groups) > 2 and sum(thens) >= len(groups) - 2
    def a_word(word: str) -> bool:   # long enough to be a name's word, or a particle ("Ní")
        return len(word) >= 3 or word.lower() in NAME_PARTICLES

    def word_from(k: int) -> str:   # the letters said from group k on, up to the next "then" or pause in them
        word, at = groups[k][0], groups[k][2]
        for letters, start, end, _singles in groups[k + 1:]:
            if start != at or ct.tokens[start] == "then":
                break
            word, at = word + letters, end
        return word

    for k, (letters, start, end, singles) in enumerate(groups):
        if merged and thens[k] and not pacing and merged[-1][2] == start and a_word(merged[-1][0]) \
                and a_word(word_from(k)):
            merged.append([letters, start, end, singles, singles])
            continue
        if merged and singles == 1 and _says_what_was_spelled(ct, start, "".join(m[0] for m in merged)):
            continue   # "O space D O E, Ó Doe": the name said after its letters
        if merged and singles == 1 and start in ct.clause_starts and _mark_after(ct.tokens, start + 1) > start + 1 \
                and letters in merged[-1][0] and (end == len(ct.tokens) or _letter(ct.tokens, end) is None):
            continue   # "I B A N E Z, N with a tilde": which letter has a mark, not one letter more
        if merged:
            prev = merged[-1]
            if prev[2] == start and (prev[4] == 1 or singles == 1 or letters[:1] in "'-" or prev[0][-1:] in "'-"):
                prev[0] += letters
                prev[2] = end
                prev[3] += singles
                prev[4] = singles
                continue
        merged.append([letters, start, end, singles, singles])
    # a group said "space" before the next one: the two are one name's words spelled ("T E space H U I A")
    spaced = [k + 1 < len(merged) and group[2] < len(ct.tokens) and ct.tokens[group[2]] == "space"
              and merged[k + 1][1] == group[2] + 1 for k, group in enumerate(merged)]
    runs: list[Spelled] = []
    for k, (letters, start, end, singles, _last) in enumerate(merged):
        letters = letters.strip("'-")
        if not letters:
            continue
        # two letters are a spelling, unasked, where a spelled word of three or more letters is across a "space"
        beside = max(merged[k + 1][3] if spaced[k] else 0, merged[k - 1][3] if k and spaced[k - 1] else 0)
        enough = singles >= 3 or (singles >= 2 and (name_asked or beside >= 3))
        if singles == 1 and letters in NAME_PARTICLES and spaced[k] and (name_asked or merged[k + 1][3] >= 3):
            runs.append(Spelled(letters.upper(), start, end))   # "O space C E A L L A I G H": a particle spelled
            continue
        bare = letters.replace("'", "").replace("-", "")
        if enough and 2 <= len(bare) <= MAX_NAME_PART_CHARS and not set(bare) <= {"a", "i"}:
            if _names_its_first_letter(ct.tokens, start) and len(letters) > 2 and letters[0] == letters[1]:
                # "Kris with a K, K R I S" run together ("with the K-K-R-I-S"): the first K is the one named
                letters, start = letters[1:], start + 1
            runs.append(Spelled(letters.upper(), start, end))
    return runs


# the shortest stretch of letters taken as a spelling said twice in one breath: a name such as "Lulu" or
# "Mimi" is two letters said twice
SAID_TWICE_MIN = 3


def said_once(letters: str) -> str:
    """A spelling said twice over in one run, or written so by a decoder caught in a loop: copies of it back to
    back, the last maybe cut short or missing a letter ("HARRISHARRIS", "SMITHSMIT", "HUGHEFHUGHEFUGHEF"): the
    spelling once. Other letters, and a name people have that repeats itself ("Barbara", "Hanrahan"), as they
    are."""
    if len(letters) < 2 * SAID_TWICE_MIN or is_listed_name(letters):
        return letters
    for size in range(SAID_TWICE_MIN, len(letters) - SAID_TWICE_MIN + 1):
        head, rest, copies = letters[:size], letters[size:], 1
        while rest.startswith(head):
            rest, copies = rest[size:], copies + 1
        if (copies >= 2 and rest in head) or (len(rest) >= SAID_TWICE_MIN and head.startswith(rest)):
            return head
    return letters


def _taken_back(ct: CallerText, earlier: Spelled, later: Spelled) -> bool:
    """Whether the words between two spellings make the later one a correction of the earlier (the correction
    and no the caller's words declare, `yes_no.takes_back`). The "I" of "I mean" right after a spelling was
    read as one more letter of it, so it is given back to the words."""
    start = earlier.end - 1 if ct.tokens[earlier.end - 1] == "i" else earlier.end
    return takes_back(ct.tokens[start:later.start])


def spelled_once(runs: list[Spelled], ct: CallerText, name_part: str | None, correcting: bool) -> list[Spelled]:
    """The spellings a caller meant, where they said one more than once. People spell a name and then spell
    it again or say it, and a decoder can write a spelling over and over ("S U Z U K I S U Z U K I",
    "M S E L E O D. M S E L E O D. M S E L E O"): a run that is one spelling twice is that spelling, and a
    run that repeats an earlier one, whole or (with no correction said) cut off, is dropped. Asked for one part
    of the name or its spelling, a run after a spelling that begins with the same letter, shorter or as long
    and a letter apart, with no correction said, is the name said whole and written as letters ("F I F I T A,
    F E D", "N W O S U, NWASU"); a correction keeps the later run ("S M I T H, sorry, S M Y T H")."""
    kept: list[Spelled] = []
    for run in runs:
        taken_back = correcting or (bool(kept) and _taken_back(ct, kept[-1], run))
        once = said_once(run.letters)
        if once != run.letters:
            run = Spelled(once, run.start, run.end)
        if any(earlier.letters == run.letters or (earlier.letters.startswith(run.letters) and not taken_back)
               for earlier in kept):
            continue
        if kept and not taken_back and name_part in ("first", "last", "spelling") \
                and run.letters[:1] == kept[-1].letters[:1] and (len(run.letters) < len(kept[-1].letters) or (
                    len(run.letters) == len(kept[-1].letters) and fuzz.ratio(run.letters, kept[-1].letters) >= 80)):
            continue
        if kept and not taken_back and name_part in ("first", "last") and run.letters.startswith(kept[-1].letters) \
                and len(run.letters) > len(kept[-1].letters) and kept[-1].end < len(ct.tokens) \
                and _letter(ct.tokens, kept[-1].end) is None and ct.tokens[kept[-1].end] not in _SPELL_MARKS:
            kept[-1] = run   # the name said first, its opening written as letters ("O D, guard"), then spelled
            continue
        kept.append(run)
    return kept


def _says_what_was_spelled(ct: CallerText, start: int, spelled: str) -> bool:
    """Whether the words from token `start` to the end of its clause are the name just spelled, said whole: a
    one-letter particle there ("Ó") is the name's first word, not one more letter."""
    words = []
    for k in range(start, len(ct.tokens)):
        if k > start and k in ct.clause_starts:
            break
        words.append(ct.tokens[k])
    if len(words) < 2:
        return False
    said = fold_name("".join(words)).replace("'", "").replace("-", "")
    return said == fold_name(spelled).replace("'", "").replace("-", "").replace(" ", "")


def _names_its_first_letter(tokens: tuple[str, ...], start: int) -> bool:
    """Whether the words before a spelled run are "with a" / "with an" / "with the"."""
    return start >= 2 and tokens[start - 2] == "with" and tokens[start - 1] in ("a", "an", "the")


def title_case(word: str) -> str:
    def cap(piece: str) -> str:
        if piece.startswith("mc") and len(piece) > 2:
            return "Mc" + piece[2:].capitalize()
        return piece.capitalize()

    return "-".join("'".join(cap(p) for p in part.split("'")) for part in word.split("-"))


# longer than any name part people have (the store refuses a name longer than its own limit, too)
MAX_NAME_PART_CHARS = 50


def _name_like(tok: str, blocked: frozenset[str]) -> bool:
    return len(tok) <= MAX_NAME_PART_CHARS and bool(_NAME_TOKEN.match(tok)) and (tok not in STOP_WORDS or tok in NAME_WORDS) and tok not in blocked


def _ambiguous(tok: str) -> bool:
    return tok in STOP_WORDS or tok in NAME_WORDS or tok in NAME_PARTICLES


@dataclass(frozen=True)
class _Run:
    parts: tuple[str, ...]     # name parts (hyphenated parts joined), in order
    start: int
    end: int
    ambiguous: bool            # every word is also an ordinary word


_ARTICLES = frozenset({"an", "the"})
_TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "doctor", "prof", "professor", "sir", "madam", "master"})


def _read_run(ct: CallerText, i: int, blocked: frozenset[str], limit: int = 4) -> _Run | None:
    """The name words starting at token i (same clause); a title ("Mrs",
    "Dr") before them is skipped."""
    tokens = ct.tokens
    n = len(tokens)
    while i < n - 1 and tokens[i] in _TITLES and i + 1 not in ct.clause_starts:
        i += 1
    parts: list[str] = []
    words: list[str] = []
    j = i
    while j < n and len(parts) < limit:
        if j > i and j in ct.clause_starts:
            if not (parts and tokens[j] == parts[-1] and j + 1 < n and _name_like(tokens[j + 1], blocked)):
                break
            # "it's Jane, Jane Doe": the caller starts the name over in a new clause, and goes on with it
            j += 1
            continue
        tok = tokens[j]
        if j > i and j in ct.hyphen_joined and parts and _NAME_TOKEN.match(tok):
            parts[-1] += "-" + tok
            words.append(tok)
            j += 1
            continue
        # a particle before a name word, also one of a single letter that starts the run ("Ó Doe, Jane")
        if (parts or (len(tok) == 1 and tok in NAME_PARTICLES)) \
                and (tok in NAME_PARTICLES or (len(tok) == 1 and tok.isalpha())) and j + 1 < n \
                and j + 1 not in ct.clause_starts and _name_like(tokens[j + 1], blocked) \
                and not (len(tok) == 1 and _mark_after(tokens, j + 1) > j + 1):   # "O stroke": a letter's mark
            if len(tok) == 1 and tok.isalpha() and tok not in NAME_PARTICLES:
                j += 1  # a middle initial: "Jane Q Doe"
                continue
            parts.append(tok)
            words.append(tok)
            j += 1
            continue
        if not _name_like(tok, blocked) and not (parts and _article_ending_clause(ct, j)) \
                and not _article_as_given_name(ct, j, blocked):
            break
        if not parts and _NOT_NAME_SUFFIX.search(tok) and len(tok) >= 6 and tok not in NAME_WORDS \
                and not _stands_as_a_name(ct, j, blocked):
            break
        if parts and tok == parts[-1]:
            j += 1   # a name word said again at once is the caller starting over ("it's Jane... Jane Doe")
            continue
        parts.append(tok)
        words.append(tok)
        j += 1
    if not parts:
        return None
    return _Run(tuple(parts), i, j, all(_ambiguous(w) for w in words))


def _stands_as_a_name(ct: CallerText, j: int, blocked: frozenset[str]) -> bool:
    """A word with an ordinary word's ending ("-ing", "-ly") that still stands as a name: the whole answer, or
    followed in its clause by a clear name word (a given name ending in "-ing" before a surname). An ordinary word
    with that ending is followed by more of the sentence ("wondering if", "hoping to")."""
    tokens = ct.tokens
    nxt = j + 1
    while nxt < len(tokens) and tokens[nxt] in _TRAILING_POLITE and nxt not in ct.clause_starts:
        nxt += 1
    if nxt >= len(tokens) or nxt in ct.clause_starts:
        return True
    return _name_like(tokens[nxt], blocked) and not _ambiguous(tokens[nxt])


def _article_ending_clause(ct: CallerText, j: int) -> bool:
    """An article never ends a clause, so one ending it after name words is a name ("Jane Doe an")."""
    end = j + 1
    return ct.tokens[j] in _ARTICLES and (end >= len(ct.tokens) or end in ct.clause_starts)


# Articles that are also given names (Vietnamese "An"): read as a name only where an article cannot stand.
_GIVEN_NAME_ARTICLES = frozenset({"an"})


def _article_as_given_name(ct: CallerText, j: int, blocked: frozenset[str]) -> bool:
    """An article that ends its clause, or comes before one name word that ends it ("An" and a surname), is a
    given name: an article always has a noun phrase after it, so "an unusual one" stays ordinary words."""
    tokens = ct.tokens
    if tokens[j] not in _GIVEN_NAME_ARTICLES:
        return False

    def ends_clause(k: int) -> bool:
        return k >= len(tokens) or k in ct.clause_starts or tokens[k] in _TRAILING_POLITE

    if ends_clause(j + 1):
        return True
    nxt = j + 1
    return _name_like(tokens[nxt], blocked) and not _ambiguous(tokens[nxt]) and ends_clause(nxt + 1)


def _person(parts: tuple[str, ...], single: str) -> PersonName:
    """A name from its words: the surname is the last word (with any particle before it: "van der Doe",
    "Ní Roe"), and every word before it is a given name ("Mary Jane"), kept as said."""
    if len(parts) == 1:
        word = title_case(parts[0])
        return PersonName(first=word, last=None) if single == "first" else PersonName(first=None, last=word)
    rest = parts[1:]
    particle = next((k for k, p in enumerate(rest) if p in NAME_PARTICLES), None)
    surname_at = 1 + particle if particle is not None and particle < len(rest) - 1 else len(parts) - 1
    first = " ".join(title_case(p) for p in parts[:surname_at])
    last = " ".join(title_case(p) for p in parts[surname_at:])
    return PersonName(first=first, last=last)


def _merge(a: PersonName | None, b: PersonName | None) -> PersonName | None:
    if a is None:
        return b
    if b is None:
        return a
    return PersonName(first=a.first or b.first, last=a.last or b.last)


def _single_part(name_part: str | None) -> str:
    return "last" if name_part == "last" else "first"


def _clause_end_after(ct: CallerText, run: _Run) -> bool:
    return run.end >= len(ct.tokens) or run.end in ct.clause_starts or ct.tokens[run.end] in _AFTER_WEAK_NAME


def find_name(
    ct: CallerText,
    name_part: str | None,
    spelled: list[Spelled],
    blocked: frozenset[str] = frozenset(),
) -> PersonName | None:
    """`name_part`: the part of a name just asked for (None: no name was asked for).
    `blocked`: words of the clinic's services and places, never a name."""
    found = _find_name(ct, name_part, spelled, blocked)
    if name_part is None:
        return found
    return _said_again(ct, name_part, spelled, blocked) or found


# what a caller says between a name and the name said right ("Jane Doe, sorry, no, it's Roe")
_SAID_AGAIN_SKIP = TAKE_BACK_WORDS | {"i", "mean", "it", "is", "that", "should", "be", "um", "uh", "er", "erm",
                                       "oh", "my", "the", "surname", "last", "first", "name", "was", "its", "well"}


def _said_again(ct: CallerText, name_part: str, spelled: list[Spelled], blocked: frozenset[str]
                ) -> PersonName | None:
    """A name said and then said right in the same answer, where a name was asked for: "Jane Doe, no sorry,
    Jane Roe" is Jane Roe; "Jane Doe, sorry, no, it's Roe" keeps the given name and takes the surname said
    after (one name word said again replaces the part of the name it is most like). None where the answer
    holds no name taken back."""
    tokens = ct.tokens
    # ... or "well" after a pause: a short given name, then "well," and the whole name as it is on the forms
    marks = [k for k, tok in enumerate(tokens)
             if k > 0 and (tok in TAKE_BACK_WORDS or (tok == "well" and k in ct.clause_starts))]
    for mark in reversed(marks):
        at = mark
        while at < len(tokens) and tokens[at] in _SAID_AGAIN_SKIP:
            at += 1
        later = _read_run(ct, at, blocked) if at < len(tokens) else None
        if later is None or later.ambiguous:
            continue
        whole = _last_whole_name_after(ct, later.end, blocked)
        if len(later.parts) < 2 and whole is not None:
            later = whole   # "Doe, oh sorry, no, it's Roe now, Jane Roe": the whole name said last
        start = mark
        while start > 0 and tokens[start - 1] in _SAID_AGAIN_SKIP:
            start -= 1
        before = normalise(" ".join(tokens[:start])) if start else None
        earlier = _find_name(before, name_part, [], blocked) if before is not None and before.tokens else None
        if earlier is None or not (earlier.first or earlier.last):
            return None
        parts = [title_case(p) for p in later.parts]
        if len(parts) >= 2:
            said = PersonName(first=parts[0], last=" ".join(parts[1:]))
        elif earlier.first and earlier.last:
            word = parts[0]
            like_first = fuzz.ratio(fold_name(word), fold_name(earlier.first))
            like_last = fuzz.ratio(fold_name(word), fold_name(earlier.last))
            said = PersonName(first=word, last=earlier.last) if like_first > like_last \
                else PersonName(first=earlier.first, last=word)
        else:
            return None
        return _respell(said, ct, spelled)
    return None


def _last_whole_name_after(ct: CallerText, k: int, blocked: frozenset[str]) -> "_Run | None":
    """The last run of two name words or more starting at a clause after token k, if any."""
    found = None
    for start in sorted(s for s in ct.clause_starts if s >= k):
        run = _read_run(ct, start, blocked)
        if run is not None and not run.ambiguous and len(run.parts) >= 2:
            found = run
    return found


def _find_name(
    ct: CallerText,
    name_part: str | None,
    spelled: list[Spelled],
    blocked: frozenset[str] = frozenset(),
) -> PersonName | None:
    text = ct.text
    found: PersonName | None = None

    # Each marker is looked for only where the words it needs are said.
    named = "name" in text
    for marker, part in ((_FIRST_MARKER, "first"), (_LAST_MARKER, "last")):
        for m in (marker.finditer(text) if named else ()):
            at = _token_after(ct, m.end())
            run = _read_run(ct, at, blocked, limit=3 if part == "last" else 1)
            if run is None:
                # "the first name is wrong, it's Kris": the name comes a few words on
                later = _RESTATED.search(text, m.end(), m.end() + 40)
                if later is not None:
                    run = _read_run(ct, _token_after(ct, later.end()), blocked, limit=3 if part == "last" else 1)
            if run is None:
                spelled_here = next((s for s in spelled if s.start == at), None)
                if spelled_here is not None:
                    found = _merge(found, _person((spelled_here.letters.lower(),), part))
                continue
            word = " ".join(title_case(p) for p in run.parts)
            found = _merge(found, PersonName(first=word, last=None) if part == "first"
                           else PersonName(first=None, last=word))
    if found is not None:
        return _respell(found, ct, spelled)

    for m in (_FULL_MARKER.finditer(text) if named or "put " in text else ()):
        at = _token_after(ct, m.end())
        run = _read_run(ct, at, blocked)
        if run is not None:
            if name_part in (None, "full"):
                reversed_name = _surname_then_given(ct, run, blocked, spelled)
                if reversed_name is not None:
                    return reversed_name
            return _respell(_person(run.parts, _single_part(name_part)), ct, spelled)

    for m in (_WEAK_MARKER.finditer(text) if " is" in text or "i am" in text or "i meant" in text else ()):
        at = _token_after(ct, m.end())
        run = _read_run(ct, at, blocked)
        if run is None and name_part == "full":
            surname = _surname_after_an_ordinary_word(ct, at, blocked)
            if surname is not None:
                return surname
        if run is None or run.ambiguous:
            continue
        phrase = m.group(0)
        if phrase == "it is" and name_part is None and len(run.parts) < 2:
            continue
        if name_part in (None, "full"):
            reversed_name = _surname_then_given(ct, run, blocked, spelled)
            if reversed_name is not None:
                return reversed_name
        if not _clause_end_after(ct, run):
            continue
        if phrase == "i am" and len(run.parts) < 2 and name_part is None and not _greeted(ct, m.start()) \
                and (run.end < len(ct.tokens) and ct.tokens[run.end] not in _INTRODUCING
                     or run.end == len(ct.tokens) and not is_listed_name(run.parts[0])):
            # "I'm outside", "I'm Jane calling": only the second is surely a name; and unasked, one word that
            # ends the answer is a name only where people have it ("..., I'm Jane", not "..., I'm flexible")
            continue
        return _respell(_person(run.parts, _single_part(name_part)), ct, spelled)

    speaking = not ct.words.isdisjoint(_SPEAKING)
    for k, tok in enumerate(ct.tokens if speaking else ()):
        if tok in _SPEAKING and k > 0:
            s = k
            while s > 0 and _name_like(ct.tokens[s - 1], blocked) and s not in ct.clause_starts:
                s -= 1
            lead_ok = s in ct.clause_starts or ct.tokens[s - 1] in _LEAD_BEFORE_SPEAKING
            run = _read_run(ct, s, blocked) if s < k else None
            if run is not None and run.end == k and lead_ok and not run.ambiguous:
                return _respell(_person(run.parts, _single_part(name_part)), ct, spelled)

    if name_part is not None:
        return _bare_name(ct, name_part, spelled, blocked)
    return None


# how many common words a given name the transcriber did not know may be written as (three syllables as
# "all of you")
_ORDINARY_WORDS_FOR_A_GIVEN_NAME = 3
_NOT_THE_NAME = frozenset({"not", "no", "never", "without", "instead", "rather", "nor", "than"})


def _surname_after_an_ordinary_word(ct: CallerText, at: int, blocked: frozenset[str]) -> PersonName | None:
    """The surname alone, where the full name was asked for and the answer is one to three ordinary words then
    one clear name word that ends it ("it's been Doe", "it's just Doe", "it's all of you Doe"): speech-to-text
    writes a given name it does not know as common words, and the surname it heard is kept (the given name is
    asked for on its own)."""
    tokens = ct.tokens
    if at >= len(tokens) or at in ct.clause_starts and at > 0:
        return None
    nxt = at
    while nxt < len(tokens) and nxt - at < _ORDINARY_WORDS_FOR_A_GIVEN_NAME and not _name_like(tokens[nxt], blocked):
        if tokens[nxt] not in STOP_WORDS or len(tokens[nxt]) < 2 or tokens[nxt] in _NOT_THE_NAME \
                or (nxt > at and nxt in ct.clause_starts):   # "it's not Doe": the name denied, never given
            return None
        nxt += 1
    if nxt == at or nxt >= len(tokens) or nxt in ct.clause_starts or not _name_like(tokens[nxt], blocked):
        return None
    end = nxt + 1
    while end < len(tokens) and tokens[end] in _TRAILING_POLITE and end not in ct.clause_starts:
        end += 1
    if end < len(tokens) and end not in ct.clause_starts:
        return None
    return PersonName(first=None, last=title_case(tokens[nxt]))


def _token_after(ct: CallerText, char_end: int) -> int:
    for k, off in enumerate(ct.offsets):
        if off >= char_end:
            return k
    return len(ct.tokens)


def _bare_name(ct: CallerText, name_part: str, spelled: list[Spelled], blocked: frozenset[str]) -> PersonName | None:
    tokens = ct.tokens
    n = len(tokens)
    i = 0
    while i < n and (tokens[i] in _BARE_SKIP or tokens[i] in _MODALS and i > 0 and tokens[i - 1] in _SUBJECTS):
        i += 1
    run = _read_run(ct, i, blocked) if i < n else None
    if run is None and name_part in ("full", "spelling"):
        # "booking for Jane Doe", "it's under Jane Doe": a clear full name further on
        for k in range(i + 1, n):
            if tokens[k - 1] not in _BEFORE_LATER_NAME and k not in ct.clause_starts:
                continue
            later = _read_run(ct, k, blocked)
            if later is not None and len(later.parts) >= 2 and not later.ambiguous:
                return _respell(_person(later.parts, "first"), ct, spelled)
    if run is None:
        if spelled:
            return _from_letters(spelled, name_part, ct)
        return None
    rest = [t for t in tokens[run.end:] if t not in _TRAILING_POLITE]
    whole = not rest
    surname = _surname_after_bent_words(ct, run, name_part, spelled, blocked)
    if surname is not None:
        return _respell(PersonName(first=title_case(run.parts[0]), last=surname), ct, spelled)
    if name_part == "full":
        reversed_name = _surname_then_given(ct, run, blocked, spelled)
        if reversed_name is not None:
            return reversed_name
    if run.ambiguous and not whole:
        return _from_letters(spelled, name_part, ct) if spelled else None
    if name_part == "spelling" and len(run.parts) == 1:
        return None  # one word spelled: the engine knows which part it asked to have spelled
    single = _single_part(name_part)
    if len(run.parts) == 1 and name_part == "full" and spelled and _spells(spelled[0].letters, run.parts[0]):
        single = "last"  # "Smyth, S M Y T H": people spell their surname
    return _respell(_person(run.parts, single), ct, spelled)


def _surname_then_given(ct: CallerText, run: _Run, blocked: frozenset[str],
                        spelled: list[Spelled]) -> PersonName | None:
    """"Doe, Jane" or "van der Doe, Anna": a surname (one word, or words led by a particle, which never starts a
    given name), then the given names after a pause, ending the answer; or, where the name lists say so, a given
    name and a surname with a pause between ("Arjun, Banerjee"). None where `run` is neither."""
    tokens = ct.tokens
    if not (len(run.parts) == 1 or run.parts[0] in NAME_PARTICLES) or run.end >= len(tokens) \
            or run.end not in ct.clause_starts:
        return None
    second = _read_run(ct, run.end, blocked)
    # the given names after the pause: one, or two ("Roe, Jane Ann"), never the surname again
    if second is None or len(second.parts) > 2 or len(second.parts) == 2 and len(run.parts) > 1 \
            or run.parts[0] in second.parts or any(s.start == run.end for s in spelled):
        return None
    if [t for t in tokens[second.end:] if t not in _TRAILING_POLITE]:
        return None
    # a particle leads a surname: one alone, ending the answer, is a given name ("Ben", "Del", "Van")
    lone_particle = len(second.parts) == 1 and second.parts[0] in NAME_PARTICLES and len(second.parts[0]) >= 3
    if run.ambiguous and second.ambiguous and not lone_particle:
        return None
    given, surname = second, run
    if given_name_first(" ".join(run.parts), " ".join(second.parts)):
        given, surname = run, second   # a pause between a given name and a surname ("Arjun, Banerjee")
    return PersonName(first=" ".join(title_case(p) for p in given.parts),
                      last=" ".join(title_case(p) for p in surname.parts))


def _surname_after_bent_words(ct: CallerText, run: _Run, name_part: str, spelled: list[Spelled],
                              blocked: frozenset[str]) -> str | None:
    """A surname said after a first name bent into ordinary words: speech to text bends a first name into
    small words far more often than a surname, so a lone name word ending a full-name answer, one or two
    small words after the first name word, is the surname. The lookup compares it with the record."""
    tokens = ct.tokens
    last = len(tokens) - 1
    between = tokens[run.end:last]
    if name_part != "full" or len(run.parts) != 1 or not 1 <= len(between) <= 2 \
            or not all((t in STOP_WORDS or t in _TRAILING_POLITE) and t not in _LISTING for t in between) \
            or any(s.start == last for s in spelled):
        return None
    tail = _read_run(ct, last, blocked, limit=1)
    return title_case(tail.parts[0]) if tail is not None and not tail.ambiguous else None


def _from_letters(spelled: list[Spelled], name_part: str, ct: CallerText | None = None) -> PersonName | None:
    """A name from letters alone: the part asked for; with two runs, first
    and last; one run while asked to spell (which part is the engine's to
    know) gives no name, only `spelled`. A word said beside the letters that they spell without its accents
    ("L E, Lê") is kept as said."""
    def word(s: Spelled) -> str:
        if ct is not None:
            for tok in ct.tokens:
                if not tok.isascii() and anyascii(tok).lower() == s.letters.lower():
                    return title_case(tok)
        return title_case(s.letters.lower())

    if name_part == "first":
        return PersonName(first=word(spelled[0]), last=None)
    if name_part == "last":
        return PersonName(first=None, last=word(spelled[-1]))
    if len(spelled) >= 2:
        return PersonName(first=word(spelled[0]), last=word(spelled[-1]))
    if name_part == "full":
        return PersonName(first=None, last=word(spelled[0]))
    return None


def _spells(letters: str, word: str) -> bool:
    letters, word = letters.lower(), anyascii(word.replace("-", "").replace("'", "")).lower()
    if letters == word:
        return True
    return letters[:1] == word[:1] and fuzz.ratio(letters, word) >= 60


def _respell(name: PersonName, ct: CallerText, spelled: list[Spelled]) -> PersonName:
    """Letters the caller spelled win over the recogniser's guess at the word;
    a name written with inner capitals ("McAdam", "DeAngelo") keeps them."""
    first, last = name.first, name.last
    for s in spelled:
        if last and _spells(s.letters, last.lower()):
            last = _spelled_or_said(s.letters, last)
        elif first and _spells(s.letters, first.lower()):
            first = _spelled_or_said(s.letters, first)
    return PersonName(first=_as_written(first, ct.raw), last=_as_written(last, ct.raw))


def _spelled_or_said(letters: str, said: str) -> str:
    """The spelled letters, or the word as said where the letters are that word without its accents or script
    ("L E" for "Lê", "O D E G A A R D" for "Ødegaard"): a caller spells in the letters a phone keypad has."""
    if anyascii(said).lower().replace(" ", "") == letters.lower():
        return said
    return title_case(letters.lower())


def _written(word: str, raw: str) -> str | None:
    """The first whole-word (not inside a word or after an apostrophe) case-blind
    occurrence of `word` in `raw`, as written there. Plain text is searched
    as is: compiling a pattern per name costs more than the whole rest of a line."""
    if not (raw.isascii() and word.isascii()):
        m = re.search(rf"(?<![\w']){re.escape(word)}(?![\w'])", raw, re.IGNORECASE)
        return None if m is None else m.group(0)
    lowered, wanted = raw.lower(), word.lower()
    at = lowered.find(wanted)
    while at >= 0:
        end = at + len(wanted)
        if not (at > 0 and _word_char(lowered[at - 1])) and not (end < len(lowered) and _word_char(lowered[end])):
            return raw[at:end]
        at = lowered.find(wanted, at + 1)
    return None


def _word_char(char: str) -> bool:
    return char.isalnum() or char in "_'"


def _as_written(word: str | None, raw: str) -> str | None:
    if word is None or " " in word or raw.islower() or raw.isupper():
        return word
    said = _written(word, raw)
    if said is None:
        return word
    if said[:1].isupper() and not said.isupper() and said[1:] != said[1:].lower():
        return said
    return word
