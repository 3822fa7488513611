"""The shortcuts that keep `understand` fast must never change an answer:
each is checked here against the slow way, over every caller line the
understanding tests use (and a few made to break them)."""

from __future__ import annotations

import ast
import re
from datetime import datetime
from pathlib import Path

import pytest

from appliance.clinic.regions import region_for
from appliance.understanding import calendar_phrases, names, time_windows
from appliance.understanding.catalog_match import _ANYONE_ASKED, _ANYONE_SAID
from appliance.understanding.dates_of_birth import DOB_MARKER
from appliance.understanding.emergencies import _CRISIS, _EMERGENCY_HIGH
from appliance.understanding.normalise import normalise
from appliance.understanding.phones import PHONE_MARKER
from appliance.understanding.signals import WordPattern, first_words
from appliance.understanding.task_intents import TASK_RULES
from appliance.understanding.yes_no import CORRECTION_RULES, GOODBYE_RULES, NO_RULES, YES_RULES

NOW = datetime(2026, 11, 23, 9, 5)


def _test_lines() -> list[str]:
    found: set[str] = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and 1 < len(node.value) < 300:
                found.add(node.value)
    return sorted(found)


LINES = _test_lines() + [
    # word boundaries inside a token, where the word table cannot look
    "it's o'brien, born 04/03/1985, call me on 0412-345-678 at 9:30",
    "i can not make it, i am not going to be able to come in tomorrow, can you call me back",
    "my chest is really tight and i can not breathe, i think i am having a heart attack",
    "yes that is right thanks, no that is not it, actually i meant thursday the 26th at half past two",
    "we help clinics like yours rank higher, is the owner available, i want to book a new appointment",
]
TEXTS = [normalise(line) for line in LINES]
WORD_PATTERNS = [r.pattern for r in (*TASK_RULES, *YES_RULES, *NO_RULES, *CORRECTION_RULES, *GOODBYE_RULES)] + [
    _EMERGENCY_HIGH, _CRISIS, DOB_MARKER, PHONE_MARKER, _ANYONE_ASKED, _ANYONE_SAID, time_windows._SOONEST,
]


def _spans(matches) -> list[tuple[int, int]]:
    return [m.span() for m in matches]


def test_matching_where_a_match_could_start_finds_what_the_regex_finds() -> None:
    for ct in TEXTS:
        for pattern in WORD_PATTERNS:
            everywhere = _spans(pattern.regex.finditer(ct.text))
            if not pattern.could_match(ct):
                assert everywhere == [], (pattern.regex.pattern[:60], ct.text)
                continue
            assert _spans(pattern.finditer_in(ct)) == everywhere, (pattern.regex.pattern[:60], ct.text)
            assert _spans(pattern._at_starts(ct)) == everywhere, (pattern.regex.pattern[:60], ct.text)
            found = pattern.search_in(ct)
            assert (found.span() if found else None) == (everywhere[0] if everywhere else None)


def test_alternatives_sharing_their_first_letters_keep_their_whole_words() -> None:
    # the regex parser reads "can not|could not" as "c", then "an not|ould not"
    assert first_words(r"\b(?:can not|could not) (?:come|make it)\b") == {"can not ", "could not "}
    assert first_words(r"\bi (?:got|gave) (?:it|that) wrong\b") == {"i got ", "i gave "}
    # a pattern that ends inside a word may match a longer word: only the start is sure
    assert first_words(r"\bi am") == {"i am"}
    assert WordPattern(r"\bi am").could_match(normalise("i amber"))


def test_days_are_looked_for_only_where_a_day_could_be_named() -> None:
    for ct in TEXTS:
        if not calendar_phrases.may_name_days(ct):
            assert calendar_phrases.find_days(ct.tokens, NOW, region_for("AU")) == [], ct.text


def test_times_are_read_only_where_a_clock_could_be() -> None:
    for ct in TEXTS:
        if not ct.has_digit and ct.words.isdisjoint(time_windows._CLOCK_OR_ANCHOR):
            assert not [k for k, tok in enumerate(ct.tokens) if time_windows._clock_at(ct, k)], ct.text


@pytest.mark.parametrize("name_asked", [False, True])
def test_spelling_is_skipped_only_where_no_run_could_be_spelled(name_asked: bool) -> None:
    for ct in TEXTS:
        if names._letters_said(ct) < (2 if name_asked else 3):
            runs = [g for g in names._groups(ct) if g[3] >= (2 if name_asked else 3)
                    and not set(g[0].replace("'", "").replace("-", "")) <= {"a", "i"}]
            assert runs == [], ct.text


@pytest.mark.parametrize(("word", "raw"), [
    ("Macleod", "it's Sarah MacLeod"), ("Macleod", "macleod's"), ("Deangelo", "DeAngelo, D E"),
    ("O'brien", "Mary O'Brien"), ("Lee", "Dr Anna Lee-Smith"), ("Lee", "Fleet, Lee"), ("Ann", "Anne or Ann"),
    ("Zoë", "ZOË Zoë"), ("Smith", "no smith here"), ("Ng", "it is ng_ng ng"),
])
def test_a_name_is_found_as_written_without_a_pattern(word: str, raw: str) -> None:
    m = re.search(rf"(?<![\w']){re.escape(word)}(?![\w'])", raw, re.IGNORECASE)
    assert names._written(word, raw) == (m.group(0) if m else None)


def test_the_chunk_memory_gives_what_working_it_out_gives() -> None:
    from appliance.understanding import normalise as module
    for line in LINES:
        first = normalise(line)
        module._CHUNKS.clear()
        module._PLAIN.clear()
        again = normalise(line)
        assert (first.text, first.clause_starts, first.hyphen_joined) == \
            (again.text, again.clause_starts, again.hyphen_joined)


def test_words_without_the_word_loop_are_the_words_of_the_loop() -> None:
    from appliance.understanding import normalise as module
    for line in [*LINES, "um, so. , ,, uh hello - there... um", "hmm", ", , ,", "yes -- no", "well um, um, okay"]:
        t = f" {module._BREAK} ".join(line.lower().replace("-", " ").split(","))
        tokens, starts, _joined = module._words(t)
        if module._BREAK in t:
            assert module._clauses(t) == (tokens, starts), line
        else:
            assert (module._plain_words(t), [0]) == (tokens, starts), line


def test_dob_marker_still_spots_the_marker() -> None:
    assert DOB_MARKER.search_in(normalise("my date of birth is the 4th of march")) is not None
    assert DOB_MARKER.search_in(normalise("I was born in 1985")) is not None
    assert DOB_MARKER.search_in(normalise("book me for tuesday")) is None
