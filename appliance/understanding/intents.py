"""Every intent one utterance carries, most decisive first.

Red flags (emergency, crisis) come first, then what the caller wants done,
then yes / no / correction / goodbye. Within each group a surer signal comes
before a weaker one, and an earlier one before a later one.
"""

from __future__ import annotations

import re

from .emergencies import find_red_flags
from .normalise import CallerText
from .signals import CONFIDENCE_RANK, EVIDENCE, Hit, RuleSet, add_hit, apply_rules, negated_before
from .task_intents import TASK_RULES
from .utterance import Signal
from .yes_no import ACT_RULES, read_conversation_acts

_RED_FLAGS = ("emergency", "crisis")
_ACTS = ("yes", "no", "correction", "goodbye")
_TASK_ORDER = ("cancel_all", "cancel", "reschedule", "book", "query", "price", "hours", "address", "service_info",
               "medical_advice", "human", "callback", "non_service")

_WANT_BEFORE = re.compile(r"\b(?:wants?|needs?|like|get|getting|after|looking for|interested in|have|organise|"
                          r"arrange|in for|come in for|due for|book|booking)(?: (?:to|a|an|some|another|my|the|"
                          r"get|have|book|in|for|one|of|your|new)){0,3} $")
_MOVE_BEFORE = re.compile(r"\b(?:move|moving|change|changing|shift|shifting|push|pushing|bring|bringing|swap|switch|"
                          r"reschedule|rearrange) (?:my|our|his|her|the|that|this)(?: [a-z]+)? $")
_SEE_PRACTITIONER = re.compile(r"\b(?:see|seeing|with)\b")
_SERVICE_QUESTION = re.compile(r"\bwhat(?: is| are)(?: a| an| the)?\b|\btell me (?:more )?about\b|"
                               r"\bdo you (?:do|offer|have|provide)\b|\bexplain\b")
# What the caller wants done, then yes / no / correction / goodbye: one pass over the rules.
_WORD_RULES = RuleSet(*TASK_RULES, *ACT_RULES)
_ZERO = frozenset({"0", "zero", "oh"})
_EXISTING = frozenset({"reschedule", "cancel", "cancel_all", "query"})
_OWNED_BEFORE = re.compile(r"\b(?:my|our|his|her|their)(?: [a-z]+)? $")
_SPEAK_TO = re.compile(r"\b(?:speak|talk|chat) (?:to|with)(?: dr| doctor)? $")
# "book one" picks an offered time at a slot choice, but asked what else they want after a price or service
# answer, it is the service just talked about
_BOOK_THE_ONE_DISCUSSED = re.compile(r"\bbook(?:ing)? (?:one|it|that|this|them|one of (?:those|them|these))\b")


def detect_intents(
    ct: CallerText,
    waiting_for: str,
    service_positions: tuple[int, ...] = (),
    practitioner_positions: tuple[int, ...] = (),
) -> tuple[Signal, ...]:
    """`service_positions`/`practitioner_positions`: token indexes where the
    caller named a service / a practitioner (from catalog matching)."""
    hits: dict[str, Hit] = {}
    if not ct.tokens:
        return ()
    find_red_flags(ct, hits)
    apply_rules(ct, _WORD_RULES, hits)
    read_conversation_acts(ct, waiting_for, hits)
    _from_catalog(ct, waiting_for, hits, service_positions, practitioner_positions)
    _lone_zero(ct, waiting_for, hits)
    _book_the_one_discussed(ct, waiting_for, hits)
    _settle(hits, waiting_for)
    return _ordered(hits)


def _from_catalog(ct: CallerText, waiting_for: str, hits: dict[str, Hit],
                  services: tuple[int, ...], practitioners: tuple[int, ...]) -> None:
    if services:
        first = services[0]
        pos = ct.offsets[first]
        before = ct.text[:pos]
        m = None
        for m in _SERVICE_QUESTION.finditer(before):
            pass
        if m is not None and "price" not in hits and "hours" not in hits:
            add_hit(hits, "service_info", "high", m.start(), EVIDENCE["service_info"])
        elif _MOVE_BEFORE.search(before) and not negated_before(ct, pos, 4):
            add_hit(hits, "reschedule", "high", pos, EVIDENCE["reschedule"])
            hits["reschedule"].labels.append("service_mention")
        elif not _has_task(hits):
            if _WANT_BEFORE.search(before):
                add_hit(hits, "book", "medium", pos, EVIDENCE["book"])
                hits["book"].labels.append("service_mention")
            elif waiting_for == "intent" and not _OWNED_BEFORE.search(before):
                add_hit(hits, "book", "low", pos, "service_mention")
    if practitioners and "human" not in hits:
        pos = ct.offsets[practitioners[0]]
        if _SPEAK_TO.search(ct.text[:pos]):
            add_hit(hits, "human", "medium", pos, EVIDENCE["human"])
            hits["human"].labels.append("practitioner_mention")
    if practitioners and not _has_task(hits):
        pos = ct.offsets[practitioners[0]]
        if _SEE_PRACTITIONER.search(ct.text[:pos]) and waiting_for in ("intent", "anything_else"):
            add_hit(hits, "book", "medium", pos, EVIDENCE["book"])
            hits["book"].labels.append("practitioner_mention")


def _book_the_one_discussed(ct: CallerText, waiting_for: str, hits: dict[str, Hit]) -> None:
    if waiting_for not in ("intent", "anything_else") or _has_task(hits):
        return
    m = _BOOK_THE_ONE_DISCUSSED.search(ct.text)
    if m and not negated_before(ct, m.start(), 3):
        add_hit(hits, "book", "medium", m.start(), "booking_back_reference")


def _lone_zero(ct: CallerText, waiting_for: str, hits: dict[str, Hit]) -> None:
    if len(ct.tokens) == 1 and ct.tokens[0] in _ZERO and waiting_for not in ("phone", "dob", "slot_choice"):
        add_hit(hits, "human", "high", 0, EVIDENCE["human"])
    elif ct.tokens == ("keypad", "0"):  # the phone line's word for a lone 0 pressed on the keypad: in every state
        add_hit(hits, "human", "high", 0, EVIDENCE["human"])


def _has_task(hits: dict[str, Hit]) -> bool:
    return any(name in hits for name in _TASK_ORDER)


def _settle(hits: dict[str, Hit], waiting_for: str) -> None:
    """Drop the weaker of two signals that cannot both be meant."""
    def weaker_than_high(name: str) -> bool:
        return name in hits and hits[name].confidence != "high"

    strong_existing = not _EXISTING.isdisjoint(hits) and any(
        name in hits and hits[name].confidence == "high" for name in ("reschedule", "cancel", "cancel_all", "query"))
    if strong_existing and weaker_than_high("book"):
        del hits["book"]
    if "reschedule" in hits and weaker_than_high("cancel"):
        del hits["cancel"]
    if "reschedule" in hits and hits["reschedule"].confidence != "high" and "cancel" in hits \
            and hits["cancel"].confidence == "high":
        del hits["reschedule"]
    # While choosing among offered times, "a later time" is not a reschedule.
    if waiting_for in ("slot_choice", "time_preference", "confirm") and weaker_than_high("reschedule"):
        del hits["reschedule"]
    # "how much ibuprofen" was a medicine question, "how much is it" was not.
    if "medical_advice" in hits and weaker_than_high("price"):
        del hits["price"]


def _ordered(hits: dict[str, Hit]) -> tuple[Signal, ...]:
    if len(hits) < 2:  # most lines: nothing to order
        return tuple(Signal(h.intent, h.confidence, ",".join(h.labels)) for h in hits.values())

    def group(name: str) -> int:
        if name in _RED_FLAGS:
            return 0
        if name in _ACTS:
            return 2
        return 1

    def key(hit: Hit) -> tuple:
        g = group(hit.intent)
        if g == 2:
            return (g, _ACTS.index(hit.intent))
        if g == 0:
            return (g, _RED_FLAGS.index(hit.intent))
        return (g, -CONFIDENCE_RANK[hit.confidence], hit.position, _TASK_ORDER.index(hit.intent))

    return tuple(Signal(h.intent, h.confidence, ",".join(h.labels)) for h in sorted(hits.values(), key=key))
