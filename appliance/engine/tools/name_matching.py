"""How a name heard on the phone is compared with a name on file.

Speech-to-text bends names (a first name into small words, a surname into a
word that sounds the same), and records keep names as they were given, in
any script. Names are compared as their letters only, with case and accents
folded ("Jané Dóe" and "Jane Doe" are the same letters), and surnames
also by sound (metaphone).
"""

from __future__ import annotations

import re

import jellyfish
from rapidfuzz import fuzz

from ...domain import PatientRecord, fold_name

# how alike a spoken name must be to the record, given an exact date of birth
NAME_MATCH_THRESHOLD = 85
# A patient on the caller's number with exactly the date of birth given may be
# identified by a name that only sounds close: speech-to-text splits and
# bends names far more than callers misspell them. Compared with spaces
# removed, so a moved word break costs nothing.
HEARD_NAME_THRESHOLD = 70
# A surname counts as heard when a word said for the name is this alike (a candidate only)
HEARD_SURNAME_THRESHOLD = 90


def letters(text: str) -> str:
    """A name as its letters only, folded as every name comparison is (`domain.fold_name`): spaces, hyphens and
    apostrophes cost nothing."""
    return "".join(ch for ch in fold_name(text) if ch.isalpha())


def name_score(on_file: str, heard: str) -> float:
    """0..100: how alike two single names are, compared as folded letters."""
    return fuzz.ratio(letters(on_file), letters(heard))


def given_name_score(on_file: str, heard: str) -> float:
    """0..100: how alike two given names are, where one may carry a middle name the other lacks ("Jane"
    on file, "Jane Ann" said)."""
    first_on_file, first_heard = on_file.split()[:1] or [""], heard.split()[:1] or [""]
    return max(name_score(on_file, heard), name_score(first_on_file[0], first_heard[0]))


# A whole name on file, said within the words given for the name, this alike (partial ratio on letters)
WHOLE_NAME_SAID_THRESHOLD = 95


def whole_name_said(patient: PatientRecord, heard: tuple[str, ...]) -> bool:
    """The record's whole name is in what the caller said for their name, whatever the word breaks: a double
    surname said without its hyphen ("O'Doe Roe") or a first name run into the surname."""
    on_file = letters(f"{patient.first_name} {patient.last_name}")
    return len(on_file) >= 8 and any(
        fuzz.partial_ratio(on_file, letters(text)) >= WHOLE_NAME_SAID_THRESHOLD
        and len(letters(text)) >= len(on_file) for text in heard)


def sounds_like(word: str, name: str) -> bool:
    """Whether a word is the same name said another way: the same sound (metaphone), or one letter apart."""
    a, b = letters(word), letters(name)
    if not a or not b:
        return False
    return jellyfish.metaphone(a) == jellyfish.metaphone(b) or (min(len(a), len(b)) >= 4 and fuzz.ratio(a, b) >= 80)


def plainly_another_given_name(on_file: str, heard: str | None) -> bool:
    """Whether the given name heard is a name people have, and unlike the one on file in letters and in sound
    ("Jane" for "Min-jun"): another person, not the same name bent by speech-to-text (which writes a given name
    it does not know as common words or as no name at all)."""
    from ...understanding.name_list import is_listed_name   # the name lists load on first use

    first_heard = (heard or "").split()[:1]
    first_on_file = on_file.split()[:1]
    if not first_heard or not first_on_file or not is_listed_name(first_heard[0]):
        return False
    return not sounds_like(first_heard[0], first_on_file[0]) and given_name_score(on_file, heard) < NAME_MATCH_THRESHOLD


def heard_alike(on_file: str, heard: str) -> bool:
    return fuzz.ratio(letters(on_file), letters(heard)) >= HEARD_NAME_THRESHOLD


def surname_heard(patients: list[PatientRecord], heard: tuple[str, ...]) -> PatientRecord | None:
    """The one patient among `patients` whose surname was heard (see `surnames_heard`), else None."""
    found = surnames_heard(patients, heard)
    return found[0] if len(found) == 1 else None


def surnames_heard(patients: list[PatientRecord], heard: tuple[str, ...]) -> list[PatientRecord]:
    """The patients whose surname is one of the words in `heard`, near enough in letters or the same in
    sound (a word that sounds like the surname but is spelled as another word). Of a surname in two parts,
    one part heard so is enough: speech to text often bends the other into a common word."""
    words = {letters(word) for text in heard for word in text.split()} - {""}
    sounds = {jellyfish.metaphone(_unvoiced(word)) for word in words}
    return [p for p in patients if any(
        any(fuzz.ratio(letters(part), word) >= HEARD_SURNAME_THRESHOLD for word in words) or _sound(part) in sounds
        for part in _surname_parts(p.last_name))]


def _surname_parts(surname: str) -> list[str]:
    """The surname whole, and each part of a double-barrelled one long enough to tell apart (four letters)."""
    whole = [surname] if len(letters(surname)) >= 3 else []
    parts = [part for part in re.split(r"[\s\-]+", surname) if len(letters(part)) >= 4]
    return whole + (parts if len(parts) > 1 else [])


# A phone line blurs a consonant with its voiced or unvoiced twin (B and P, D and T, G and K, V and F, Z and S):
# heard surnames are compared with these folded together
_VOICING = str.maketrans("bdgvz", "ptkfs")


def _unvoiced(word: str) -> str:
    return word.translate(_VOICING)


def _sound(name: str) -> str | None:
    """A surname's metaphone, its voiced consonants folded into their twins (`_VOICING`), when it says enough
    to go on (two sounds or more: a two-letter surname alone would match many words)."""
    sound = jellyfish.metaphone(_unvoiced(letters(name)))
    return sound if len(sound) >= 2 else None


# A whole name said that sounds like the record's whole name this much (metaphone of the letters, word breaks
# ignored): a candidate to put to the caller, given the exact date of birth. Speech-to-text moves word breaks
# and spells a name as the words it sounds like ("Jane Doughty" for Jane Doe-Tee, "Orin Georgensen" for Søren
# Jørgensen), so letters drift far more than sound.
WHOLE_NAME_SOUND_THRESHOLD = 85
WHOLE_NAME_SOUND_MIN = 4   # sounds in the record's name: fewer match too many things said


def whole_name_sounds_like(patient: PatientRecord, said: tuple[str, ...]) -> bool:
    """In either order: a name said surname first ("Doe, Jane") and bent by speech-to-text is no longer read as
    one, so its words are compared with the record's as they were said."""
    heard = [jellyfish.metaphone(letters(text)) for text in said if letters(text)]
    for order in ((patient.first_name, patient.last_name), (patient.last_name, patient.first_name)):
        on_file = jellyfish.metaphone(letters(" ".join(order)))
        if len(on_file) >= WHOLE_NAME_SOUND_MIN and any(
                fuzz.ratio(on_file, sound) >= WHOLE_NAME_SOUND_THRESHOLD for sound in heard):
            return True
    return False


def sound_candidate(patients: list[PatientRecord], said: tuple[str, ...]) -> PatientRecord | None:
    """The one patient among `patients` whose whole name sounds like a name said, else None."""
    found = [p for p in patients if whole_name_sounds_like(p, said)]
    return found[0] if len(found) == 1 else None
