"""Every intent one utterance carries, most decisive first.

Red flags (emergency, crisis) come first, then what the caller wants done,
then yes / no / correction / goodbye. Within each group a surer signal comes
before a weaker one, and an earlier one before a later one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..domain import Region
from .emergencies import find_red_flags
from .normalise import CallerText
from .patient_status import patient_status
from .questions import Question
from .signals import CONFIDENCE_RANK, EVIDENCE, Hit, RuleSet, add_hit, apply_rules, negated_before
from .task_intents import ANOTHER_DAY_FOR_IT, HOLDS, TASK_RULES
from .utterance import Signal
from .yes_no import ACT_RULES, TAKE_BACK_WORDS, read_conversation_acts

_RED_FLAGS = ("emergency", "crisis")
_ACTS = ("yes", "no", "correction", "goodbye", "withdraw")
_TASK_ORDER = ("cancel_all", "cancel", "reschedule", "book", "query", "price", "hours", "address", "service_info",
               "offer_check", "medical_advice", "human", "callback", "non_service")

_WANT_BEFORE = re.compile(r"\b(?:wants?|needs?|like|get|getting|after|looking for|interested in|have|organise|"
                          r"arrange|in for|come in for|due for|book|booking)(?: (?:to|a|an|some|another|my|the|"
                          r"get|have|book|in|for|one|of|your|new|those|these|they|them)){0,3} $")
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
_TIME_FOLLOWS = re.compile(r" (?:on|this|next|tomorrow|today|tonight|in the|at|for (?:monday|tuesday|wednesday|"
                           r"thursday|friday|saturday|sunday|the morning|the afternoon))\b")
_WHEN_BEFORE_SITE = re.compile(r"\b(?:what time|when) (?:do|does|is|are)(?: the)? $")
_OPENING_AFTER_SITE = re.compile(r"[a-z' ]{0,40}?\b(?:open|close|shut|finish|start|opening|closing)\b")
_BOOK_THE_ONE_DISCUSSED = re.compile(r"\bbook(?:ing)? (?:one|it|that|this|them|one of (?:those|them|these))\b")


def detect_intents(
    ct: CallerText,
    question: Question,
    region: Region | None = None,
    service_positions: tuple[int, ...] = (),
    practitioner_positions: tuple[int, ...] = (),
    location_positions: tuple[int, ...] = (),
) -> tuple[Signal, ...]:
    """`service_positions`/`practitioner_positions`/`location_positions`: token indexes where the caller
    named a service / a practitioner / a site (from catalog matching)."""
    hits: dict[str, Hit] = {}
    if not ct.tokens:
        return ()
    find_red_flags(ct, hits)
    apply_rules(ct, _WORD_RULES, hits)
    read_conversation_acts(ct, question, hits)
    if region is not None and region.billing_terms:
        _billing_terms(ct, region, hits)
    if location_positions and "hours" not in hits:
        _site_hours(ct, location_positions, hits)
    if location_positions and question.wants("location") and "address" in hits \
            and hits["address"].confidence != "high":
        del hits["address"]   # asked which site, one named "... that's closest to me": the answer, not a question
    _from_catalog(ct, question, hits, service_positions, practitioner_positions)
    _offer_check(ct, question, hits, (*location_positions, *practitioner_positions))
    _lone_zero(ct, question, hits)
    _book_the_one_discussed(ct, question, hits)
    _a_new_patient_books(ct, question, hits)
    _left_for_another_call(ct, hits)
    _plan_given_up(ct, hits)
    _settle(hits, question, ct.text)
    return _ordered(hits)


# a task the caller (or someone of theirs) will see to on another call: "I'll call back to book", "I'll ring back
# and book", "he'll ring to book himself", "I'll book later", "I'll book online"
_LATER_PLAN = re.compile(
    r"\b(?:i|we|he|she|they|\w+) will (?:just |probably |have to |need to |maybe )?(?:call|ring|phone|come back|"
    r"give you a (?:call|ring|bell))(?: \w+){0,4}? (?:to|and) (?:book|make|sort|arrange|reschedule|rebook|cancel|"
    r"change|move)\b"
    r"|\b(?:i|we|he|she|they) (?:will|might|may) (?:just |probably |maybe )?(?:book|rebook|make (?:one|an appointment|"
    r"a booking))"
    r"(?: it| one| in| that| something)? (?:later|another time|online|myself|himself|herself|themselves|then|when|once|"
    r"after|next week|tomorrow|some other time|closer)\b"
    r"|\bto book (?:himself|herself|themselves|myself)\b"
    # ... or only once something is known: "I want to know what I'm looking at before I book", "the price before we
    # make an appointment"
    r"|\bbefore (?:i|we|he|she|they) (?:\w+ ){0,3}?(?:book|make (?:an appointment|a booking)|commit|sign up)\b"
    r"|\bbefore booking\b")


def _left_for_another_call(ct: CallerText, hits: dict[str, Hit]) -> None:
    """A task said only as what will be done on another call is not asked for now."""
    spans = [m.span() for m in _LATER_PLAN.finditer(ct.text)]
    if not spans:
        return
    for name in [n for n in hits if n in _TASK_ORDER]:
        if any(start <= hits[name].position < end for start, end in spans):
            del hits[name]


# a task said as a plan the caller had ("I was going to move it", "I thought about rescheduling", "I wanted to change
# it"), given up with "but" or a take-back before another task
_PLAN_BEFORE = re.compile(r"\b(?:(?:was|were|had been) (?:going|gonna|planning|hoping|meaning) to|(?:thought|was thinking|"
                          r"had thought) (?:about|of)|wanted to|considered|i did think about)(?: \w+){0,2}? $")
_GIVEN_UP = TAKE_BACK_WORDS | {"but", "instead"}


def _plan_given_up(ct: CallerText, hits: dict[str, Hit]) -> None:
    """A task the caller says they had meant to ask for and then did not, asking for another: the other is meant
    ("I was going to move it, but actually no, I'll just cancel it")."""
    tasks = [n for n in hits if n in ("cancel_all", "cancel", "reschedule", "book")]
    if len(tasks) < 2:
        return
    for name in tasks:
        at = hits[name].position
        if _PLAN_BEFORE.search(ct.text[:at]) and not _GIVEN_UP.isdisjoint(ct.text[at:].split()[1:6]):
            del hits[name]
            return


# while times are on offer, a question whether they are at a site or with someone: "is that still at <site>?",
# "are those with Dr <name>?", "that's at the <site> one, right?"
_OFFER_ASKED = re.compile(
    r"(?:^|[.?!,] |\b(?:and|so|oh|sorry|wait|just to check|just checking) )(?:is|are|will|would|was) (?:that|those|these|"
    r"they|it|both|both of them|the two|that one|this one|this|either|either of them)(?: \w+){0,3}? (?:at|in|with|by)"
    r"(?: the| our| dr| doctor)? $")
_OFFER_TOLD = re.compile(r"(?:^|[.?!,] |\b(?:and|so|oh) )(?:that|those|they|both|it) (?:is|are|will be|would be)"
                         r"(?: \w+){0,2}? (?:at|in|with)(?: the| our| dr| doctor)? $")
_CHECKED_AFTER = re.compile(r"^\S+(?: \w+){0,3}? (?:right|yeah|yes|correct|is it|is that right|are they|is that so)\W*$")


def _offer_check(ct: CallerText, question: Question, hits: dict[str, Hit], positions: tuple[int, ...]) -> None:
    """A question whether the times on offer are at a site or with someone, asked while a time is being chosen:
    answered, not taken as a wish for that site or person."""
    if not question.settling_a_booking:
        return
    for k in sorted(positions):
        pos = ct.offsets[k]
        before = ct.text[:pos]
        if _OFFER_ASKED.search(before) or (_OFFER_TOLD.search(before) and _CHECKED_AFTER.match(ct.text[pos:])):
            add_hit(hits, "offer_check", "high", pos, EVIDENCE["offer_check"])
            return


# one of the clinic's services or practitioners said as what the caller holds ("I have a massage with <name> next
# Wednesday"), then another day asked for it
_HOLDS_BEFORE = re.compile(r"\b(?:i|we|he|she|they|\w+ 's|\w+) " + HOLDS + r" (?:\w+ ){0,3}?(?:with )?$")
_ANOTHER_DAY = re.compile(r"^\S+" + ANOTHER_DAY_FOR_IT)


def _held_and_moved(ct: CallerText, hits: dict[str, Hit], services: tuple[int, ...],
                    practitioners: tuple[int, ...]) -> None:
    """A service or practitioner of the clinic's the caller holds a booking with, then another day asked for it:
    a move, not a new booking."""
    if "reschedule" in hits or "cancel" in hits:
        return
    for k in sorted((*services, *practitioners))[:1]:
        pos = ct.offsets[k]
        if _HOLDS_BEFORE.search(ct.text[:pos]) and _ANOTHER_DAY.search(ct.text[pos:]):
            add_hit(hits, "reschedule", "high", pos, EVIDENCE["reschedule"])
            hits["reschedule"].labels.append("held_and_moved")


def _from_catalog(ct: CallerText, question: Question, hits: dict[str, Hit],
                  services: tuple[int, ...], practitioners: tuple[int, ...]) -> None:
    _held_and_moved(ct, hits, services, practitioners)
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
            elif question.open and not _OWNED_BEFORE.search(before):
                add_hit(hits, "book", "low", pos, "service_mention")
    if practitioners and "human" not in hits:
        pos = ct.offsets[practitioners[0]]
        if _SPEAK_TO.search(ct.text[:pos]):
            add_hit(hits, "human", "medium", pos, EVIDENCE["human"])
            hits["human"].labels.append("practitioner_mention")
    if practitioners and not _has_task(hits):
        pos = ct.offsets[practitioners[0]]
        if _SEE_PRACTITIONER.search(ct.text[:pos]) and question.open:
            add_hit(hits, "book", "medium", pos, EVIDENCE["book"])
            hits["book"].labels.append("practitioner_mention")


def _billing_terms(ct: CallerText, region: Region, hits: dict[str, Hit]) -> None:
    """The region's own words for paying ("bulk billed", "copay", "on the NHS") ask about prices, unless a
    time follows ("is there a gap on Thursday?" asks for a free time)."""
    pattern = _billing_pattern(region.billing_terms)
    for m in pattern.finditer(ct.text):
        if not _TIME_FOLLOWS.match(ct.text, m.end()) and not negated_before(ct, m.start(), 3):
            add_hit(hits, "price", "medium", m.start(), EVIDENCE["price"])
            hits["price"].labels.append("regional_billing_term")
            return


@lru_cache(maxsize=16)
def _billing_pattern(terms: tuple[str, ...]) -> re.Pattern:
    phrases = sorted((re.escape(term) for term in terms), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(phrases) + r")\b")


def _site_hours(ct: CallerText, locations: tuple[int, ...], hits: dict[str, Hit]) -> None:
    """ "When does <one of the clinic's sites> open?": the hours, whatever the site is called."""
    text = ct.text
    for start in locations:
        pos = ct.offsets[start]
        asked = _WHEN_BEFORE_SITE.search(text[max(0, pos - 20):pos])
        if asked and _OPENING_AFTER_SITE.match(text, pos):
            add_hit(hits, "hours", "high", pos, EVIDENCE["hours"])
            hits["hours"].labels.append("site_mention")
            return


def _book_the_one_discussed(ct: CallerText, question: Question, hits: dict[str, Hit]) -> None:
    """ "can I book one?" at an open question: the service just talked about, or asked the price of in the same
    breath ("how much is a check-up? And can I just book one?")."""
    if not question.open or not _EXISTING.isdisjoint(hits) or "book" in hits:
        return
    m = _BOOK_THE_ONE_DISCUSSED.search(ct.text)
    if m and not negated_before(ct, m.start(), 3):
        add_hit(hits, "book", "medium", m.start(), "booking_back_reference")


def _lone_zero(ct: CallerText, question: Question, hits: dict[str, Hit]) -> None:
    if len(ct.tokens) == 1 and ct.tokens[0] in _ZERO and not question.numbers_expected:
        add_hit(hits, "human", "high", 0, EVIDENCE["human"])
    elif ct.tokens == ("keypad", "0"):  # the phone line's word for a lone 0 pressed on the keypad: in every state
        add_hit(hits, "human", "high", 0, EVIDENCE["human"])


def _a_new_patient_books(ct: CallerText, question: Question, hits: dict[str, Hit]) -> None:
    """Asked what they want, a caller who says only that they are new ("I've never been to you before, I've
    done my back in") is calling to book: a new patient has nothing else on file to ask about."""
    if question.open and not _has_task(hits) and not ({"human", "callback"} & hits.keys()) \
            and patient_status(ct) == "new":
        add_hit(hits, "book", "medium", 0, EVIDENCE["book"])
        hits["book"].labels.append("new_patient")


def _has_task(hits: dict[str, Hit]) -> bool:
    return any(name in hits for name in _TASK_ORDER)


_PRICE_OF_A_VISIT = re.compile(
    r"\bhow much (?:\w+ ){0,5}?(?:to|for) (?:\w+ ){0,2}?(?:see|book|get|have|come in)\b|"
    r"\bwhat (?:does|would|will|do) (?:it|they|you) (?:cost|charge) (?:\w+ ){0,2}?(?:to|for) (?:\w+ ){0,2}?"
    r"(?:see|book|get|have|come in)\b|\b(?:cost|price) (?:to|of) (?:see|book|get|have)\w*\b")


def _settle(hits: dict[str, Hit], question: Question, text: str = "") -> None:
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
    if question.settling_a_booking and weaker_than_high("reschedule"):
        del hits["reschedule"]
    # a bill, an insurer or a claim talked of while asking to be called back, or in the message itself, is what
    # the team is to call about, not a question about prices to answer now
    if weaker_than_high("price") and ("callback" in hits or question.wants("message") or question.personal):
        # ... and so is the card a caller reads their name or date off ("that's what's on the Medicare card")
        del hits["price"]
    # "how much is it to see a GP?", "what does it cost to book a cleaning?": the visit is what the price is of
    if "price" in hits and "book" in hits:
        for m in _PRICE_OF_A_VISIT.finditer(text):
            if m.start() <= hits["book"].position < m.end():
                del hits["book"]
                break
    # a call back asked for outright, with reception or a missed call only told of ("the girl at reception said the
    # doctor would ring me ... can she call me back?"): the call back is what is asked, not a person now
    if "callback" in hits and hits["callback"].confidence == "high" and weaker_than_high("human"):
        del hits["human"]
    # someone not (yet) a patient asking a price or to book is a patient to be, not a business calling
    if weaker_than_high("non_service") and ("price" in hits or "book" in hits):
        del hits["non_service"]
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
