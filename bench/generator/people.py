"""Patients for a scenario: names from people.yaml (Unicode NFC), dates of birth, mobile numbers."""

from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from pathlib import Path

import phonenumbers
import yaml

PEOPLE_FILE = Path(__file__).with_name("people.yaml")

# Mobile numbers in ranges kept for drama and tests, per region (the US one uses the clinic's area code).
MOBILE_PATTERNS = {"US": "+1{area}55501{n:02d}", "GB": "+447700900{n:03d}", "AU": "+6149157{n:04d}"}
MOBILE_RANGE = {"US": 100, "GB": 1000, "AU": 10000}


@dataclass(frozen=True)
class Person:
    first: str
    last: str
    dob: date

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}"


@cache
def _names() -> tuple[tuple[tuple[tuple[str, ...], tuple[str, ...]], ...], tuple[float, ...]]:
    """The name groups and their weights."""
    data = yaml.safe_load(PEOPLE_FILE.read_text(encoding="utf-8"))
    groups = [(tuple(g["first"]), tuple(g["last"])) for g in data["groups"].values()]
    weights = [float(g["weight"]) for g in data["groups"].values()]
    whole = data["whole"]
    groups += [((first,), (last,)) for first, last in whole]
    weights += [data["whole_weight"] / len(whole)] * len(whole)
    for firsts, lasts in groups:
        for name in firsts + lasts:
            if unicodedata.normalize("NFC", name) != name:
                raise ValueError(f"{PEOPLE_FILE}: {name!r} is not in Unicode NFC")
    return tuple(groups), tuple(weights)


def draw_name(rng: random.Random, taken: set[str]) -> tuple[str, str]:
    """A first and a last name from one group (drawn by weight), not already among `taken` full names."""
    groups, weights = _names()
    for _ in range(100):
        firsts, lasts = rng.choices(groups, weights=weights)[0]
        first, last = rng.choice(firsts), rng.choice(lasts)
        if f"{first} {last}" not in taken:
            return first, last
    raise RuntimeError("people.yaml has too few names for this scenario")


def draw_dob(rng: random.Random, today: date) -> date:
    """Someone between 18 and 85."""
    oldest, youngest = today.replace(year=today.year - 85), today.replace(year=today.year - 18)
    return oldest + timedelta(days=rng.randrange((youngest - oldest).days))


def draw_person(rng: random.Random, today: date, taken: set[str], *, last: str | None = None) -> Person:
    first, drawn_last = draw_name(rng, taken)
    if last is not None and f"{first} {last}" in taken:
        return draw_person(rng, today, taken, last=None)
    return Person(first, last or drawn_last, draw_dob(rng, today))


@cache
def _area_code(clinic_phone: str) -> str:
    return str(phonenumbers.parse(clinic_phone, None).national_number)[:3]


def draw_mobile(rng: random.Random, region: str, clinic_phone: str, taken: set[str]) -> str:
    area = _area_code(clinic_phone)
    for _ in range(200):
        number = MOBILE_PATTERNS[region].format(area=area, n=rng.randrange(MOBILE_RANGE[region]))
        if number not in taken:
            return number
    raise RuntimeError(f"no free mobile number left in region {region}")
