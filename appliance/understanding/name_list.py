"""Whether a heard name is like any name people have: Faker's given names and surnames for every locale it
knows (tens of thousands, in many scripts), compared folded (`domain.fold_name`).

A new patient's name unlike any of these (a garbled "Calmequo Quo", or a rare name the transcriber may have
bent) is spelled by the caller before it is read back and stored.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from ..domain import fold_name

# one letter off in a name of five or more letters still counts as that name
_NEAR_EDITS = 1
_NEAR_MIN_LENGTH = 5


@lru_cache(maxsize=1)
def _names() -> tuple[frozenset[str], frozenset[str]]:
    """(given names, surnames), folded."""
    import faker.providers.person as person

    given: set[str] = set()
    family: set[str] = set()
    for module in pkgutil.iter_modules(person.__path__):
        provider = getattr(importlib.import_module(f"{person.__name__}.{module.name}"), "Provider", None)
        if provider is None:
            continue
        for attr, bucket in (("first_names", given), ("first_names_male", given), ("first_names_female", given),
                             ("first_names_nonbinary", given), ("last_names", family),
                             ("last_names_male", family), ("last_names_female", family)):
            names = getattr(provider, attr, None)
            if isinstance(names, dict):
                names = names.keys()
            if isinstance(names, (list, tuple, set, frozenset)) or hasattr(names, "keys"):
                bucket.update(fold_name(str(n)) for n in names)
    return frozenset(given - {""}), frozenset(family - {""})


@lru_cache(maxsize=1)
def _either() -> frozenset[str]:
    """Every name, given or family: built once (the union of the two lists costs milliseconds a turn)."""
    given, family = _names()
    return given | family


def load_name_list() -> None:
    """Read the name lists now (about a second, once per process) rather than at the first lookup."""
    _either()


def is_listed_name(word: str) -> bool:
    """Whether one word is, exactly (folded), a given name or surname people have."""
    return fold_name(word) in _either()


def only_a_given_name(word: str) -> bool:
    """Whether one word is listed as a given name and never as a surname ("Jerry", not "Smith")."""
    given, family = _names()
    folded = fold_name(word)
    return folded in given and folded not in family


def is_known_name(name: str, part: str) -> bool:
    """Whether every word of `name` (a "first" or "last" name) is a name people have, or one letter off one."""
    given, family = _names()
    known = given if part == "first" else family
    either = _either()
    for word in fold_name(name).replace("-", " ").split():
        if word in known or word in either:
            continue
        if len(word) >= _NEAR_MIN_LENGTH and process.extractOne(
                word, known, scorer=Levenshtein.distance, score_cutoff=_NEAR_EDITS) is not None:
            continue
        return False
    return True


def given_name_first(before: str, after: str) -> bool:
    """Whether the lists say that two names said with a pause between ("Arjun, Banerjee") are a given name then a
    surname, not a surname then a given name ("Banerjee, Arjun"): the second is only ever a surname and the first
    is not. (Many surnames are listed as given names too, "Cooper" among them, so a first name alone says less.)"""
    given, family = _names()

    def surname_only(name: str) -> bool:
        words = fold_name(name).replace("-", " ").split()
        return bool(words) and all(w in family and w not in given for w in words)

    return surname_only(after) and not surname_only(before)
