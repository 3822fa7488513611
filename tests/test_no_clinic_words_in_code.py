"""No clinic's words in the product's code: every name, alias and service comes from the clinic file.

The understanding must hold for clinics it has never seen, so no rule, comment or example in appliance/
names a clinic, a site, a practitioner, a patient or a service of any clinic the team has written or the
scenario generator makes. Words for kinds of care that every clinic shares ("follow-up", "massage") are
general vocabulary, not one clinic's, and are listed here as such.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CODE = sorted(p for p in (ROOT / "appliance").rglob("*") if p.suffix in (".py", ".tcss", ".yaml", ".toml"))

# Kinds of care, said the same way at any clinic: the rules may know these words.
GENERAL_CARE_WORDS = frozenset({
    "assessment", "check up", "checkup", "consultation", "follow up", "follow-up", "initial",
    "initial consultation", "massage", "new patient", "physio", "physiotherapy", "review", "standard",
    "treatment", "vaccination", "flu shot", "flu jab", "flu vaccine", "check-up", "consult", "cleaning",
    "clean", "x-ray", "x ray", "pilates", "acupuncture", "dry needling", "needling", "skin check", "doctor's visit",
    "filling", "fillings", "crown", "extraction", "hygiene", "scale and polish", "check-up and clean",
    "first visit", "first appointment", "hygienist", "registration", "jab", "immunisation", "fitting", "rehab",
    "nurse", "double booking", "shots", "exam", "gp", "extended", "recall",
})


# Words for places every town has: a site's alias may be one ("the city"), and so may ordinary English.
GENERAL_PLACE_WORDS = frozenset({"city", "the city", "town", "the town", "centre", "center", "downtown", "cbd"})


def _clinic_files() -> list[dict]:
    """Every clinic block in config/, in the project's own scenarios and in those written from outside (clinic files
    and scenario files)."""
    clinics = []
    for path in (sorted((ROOT / "config").rglob("*.yaml")) + sorted((ROOT / "tests" / "scenarios").glob("*.yaml"))
                 + sorted((ROOT / "tests" / "scenarios_outside").rglob("*.yaml"))):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        block = data.get("clinic", data) if isinstance(data, dict) else None
        if isinstance(block, dict) and "services" in block and "practitioners" in block:
            clinics.append(block)
    return clinics


def _generated_clinics() -> list[dict]:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from generator.clinics import generated_clinics
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return list(generated_clinics())


def _terms(clinic: dict) -> tuple[set[str], set[str]]:
    """(names of people, which are proper nouns and compared with their capitals; the clinic's other words)."""
    people: set[str] = set()
    words: {str} = {clinic["name"]}
    for location in clinic.get("locations") or []:
        words.add(location["name"])
        words.update(location.get("aliases") or [])
    for service in clinic.get("services") or []:
        words.add(service["name"])
        words.update(service.get("aliases") or [])
    for practitioner in clinic.get("practitioners") or []:
        name_words = [w for w in practitioner["name"].split() if w.rstrip(".").lower() not in ("dr", "doctor", "mr", "mrs", "ms", "prof")]
        people.add(" ".join(name_words))
        people.add(name_words[-1])
    for patient in clinic.get("patients") or []:
        people.update((patient["first_name"], patient["last_name"]))
    words = {w for w in words if w.lower() not in GENERAL_CARE_WORDS | GENERAL_PLACE_WORDS}
    return people, words


# the understanding's list of ordinary English words, some of which are also names ("White", "Park")
ORDINARY_WORDS_FILE = ROOT / "appliance" / "understanding" / "common_words.py"


def _hits(terms: set[str], *, case_sensitive: bool) -> list[str]:
    from appliance.understanding.common_words import NAME_WORDS, STOP_WORDS

    if not terms:
        return []
    # one pattern for all the terms, longest first, each file read once: hundreds of clinics' words stay quick
    alternatives = "|".join(re.escape(term) for term in sorted(terms, key=len, reverse=True))
    pattern = re.compile(r"(?<![A-Za-z])(?:" + alternatives + r")(?![A-Za-z])", 0 if case_sensitive else re.I)
    by_text = {term if case_sensitive else term.lower(): term for term in terms}
    found = []
    for path in CODE:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in pattern.finditer(line):
                term = by_text.get(m.group(0) if case_sensitive else m.group(0).lower(), m.group(0))
                ordinary = " " not in term and term.lower() in (STOP_WORDS | NAME_WORDS)
                if ordinary and path == ORDINARY_WORDS_FILE:
                    continue   # listed there as the ordinary word it also is, nowhere else
                found.append(f"{path.relative_to(ROOT)}:{number}: {term!r}: {line.strip()[:100]}")
    return found


@pytest.mark.parametrize("source", ["config", "generated"])
def test_no_clinic_name_alias_or_person_appears_in_the_product(source):
    clinics = _clinic_files() if source == "config" else _generated_clinics()
    assert clinics, f"no clinics found in {source}"
    people: set[str] = set()
    words: set[str] = set()
    for clinic in clinics:
        p, w = _terms(clinic)
        people |= p
        words |= w
    found = _hits(people, case_sensitive=True) + _hits(words, case_sensitive=False)
    assert not found, "clinic words in appliance/:\n" + "\n".join(found)


def test_the_check_would_find_a_clinic_word(tmp_path, monkeypatch):
    clinic = _clinic_files()[0]
    location = clinic["locations"][0]["name"]
    bad = tmp_path / "rule.py"
    bad.write_text(f"HOURS = r'when does {location.lower()} open'\n")
    monkeypatch.setattr(sys.modules[__name__], "CODE", [bad])
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert _hits({location}, case_sensitive=False)
