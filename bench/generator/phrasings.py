"""The callers' phrasings (phrasings.yaml): loaded once, checked, and filled with a scenario's facts."""

from __future__ import annotations

import random
import string
from functools import cache
from pathlib import Path
from typing import Any

import yaml

PHRASINGS_FILE = Path(__file__).with_name("phrasings.yaml")
MIN_PHRASINGS = 8


class PhrasingError(ValueError):
    """A phrasing or its facts are wrong; the message names the kind and the template."""


@cache
def phrasings() -> dict[str, list[Any]]:
    """kind -> its phrasings; intent openings are kinds `intent.<family>`."""
    data = yaml.safe_load(PHRASINGS_FILE.read_text(encoding="utf-8"))
    kinds: dict[str, list[Any]] = {}
    for kind, entries in data.items():
        if kind == "intent":
            for family, openings in entries.items():
                kinds[f"intent.{family}"] = list(openings)
        else:
            kinds[str(kind)] = list(entries)
    for kind, entries in kinds.items():
        if len(entries) < MIN_PHRASINGS:
            raise PhrasingError(f"{PHRASINGS_FILE}: {kind}: {len(entries)} phrasings, at least {MIN_PHRASINGS} wanted")
    return kinds


def template_of(entry: Any) -> str:
    return entry["say"] if isinstance(entry, dict) else entry


def placeholders(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


def fill(kind: str, template: str, facts: dict[str, str]) -> str:
    missing = placeholders(template) - facts.keys()
    if missing:
        raise PhrasingError(f"{PHRASINGS_FILE}: {kind}: {template!r} needs {', '.join(sorted(missing))}, "
                            "which this scenario does not have")
    return template.format_map(facts)


def choose(rng: random.Random, kind: str, facts: dict[str, str], *, where=None) -> tuple[str, Any]:
    """One phrasing of `kind` (among those `where(entry)` accepts), filled in; returns the
    words and the entry they came from. Every fact a phrasing names must be given."""
    entries = [e for e in phrasings()[kind] if where is None or where(e)]
    if not entries:
        raise PhrasingError(f"{PHRASINGS_FILE}: {kind}: no phrasing fits")
    entry = rng.choice(entries)
    return fill(kind, template_of(entry), facts), entry


def say(rng: random.Random, kind: str, facts: dict[str, str] | None = None, *, where=None) -> str:
    return choose(rng, kind, facts or {}, where=where)[0]
