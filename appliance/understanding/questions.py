"""What the agent can ask the caller, each question declared once (config/flows/questions.yaml).

A question is what a waiting state's `waiting_for` names. Its declaration owns
everything that depends on what was just asked:

- `expects`: the kinds of answer it asks for. These are read from a bare
  answer ("Jane Doe" as a name, "0412 345 678" as a phone number, "the
  second street one" as a site); anything else the caller adds is still taken when it
  is marked ("my number is ...", "at the Second Street clinic");
- `personal`: the answer is about the person (a name, a date of birth, a
  number), so no time window and no loose catalogue match is read from it;
- `name_part`: which part of a name a name question asks for;
- `answered_by`: what, once taken from the turn, answers it;
- `stt_prompt`: what the speech-to-text engine is told to expect (absent:
  the clinic's own names);
- `patience_s`: quiet that must follow before the turn ends, for answers
  people give in groups with pauses (digits, dates, spellings);
- `keypad`: what keypad digits mean here;
- `short_answers`: whole answers that settle it ("yep", "nah");
- `yes_rivals`: at a read-back, what a yes scored against the audio must clearly beat (negated yeses
  "incorrect", fillers "uh", questions "sorry?"), in groups; the voice layer's answer scoring reads them;
- `repairs`: known speech-to-text confusions, each with the context it applies
  in, undone before the words are read ("well" between digits is an "oh");
- `status_by_answer`: what a bare yes or no here says of the caller, new or
  returning ("have you been to us before?" answered "yep").

The understanding rules ask a question what it expects or what kind it is,
never its name; the voice layer asks it for its prompt and patience. Adding a
question is one declaration (plus an extractor, `extractors.py`, when it asks
for a new kind of answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

import jellyfish
import regex
from anyascii import anyascii
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from rapidfuzz import fuzz

from ..yaml_files import read_yaml
from .calendar_phrases import valid_date
from .common_words import STOP_WORDS
from .normalise import normalise
from .spoken_numbers import day_ordinal

# The kinds of answer understanding can read. `extractors.py` may register more.
BUILT_IN_KINDS = frozenset({
    "task",          # what the caller wants done (an open question)
    "more",          # whether the caller needs anything more ("no, that's all")
    "confirmation",  # yes or no to what was just read back
    "name", "spelling", "dob", "phone",
    "service", "location", "practitioner",
    "window",        # a day or time the caller would like
    "slot",          # a pick among the slots just offered
    "booking",       # a pick among the caller's own appointments
    "message",       # free words to pass on
})

# What a turn can fill that answers a question (absorb.py checks each)
ANSWER_FACTS = frozenset({
    "task", "yes", "no", "full_name", "first_name", "last_name", "a_name", "dob", "phone", "service",
    "location", "practitioner", "window", "slot", "booking", "message", "status",
})

NamePart = Literal["full", "first", "last", "spelling"]
Keypad = Literal["words", "number", "date"]


class QuestionError(ValueError):
    """The question declarations are wrong; the message names the file and the key."""


# ---------------------------------------------------------------- repairs

@dataclass(frozen=True)
class RepairContext:
    """Where a repair applies, around one match in the transcript."""

    name: str
    doc: str
    # (lower-cased text, match, scene) -> applies here; the scene is the moment it was said (a ListenContext:
    # `now`, `offered_slots`)
    holds: Callable[[str, Any, Any], bool]


_DIGIT_WORD = r"(?:\d|\b(?:oh|o|zero|nought|naught|well|one|two|three|four|five|six|seven|eight|nine)\b)"
_BEFORE_DIGIT = regex.compile(_DIGIT_WORD + r"[\s,.\-]*$")
_AFTER_DIGIT = regex.compile(r"^[\s,.\-]*(?:" + _DIGIT_WORD + r"|$)")
_NUMBER_BEFORE = regex.compile(r"\d(?:st|nd|rd|th)?[\s,.\-]*$")
_NUMBER_AFTER = regex.compile(r"^[\s,.\-]*\d")
_OWNER_BEFORE = regex.compile(r"\b(?:the|my|your|our|her|his|a|their) $")
_TIME_OF_DAY_AFTER = regex.compile(
    r"^\s*(?:$|[,.?!]|morning|afternoon|evening|arvo|at\b|after\b|before\b|around\b|please\b)")
_ANSWER_FILLER = regex.compile(r"^[\s,.!?\-]*(?:(?:um+|uh+|er+|erm|oh|ah|well)[\s,.!?\-]+)*")
_ANSWER_TAIL = regex.compile(r"^[\s,.!?\-]*(?:(?:please|thanks|thank you)[\s,.!?\-]*)?$")
_TOKEN_CHARS = regex.compile(r"[\w']*")
_OLDEST_CALLER = 105  # years: older than this is no caller's date of birth


def _among_digits(text: str, m: Any, scene: Any) -> bool:
    return bool(_BEFORE_DIGIT.search(text[:m.start()]) and _AFTER_DIGIT.search(text[m.end():]))


def _between_numbers(text: str, m: Any, scene: Any) -> bool:
    return bool(_NUMBER_BEFORE.search(text[:m.start()]) and _NUMBER_AFTER.search(text[m.end():]))


def _inside_digit_group(text: str, m: Any, scene: Any) -> bool:
    start = m.start() - len(_TOKEN_CHARS.search(text[:m.start()][::-1]).group(0))
    end = m.end() + len(_TOKEN_CHARS.match(text, m.end()).group(0))
    token = text[start:end]
    return len(token) >= 3 and any(ch.isdigit() for ch in token) and not any(
        ch.isalpha() and ch not in "olw" for ch in token)


def _before_time_of_day(text: str, m: Any, scene: Any) -> bool:
    return not _OWNER_BEFORE.search(text[:m.start()]) and bool(_TIME_OF_DAY_AFTER.match(text[m.end():]))


_HOUR_AFTER = regex.compile(r"^[\s,.\-]*(?:1[0-2]|0?[1-9]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                            r"twelve|noon|midday)\b")


def _before_a_digit(text: str, m: Any, scene: Any) -> bool:
    return bool(_AFTER_DIGIT.search(text[m.end():])) and m.end() < len(text.rstrip(" ,.-"))


def _before_an_hour(text: str, m: Any, scene: Any) -> bool:
    return bool(_HOUR_AFTER.match(text[m.end():]))


def _whole_answer(text: str, m: Any, scene: Any) -> bool:
    head = _ANSWER_FILLER.match(text).end()
    return m.start() <= head < m.end() and bool(_ANSWER_TAIL.match(text[m.end():]))


def _implausible_birth_year(text: str, m: Any, scene: Any) -> bool:
    digits = "".join(ch for ch in m.group(0) if ch.isdigit())
    if len(digits) == 4:
        return scene.now.year - int(digits) > _OLDEST_CALLER or int(digits) > scene.now.year
    return True  # a year in words: the repair's pattern names only years too old for any caller


def _not_an_offered_time(text: str, m: Any, scene: Any) -> bool:
    """The time heard (its last two digits the minutes, those before them the hour) is none of the times just
    offered, while times were offered: a pick the caller cannot have meant as heard."""
    digits = "".join(ch for ch in m.group(0) if ch.isdigit())
    slots = getattr(scene, "offered_slots", ())
    if len(digits) < 3 or not slots:
        return False
    hour, minute = int(digits[:-2]), int(digits[-2:])
    return not any(s.start.minute == minute and s.start.hour % 12 == hour % 12 for s in slots)


# how alike (rapidfuzz ratio) a name's letters and the bent word written for it are at least ("Eyer, IYER": 75)
SPELLED_LIKE_THE_WORD = 70
_WORD_BEFORE = regex.compile(r"([^\W\d_][\w']*)[\s,.\-]*$")


def _spells_the_word_before(text: str, m: Any, scene: Any) -> bool:
    """The letters matched are those of the word just before them, accents and case aside ("Doé, DOE"), or
    of a name that sounds like it (the Match Rating Approach): a name corrected is said, then spelled because it
    was misheard, and the word written for it may be bent ("Eyer, IYER")."""
    before = _WORD_BEFORE.search(text[:m.start()])
    letters = "".join(ch for ch in m.group(0) if ch.isalpha())
    if before is None or len(letters) < 2:
        return False
    word = "".join(ch for ch in anyascii(before.group(1)) if ch.isalpha())
    if word.upper() == letters.upper():
        return True
    # the sound comparison alone is loose on short words ("this, NHS"): the letters must also be mostly the word's
    return (len(letters) >= 3 and bool(jellyfish.match_rating_comparison(word, letters))
            and fuzz.ratio(word.upper(), letters.upper()) >= SPELLED_LIKE_THE_WORD)


_WORD_AFTER = regex.compile(r"^[\s,.\-]*([^\W\d_][\w']*)")


def _not_said_as_a_word_beside(text: str, m: Any, scene: Any) -> bool:
    """Letters that are not also said as the word they spell, just before or after them ("D-A-W-I-T, Dawit"): a
    caller who says the name beside its letters has said it twice the same way, and neither was misheard."""
    letters = "".join(ch for ch in m.group(0) if ch.isalpha()).upper()
    near = [_WORD_BEFORE.search(text[:m.start()]), _WORD_AFTER.match(text[m.end():])]
    return not any(w is not None and "".join(ch for ch in anyascii(w.group(1)) if ch.isalpha()).upper() == letters
                   for w in near)


def _digit_groups_as_slashed_date(heard: str) -> str:
    """`_digit_groups_as_date`, with a date already in three groups written with slashes too ("13-03-51"): where
    a number is asked, digits in groups are otherwise read as the number."""
    read = _digit_groups_as_date(heard)
    groups = regex.findall(r"\d+", read)
    return read if "/" in read or len(groups) != 3 else "/".join(groups)


def _a_date_after_a_correction(text: str, m: Any, scene: Any) -> bool:
    """Digits that make a whole date, said after words that take an earlier answer back ("sorry, I got that
    wrong, it's 13-0-3-51"): the caller is correcting the date of birth, whatever was asked since."""
    from .yes_no import takes_back   # yes_no reads Question from here

    date_said = regex.fullmatch(r"(\d{1,2})/(\d{1,2})/(\d\d|\d{4})", _digit_groups_as_slashed_date(m.group(0)))
    if date_said is None or not takes_back(tuple(normalise(text[:m.start()]).tokens)):
        return False
    a, b, year = (int(g) for g in date_said.groups())
    year += 1900 if year < 100 else 0   # only whether such a day exists: the century is the parser's to settle
    return bool(valid_date(year, b, a) or valid_date(year, a, b))


_NAME_WORD_BEFORE = regex.compile(r"(?<![\w'])(\p{Lu}[\w'\-]*) $")
_NAME_WORD_AFTER = regex.compile(r"^ (\p{Lu}[\w'\-]*)(?![\w'])")


def _between_name_words(text: str, m: Any, scene: Any) -> bool:
    """Between two words written as names, with no pause on either side ("Roe and Doe"): a short syllable
    of a name ("An", "Ann") is written as the word it sounds like, where a caller giving their name would
    not join two names with "and". Not before a name only ever given ("Doe and Jerry" is two people)."""
    from .name_list import only_a_given_name   # the name lists load on first use, not when questions are read

    before, after = _NAME_WORD_BEFORE.search(text[:m.start()]), _NAME_WORD_AFTER.match(text[m.end():])
    return (before is not None and after is not None and m.group(0).islower()
            and not {before.group(1).lower(), after.group(1).lower()} & STOP_WORDS
            and not only_a_given_name(after.group(1)))


# Letters a spelling's words may be heard as, over the phone: "N U" written "and you", "R" written "our"
LETTER_SOUNDS = {"and": "N", "an": "N", "in": "N", "you": "U", "are": "R", "our": "R"}
_SOUND_WORDS = "|".join(LETTER_SOUNDS)
# what may open a spelling: the start, a pause (a mark), a letter, another such word, or the words callers put
# before letters ("it's", "that's", "spelt", "okay", "sure")
_OPENS_A_SPELLING = regex.compile(
    rf"(?:^|[,.:;!?\-]|(?<![\w'])(?:[a-z]|{_SOUND_WORDS}|it's|its|that's|thats|spelt|spelled|okay|ok|sure|yes|yeah))"
    r"[\s,.\-]*$", regex.IGNORECASE)
# ... and what must follow it: more such words, then two letters said one by one
_LETTERS_FOLLOW = regex.compile(rf"^(?:[\s,.\-]+(?:{_SOUND_WORDS}))*[\s,.\-]+[a-z](?![\w'])[\s,.\-]+[a-z](?![\w'])",
                                regex.IGNORECASE)


_SOUND_WORD_BEFORE = regex.compile(rf"(?<![\w'])(?:{_SOUND_WORDS})[\s,.\-]*$", regex.IGNORECASE)
_SOUND_WORD_AFTER = regex.compile(rf"^[\s,.\-]*(?:{_SOUND_WORDS})(?![\w'])", regex.IGNORECASE)
# words that join things as often as they sound like a letter: taken as the letter only beside another such word
# ("and you and E, C"), never alone before letters ("Yes, and S, M, I, T, H")
_CONNECTIVES = frozenset({"and", "an"})


def _sounds_a_letter_in_a_spelling(text: str, m: Any, scene: Any) -> bool:
    """The word opens or continues letters said one by one: "Okay, and you and E, C" for N U N E Z."""
    before, after = text[:m.start()], text[m.end():]
    if not (_OPENS_A_SPELLING.search(before) and _LETTERS_FOLLOW.match(after)):
        return False
    return m.group(0).lower() not in _CONNECTIVES or bool(_SOUND_WORD_BEFORE.search(before)
                                                          or _SOUND_WORD_AFTER.match(after))


REPAIR_CONTEXTS: dict[str, RepairContext] = {c.name: c for c in (
    RepairContext("anywhere", "wherever the question is asked", lambda text, m, scene: True),
    RepairContext("among_digits", "between digits (or ending a run of them)", _among_digits),
    RepairContext("between_numbers", "between two numbers", _between_numbers),
    RepairContext("inside_digit_group", "inside a group of digits written as one word", _inside_digit_group),
    RepairContext("before_time_of_day", "before a time of day or the end of the clause, and not after an "
                  "owner word ('my first day')", _before_time_of_day),
    RepairContext("before_a_digit", "just before a digit", _before_a_digit),
    RepairContext("before_an_hour", "just before an hour of the clock (a number up to twelve, noon)", _before_an_hour),
    RepairContext("whole_answer", "when it is the whole answer, apart from fillers and thanks", _whole_answer),
    RepairContext("implausible_birth_year", "a year of birth no caller could have", _implausible_birth_year),
    RepairContext("not_an_offered_time", "a time none of the slots just offered is at", _not_an_offered_time),
    RepairContext("spells_the_word_before", "letters that spell the word just before them, or a word "
                  "that sounds like them", _spells_the_word_before),
    RepairContext("not_said_as_a_word_beside", "letters not also said as the word they spell, just before or "
                  "after them", _not_said_as_a_word_beside),
    RepairContext("in_a_spelling", "opening or inside letters said one by one, two letters following",
                  _sounds_a_letter_in_a_spelling),
    RepairContext("between_name_words", "between two words written as names, with no pause either side",
                  _between_name_words),
    RepairContext("a_date_after_a_correction", "digits that make a whole date, after words that take an "
                  "earlier answer back", _a_date_after_a_correction),
)}


_TEENS = ("thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TIES = ("thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")

# Confusions a template cannot undo, named in a repair as `means: "@name"`
REPAIR_TRANSFORMS: dict[str, Callable[[str], str]] = {
    # an "oh" written as a letter inside a digit group: "o412", "07o0", "l770l", reduced: "a198"
    "letters_as_zero": lambda heard: regex.sub(r"[oO]'|[olwaOLWA]", "0", heard),
    # a date said as digit groups ("oh four, twenty-four, ninety-nine") written as one run of digits, or split
    # where the voice paused ("042499", "26-0392", "0 6-0 4-66"): two digits of day or month each, then the year
    "digit_groups_as_date": lambda heard: _digit_groups_as_date(heard),
    # the same where a number is asked, three groups apart written with slashes too ("13-03-51")
    "digit_groups_as_slashed_date": lambda heard: _digit_groups_as_slashed_date(heard),
    # a date said with slashes, the slashes written as a word ("flash", "flesh", "slash"), each part as one
    # number or its digits apart ("10 flash 0 7 flash 93"): day/month/year
    "slashes_as_date": lambda heard: "/".join(
        "".join(ch for ch in part if ch.isdigit()) for part in regex.split(r"(?i)[sf]?l[aeu]sh", heard)),
    # a day said as a word ("sixth", "twenty-one"), as its digits
    "number_word_as_digits": lambda heard: _number_word_digits(heard),
    # letters said one by one written as a group of capitals ("NW OSU" for N W O S U)
    "letters_apart": lambda heard: " ".join(heard),
    # a letter written as the word it sounds like (LETTER_SOUNDS): "and" for N
    "letter_for_its_sound": lambda heard: LETTER_SOUNDS.get(heard.lower(), heard),
    # letters written as a word, maybe broken by a hyphen where the voice paused ("LOP-EZ"): the letters alone
    "letters_only_apart": lambda heard: " ".join(ch for ch in heard if ch.isalpha()),
    # a spelling with one letter heard as another that sounds alike on the phone (an S heard as F, an N as M),
    # where that one other letter makes a name people have and the letters as heard do not
    "listed_name_letters": lambda heard: _listed_name_letters(heard),
    # a "-teen" year heard for the "-ty" one: 1917 -> 1970, "nineteen seventeen" -> "nineteen seventy"
    "teen_as_ty": lambda heard: regex.sub(
        r"1([3-9])$|(" + "|".join(_TEENS) + r")$",
        lambda m: f"{m.group(1)}0" if m.group(1) else _TIES[_TEENS.index(m.group(2).lower())], heard),
}


def _number_word_digits(heard: str) -> str:
    tokens = tuple(heard.lower().replace("-", " ").split())
    day = day_ordinal(tokens, 0, allow_cardinal=True)
    return str(day[0]) if day is not None and day[1] == len(tokens) else heard


# letters that sound alike over a telephone line (G.711 keeps nothing above 4 kHz, where "S" and "F", or
# the "ee" letters, differ): a spelled letter may have been heard as any other of its group
PHONE_ALIKE_LETTERS = ("SF", "MN", "BDPTVZCGE", "AJK", "IY", "QU")
_SPELLED_MIN = 4   # letters: a shorter spelling is too easily some name or other


def _listed_name_letters(heard: str) -> str:
    from .name_list import is_listed_name   # the name lists load on first use, not when questions are read
    from .names import said_once

    word = said_once("".join(ch for ch in heard if ch.isalpha()).upper())
    if len(word) < _SPELLED_MIN or is_listed_name(word):
        return heard
    alike = {word[:i] + other + word[i + 1:]
             for i, ch in enumerate(word) for group in PHONE_ALIKE_LETTERS if ch in group for other in group}
    listed = [name for name in alike - {word} if is_listed_name(name)]
    if len(listed) != 1:
        return heard   # none, or several alike: the letters as heard, for the read-back to settle
    return " ".join(listed[0])


def _digit_groups_as_date(heard: str) -> str:
    groups = regex.findall(r"\d+", heard)
    sizes = tuple(len(g) for g in groups)
    if len(groups) == 3 and (sizes[0] <= 2 and sizes[1] <= 2 and sizes[2] in (2, 4)
                             or sizes[0] == 4 and max(sizes[1:]) <= 2):
        # already day, month and year apart (or year first): read as said, but for a full stop the transcriber
        # put between them ("26. 11.66."), which reads as a sentence's end or a decimal point
        return "/".join(groups) if "." in heard else heard
    # otherwise the groups are where the transcriber broke the digits, not where the date's parts end
    # ("19 0 246" for "one nine oh two four six")
    digits = "".join(groups)
    if len(digits) == 7 and digits[3:5] in ("19", "20"):
        # a one-digit day or month beside a two-digit one, then the year ("189-1969" for 18/9/1969): only the
        # one way of splitting the three digits that makes a date (in either order) is taken
        year = int(digits[3:])
        splits = [(digits[:1], digits[1:3]), (digits[:2], digits[2:3])]
        dates = [f"{a}/{b}/{year}" for a, b in splits
                 if valid_date(year, int(a), int(b)) or valid_date(year, int(b), int(a))]
        return dates[0] if len(dates) == 1 else heard
    if len(digits) not in (6, 8):
        return heard
    return f"{digits[:2]}/{digits[2:4]}/{digits[4:]}"


@dataclass(frozen=True)
class Repair:
    """One known confusion: `heard` (a pattern, matched case-insensitively as whole words) means `means`
    (a replacement, or "@transform"), but only `where` the context holds."""

    heard: str
    means: str
    where: str
    why: str = ""
    pattern: Any = field(default=None, compare=False, repr=False)

    def apply(self, text: str, scene: Any) -> str:
        context = REPAIR_CONTEXTS[self.where]
        out: list[str] = []
        last = 0
        for m in self.pattern.finditer(text):
            if context.holds(text, m, scene):
                out.append(text[last:m.start()])
                if self.means.startswith("@"):
                    out.append(REPAIR_TRANSFORMS[self.means[1:]](m.group(0)))
                else:
                    out.append(m.expand(self.means))
                last = m.end()
        if not out:
            return text
        out.append(text[last:])
        return "".join(out)


def compile_repair(heard: str, means: str, where: str, why: str = "") -> Repair:
    if where not in REPAIR_CONTEXTS:
        raise QuestionError(f"unknown repair context {where!r}: one of {', '.join(sorted(REPAIR_CONTEXTS))}")
    if means.startswith("@") and means[1:] not in REPAIR_TRANSFORMS:
        raise QuestionError(f"unknown transform {means!r}: one of "
                            f"{', '.join('@' + name for name in sorted(REPAIR_TRANSFORMS))}")
    try:
        pattern = regex.compile(r"(?<![\w'])(?:" + heard + r")(?![\w'])", regex.IGNORECASE)
    except regex.error as exc:
        raise QuestionError(f"repair {heard!r} -> {means!r}: {exc}") from None
    refs = [int(a or b) for a, b in regex.findall(r"\\g<(\d+)>|\\(\d+)", means)]
    if not means.startswith("@") and any(ref > pattern.groups for ref in refs):
        raise QuestionError(f"repair {heard!r} -> {means!r}: the replacement names a group the pattern lacks")
    return Repair(heard, means, where, why, pattern)


# ---------------------------------------------------------------- questions

@dataclass(frozen=True)
class Question:
    name: str
    expects: frozenset[str] = frozenset()
    personal: bool = False
    name_part: NamePart | None = None
    answered_by: frozenset[str] = frozenset()
    stt_prompt: str | None = None
    patience_s: float | None = None
    keypad: Keypad = "words"
    short_answers: tuple[tuple[str, tuple[str, ...]], ...] = ()   # (intent, whole answers, as understood)
    short_answer_phrases: tuple[tuple[str, tuple[str, ...]], ...] = ()   # (intent, whole answers, as written)
    repairs: tuple[Repair, ...] = ()
    yes_rivals: tuple[str, ...] = ()   # at a read-back: phrases that are no yes, however like one they sound
    asks: str = ""
    reported_as: str | None = None
    status_by_answer: tuple[tuple[str, str], ...] = ()   # (yes or no, "new" or "returning")

    @property
    def reported(self) -> str:
        """The name the engine reports it waits for: the scenario format's fixed answer names, so a question
        the format has no name for (a surname spelled, asked on its own) is answered as the format's nearest
        one ("spelling")."""
        return self.reported_as or self.name

    def wants(self, kind: str) -> bool:
        """Whether this question asks for `kind` of answer."""
        return kind in self.expects

    # Kinds of question the rules tell apart, each from what it expects.
    @property
    def open(self) -> bool:
        """An open question: the caller may say any task ("how can I help?", "anything else?")."""
        return "task" in self.expects

    @property
    def read_back(self) -> bool:
        """A yes or no to what was just read back."""
        return "confirmation" in self.expects

    @property
    def closing(self) -> bool:
        """"Anything more?": "that's it", "all good" and thanks close the call."""
        return "more" in self.expects

    @property
    def choosing(self) -> bool:
        """A pick among things just read out (slots, or the caller's appointments)."""
        return bool(self.expects & {"slot", "booking"})

    @property
    def names_practitioners(self) -> bool:
        """A practitioner's name alone counts here: asked for, or picking what they are attached to."""
        return "practitioner" in self.expects or self.choosing

    @property
    def numbers_expected(self) -> bool:
        """A lone "zero" is part of the answer, not the keypad's 0 for the front desk."""
        return bool(self.expects & {"phone", "dob", "slot"})

    @property
    def settling_a_booking(self) -> bool:
        """Times are being settled: "a later one" changes the time, it is no reschedule."""
        return bool(self.expects & {"slot", "window", "confirmation"})

    def short_answer(self, words: str) -> str | None:
        """The intent a whole answer (normalised words) settles, if it is one of the short answers."""
        for intent, answers in self.short_answers:
            if words in answers:
                return intent
        return None

    def repair(self, text: str, scene: Any, where: str | None = None) -> str:
        """The transcript with this question's known confusions undone, in the scene it was said in (a
        ListenContext: the clock, the slots just offered); `where`: only the repairs declared for that context."""
        for repair in self.repairs:
            if where is None or repair.where == where:
                text = repair.apply(text, scene)
        return text


# ---------------------------------------------------------------- the declarations file

class _RepairEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    heard: str
    means: str
    where: str = "anywhere"
    why: str = ""


class _QuestionEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    asks: str = ""
    expects: list[str] = Field(default_factory=list)
    personal: bool = False
    name_part: NamePart | None = None
    answered_by: list[str] = Field(default_factory=list)
    stt_prompt: str | None = None
    patience_s: float | None = Field(None, gt=0, le=5)
    keypad: Keypad = "words"
    short_answers: dict[str, list[str]] = Field(default_factory=dict)
    yes_rivals: dict[str, list[str]] = Field(default_factory=dict)
    repairs: list[_RepairEntry] = Field(default_factory=list)
    reported_as: str | None = None
    status_by_answer: dict[Literal["yes", "no"], Literal["new", "returning"]] = Field(default_factory=dict)

    @field_validator("repairs", mode="before")
    @classmethod
    def _groups_flattened(cls, value: Any) -> Any:
        """A named group of repairs (a YAML list anchored in one question) may be an item of another's list."""
        if not isinstance(value, list):
            return value
        flat: list[Any] = []
        for item in value:
            flat.extend(cls._groups_flattened(item) if isinstance(item, list) else [item])
        return flat

    @field_validator("answered_by", "expects", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("answered_by", "short_answers", "yes_rivals", "status_by_answer", mode="before")
    @classmethod
    def _yes_and_no_unquoted(cls, value: Any) -> Any:
        """YAML reads a bare yes or no as true or false: take them as the words they were."""
        word = {True: "yes", False: "no"}
        if isinstance(value, list):
            return [word.get(v, v) if isinstance(v, bool) else v for v in value]
        if isinstance(value, dict):
            return {word.get(k, k) if isinstance(k, bool) else k:
                    [word.get(v, v) if isinstance(v, bool) else v for v in vs] if isinstance(vs, list) else vs
                    for k, vs in value.items()}
        return value


def questions_from_mapping(data: Any, *, known_kinds: frozenset[str], source: str = "questions") -> dict[str, Question]:
    """Validated questions from the `questions:` mapping; QuestionError names the key of the first problem."""
    if not isinstance(data, dict) or not data:
        raise QuestionError(f"{source}: expected a mapping of question names to declarations")
    questions: dict[str, Question] = {}
    for name, body in data.items():
        where = f"{source}: questions.{name}"
        try:
            entry = _QuestionEntry.model_validate(body or {})
        except ValidationError as exc:
            first = exc.errors()[0]
            key = ".".join(str(part) for part in first["loc"])
            raise QuestionError(f"{where}.{key}: {first['msg']}") from None
        unknown = [k for k in entry.expects if k not in known_kinds]
        if unknown:
            raise QuestionError(f"{where}.expects: unknown kind {unknown[0]!r}: one of "
                                f"{', '.join(sorted(known_kinds))} (or register an extractor)")
        facts = ANSWER_FACTS | (known_kinds - BUILT_IN_KINDS)
        unknown = [f for f in entry.answered_by if f not in facts]
        if unknown:
            raise QuestionError(f"{where}.answered_by: unknown fact {unknown[0]!r}: one of {', '.join(sorted(facts))}")
        if entry.name_part is not None and "name" not in entry.expects:
            raise QuestionError(f"{where}.name_part: only a question that expects a name has a name part")
        bad_intent = [i for i in entry.short_answers if i not in ("yes", "no")]
        if bad_intent:
            raise QuestionError(f"{where}.short_answers: {bad_intent[0]!r}: short answers settle yes or no")
        if entry.yes_rivals and "confirmation" not in entry.expects:
            raise QuestionError(f"{where}.yes_rivals: only a read-back (a question that expects a confirmation) "
                                f"has yes rivals")
        for group, phrases in entry.yes_rivals.items():
            if not phrases or not all(p.strip() for p in phrases):
                raise QuestionError(f"{where}.yes_rivals.{group}: needs a list of phrases, none of them blank")
        repairs = []
        for k, r in enumerate(entry.repairs):
            try:
                repairs.append(compile_repair(r.heard, r.means, r.where, r.why))
            except QuestionError as exc:
                raise QuestionError(f"{where}.repairs[{k}]: {exc}") from None
        # short answers are compared as understanding reads the words
        short = tuple((intent, tuple(dict.fromkeys(normalise(a).text for a in answers)))
                      for intent, answers in entry.short_answers.items())
        phrases = tuple((intent, tuple(answers)) for intent, answers in entry.short_answers.items())
        questions[str(name)] = Question(
            name=str(name), expects=frozenset(entry.expects), personal=entry.personal, name_part=entry.name_part,
            answered_by=frozenset(entry.answered_by), stt_prompt=entry.stt_prompt, patience_s=entry.patience_s,
            keypad=entry.keypad, short_answers=short, short_answer_phrases=phrases, repairs=tuple(repairs),
            yes_rivals=tuple(dict.fromkeys(p.strip() for group in entry.yes_rivals.values() for p in group)),
            asks=entry.asks, reported_as=entry.reported_as, status_by_answer=tuple(entry.status_by_answer.items()),
        )
    for name, question in questions.items():
        if question.reported_as is not None and question.reported_as not in questions:
            raise QuestionError(f"{source}: questions.{name}.reported_as: {question.reported_as!r} is no declared "
                                f"question")
    if "none" not in questions:
        questions["none"] = Question("none", expects=frozenset({"more"}), asks="nothing: the call is ending")
    return questions


def read_questions(path: str | Path, *, known_kinds: frozenset[str]) -> dict[str, Question]:
    path = Path(path)
    data = read_yaml(path, what="the questions", error=QuestionError)
    if not isinstance(data, dict) or "questions" not in data:
        raise QuestionError(f"{path}: expected a `questions:` mapping")
    return questions_from_mapping(data["questions"], known_kinds=known_kinds, source=str(path))
