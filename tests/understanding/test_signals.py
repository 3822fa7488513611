"""The rule machinery: skipping rules that cannot match must never change an answer."""

from __future__ import annotations

import pytest

from appliance.understanding.emergencies import _CRISIS, _EMERGENCY_HIGH
from appliance.understanding.normalise import normalise
from appliance.understanding.signals import WordPattern, first_words, negated_before
from appliance.understanding.task_intents import TASK_RULES
from appliance.understanding.yes_no import CORRECTION_RULES, GOODBYE_RULES, NO_RULES, YES_RULES

from . import test_emergencies, test_task_intents, test_yes_no

CORPUS = sorted({
    *(t for lines in test_task_intents.CASES.values() for t in lines),
    *(t for t, _ in test_task_intents.NOT),
    *test_emergencies.EMERGENCIES, *test_emergencies.NOT_EMERGENCIES, *test_emergencies.CRISES,
    *test_emergencies.NOT_CRISES, *test_yes_no.YES, *test_yes_no.NO, *test_yes_no.CORRECTIONS,
    *test_yes_no.GOODBYES, *test_yes_no.NEITHER,
})
PATTERNS = [r.pattern for r in (*TASK_RULES, *YES_RULES, *NO_RULES, *CORRECTION_RULES, *GOODBYE_RULES)]
PATTERNS += [_EMERGENCY_HIGH, _CRISIS]


def test_skipping_never_hides_a_match() -> None:
    for text in CORPUS:
        ct = normalise(text)
        for pattern in PATTERNS:
            if not pattern.could_match(ct):
                assert pattern.search(ct.text) is None, (pattern.regex.pattern[:60], text)


def test_most_rules_are_skipped_for_a_typical_line() -> None:
    ct = normalise("Thursday afternoon")
    assert sum(p.could_match(ct) for p in PATTERNS) < len(PATTERNS) // 3
    assert len(TASK_RULES.index.candidates(normalise("yes that's right"))) <= 3


def test_a_pattern_that_could_start_inside_a_word_is_always_run() -> None:
    assert first_words(r"cancel") is None
    assert first_words(r"(?:\bbook|ing)") is None


@pytest.mark.parametrize(("pattern", "starts"), [
    (r"\bbook(?:ing)? me\b", {"book"}),
    (r"\b(?:make|get) an? appointment\b", {"make a", "get a"}),
    (r"\b(?:just )?(?:ring|call) me\b", {"just ring ", "just call ", "ring me ", "call me "}),
    (r"\bre ?schedul\w*", {"re"}),
    (r"^do it\b", {"do it "}),
    (r"\bcancel\w*", {"cancel"}),
    (r"\b\w+ing\b", None),
])
def test_first_words(pattern: str, starts: set[str] | None) -> None:
    found = first_words(pattern)
    assert (None if found is None else set(found)) == starts


def test_word_pattern_behaves_like_its_regex() -> None:
    pattern = WordPattern(r"\bcancel\w*\b", r"\bcall (?:it )?off\b")
    assert pattern.search("please call it off").group(0) == "call it off"
    assert [m.group(0) for m in pattern.finditer("cancel then cancelled")] == ["cancel", "cancelled"]


def test_negation_looks_back_within_the_clause() -> None:
    ct = normalise("I don't want to cancel")
    assert negated_before(ct, ct.text.index("cancel"), 4)
    ct = normalise("no, I want to cancel")
    assert not negated_before(ct, ct.text.index("cancel"), 4)
    ct = normalise("not now, cancel it")
    assert not negated_before(ct, ct.text.index("cancel"), 4)
