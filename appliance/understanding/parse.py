"""The entry point: one caller utterance in, every fact it carries out.

The question just asked (`questions.py`) first undoes its known
speech-to-text confusions. Then everything present is extracted at once (a
caller who says "book me a flu shot Friday at Second Street" gets intent,
service, window and location), subject to what the question expects:
- a bare name only when a name was asked for; a marked one ("my name is") always;
- a date of birth when asked for, or marked ("born", "date of birth"), or in a correction, or at a read-back
  or with a name when its year is long past;
- a phone number when asked for, or marked ("my number is", "call me on"), or in a correction;
- no time window in an answer about the person (a date of birth, number, name or spelling),
  none from words that describe an existing appointment ("my appointment tomorrow"),
  and none from a yes that repeats the read-back ("yes, Thursday is fine");
- slot picks only among offered slots, booking picks only among the caller's bookings;
- any other kind the question expects, by its registered extractor (`extractors.py`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, time, timedelta

from .appointment_references import covered, reference_spans
from .booking_picks import mentions_every_booking, pick_bookings
from .calendar_phrases import WEEKDAYS, find_days, may_name_days
from .clock_times import find_times
from .catalog_match import CatalogFindings, CatalogMention, catalog_index, find_catalog
from .choice_constraints import read_constraints
from .dates_of_birth import DOB_MARKER, find_dob_span
from .extractors import run_extractors
from .intents import detect_intents
from .name_corrections import letter_edits, name_replacements
from .names import find_name, find_spelled, spelled_once
from .normalise import CallerText, normalise
from .patient_relation import patient_relation
from .patient_status import patient_status
from .phones import PHONE_MARKER, find_phone
from .refused_days import refused_days
from .slot_picks import pick_slot
from .time_windows import find_window
from ..domain import TimeWindow
from .utterance import ListenContext, PersonName, Utterance
from .yes_no import TAKE_BACK_WORDS, takes_back

_EXISTING = frozenset({"reschedule", "cancel", "cancel_all", "query"})
_REPLACING = frozenset({"instead", "change", "old", "maiden", "previous", "wrong", "incorrect"})
_TARGET_WORDS = frozenset({"to", "until", "till", "into"})
# questions a caller may ask about one of the times on offer before choosing
_ASKS_ABOUT_A_TIME = frozenset({"price", "service_info", "hours", "address"})
_QUESTION_WORDS = frozenset({"how", "what", "what's", "whats", "which", "where", "when", "why", "cost", "costs",
                             "price", "charge", "fee"})


_THE_DAY_OFFERED = re.compile(r"\b(?:that day|that same day|the same day|same day|that date|on the day)\b")
# "that Tuesday", "the same Friday": a weekday already spoken of, here the one on offer
_THAT_WEEKDAY = re.compile(r"\b(?:that|the same|that same) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b")


def _on_the_day_offered(ct: CallerText, window: TimeWindow | None, offered, times) -> TimeWindow | None:
    """A time asked for on the day whose times are on offer is on that day: said as "that day" ("anything later
    that day? After five?"), as "that Tuesday" where a Tuesday is on offer, or as a clock time alone while one
    day's times are on offer ("ten fifteen's better"), where a caller changes the time and keeps the day."""
    if window is None or not offered:
        return window
    days = {slot.start.date() for slot in offered}
    that = _THAT_WEEKDAY.search(ct.text)
    if that is not None:
        named = [day for day in days if WEEKDAYS[that.group(1)] == day.weekday()]
        if len(named) == 1:
            return _on(window, named[0])
    if window.start is not None or len(days) != 1:
        return window
    if _THE_DAY_OFFERED.search(ct.text) or (times and window.time_from is not None and window.time_to is None):
        return _on(window, days.pop())
    return window


def _on(window: TimeWindow, day) -> TimeWindow:
    start = datetime.combine(day, time(0))
    label = window.label
    if window.start is not None:  # the weekday said is the day on offer: keep the part of day after it
        label = label.split(" ", 1)[1] if " " in label else ""
    return replace(window, start=start, end=start + timedelta(days=1),
                   label=f"{start:%A} {label}".strip() if label != "soonest" else f"{start:%A}")


def _the_birthday(window, dob) -> bool:
    """Whether a window of one day, said with a date of birth, is that birthday's day this year."""
    if window.start is None or window.end is None or (window.end - window.start).days != 1:
        return False
    return (window.start.month, window.start.day) == (dob.month, dob.day)


_TAKING_BACK_SKIP = TAKE_BACK_WORDS | {"oh", "hang", "on", "um", "i", "mean"}


def _after_taking_back(ct: CallerText, region) -> CallerText | None:
    """The words after the last words that take back what was said before them ("the first one, no wait, the
    second one"), where something was said before; None where nothing was taken back."""
    marks = [k for k, tok in enumerate(ct.tokens) if tok in TAKE_BACK_WORDS and k > 0
             and takes_back(ct.tokens[k:k + 3])]
    if not marks:
        return None
    k = marks[-1]
    while k < len(ct.tokens) and ct.tokens[k] in _TAKING_BACK_SKIP:
        k += 1
    if k >= len(ct.tokens):
        return None
    return normalise(" ".join(ct.tokens[k:]), region.words)


_KEEPING_BEFORE = frozenset({"not", "keep", "leave"})
_KEEPING_AFTER = (("is", "fine"), ("'s", "fine"), ("is", "ok"), ("is", "okay"), ("stays",), ("can", "stay"),
                  ("i", "still", "need"), ("is", "still", "fine"))


def _kept(ct: CallerText, span: tuple[int, int]) -> bool:
    """Whether words about one of the caller's bookings say it is kept ("not the one tomorrow", "keep the
    follow-up", "the follow-up one's fine, keep that one")."""
    start, end = span
    if not _KEEPING_BEFORE.isdisjoint(ct.tokens[max(0, start - 2):start]):
        return True
    said = ct.tokens[start:end + 3]   # the words about it run on ("the follow-up one's fine")
    return any(said[k:k + len(words)] == words for words in _KEEPING_AFTER for k in range(len(said)))


def _question_clauses(ct: CallerText) -> list[tuple[int, int]]:
    """The token spans of the clauses that ask something (a question word in them)."""
    return [(start, end) for start, end in ct.clause_spans if not _QUESTION_WORDS.isdisjoint(ct.tokens[start:end])]


def _without_practitioners_in_the_name(findings: CatalogFindings, ct: CallerText, name: PersonName | None,
                                       replacements: tuple[tuple[str, str], ...]) -> CatalogFindings:
    """The findings less a practitioner named by words of the caller's own name as said ("it's Jane Doe", where a
    practitioner is called Jane): a name given is about who is calling, not whom they would see."""
    said = [" ".join(filter(None, (name.first, name.last)))] if name else []
    said += [new for _, new in replacements]
    runs = [normalise(words).tokens for words in said if words]
    if not runs or not any(m.kind == "practitioner" for m in findings.mentions):
        return findings

    def inside(m: CatalogMention) -> bool:
        for run in runs:
            for at in range(len(ct.tokens) - len(run) + 1):
                if tuple(ct.tokens[at:at + len(run)]) == tuple(run) and at <= m.start and m.end <= at + len(run):
                    return True
        return False

    kept = tuple(m for m in findings.mentions if not (m.kind == "practitioner" and inside(m)))
    return findings if len(kept) == len(findings.mentions) else replace(findings, mentions=kept)


def understand(text: str, context: ListenContext) -> Utterance:
    question = context.question
    heard = question.repair(text, context) if question.repairs and text else text
    ct = normalise(heard or "", context.region.words)
    if not ct.tokens:
        return Utterance(text=text, intents=())
    today = context.now.date()

    findings = find_catalog(ct, context.catalog, question, context.region.clipped_endings, _town_centre(context))
    service_positions = tuple(m.start for m in findings.mentions if m.kind == "service" and not m.negated)
    practitioner_positions = tuple(m.start for m in findings.mentions if m.kind == "practitioner" and not m.negated)
    location_positions = tuple(m.start for m in findings.mentions if m.kind == "location" and not m.negated)
    intents = detect_intents(ct, question, context.region, service_positions, practitioner_positions,
                             location_positions)
    names = {s.name for s in intents}
    correcting = "correction" in names

    # names and spelling
    name_asked = question.name_part is not None
    spelled_runs = spelled_once(find_spelled(ct, name_asked), ct, question.name_part, correcting)
    index = catalog_index(context.catalog)
    # asked for a name, a word of a site's or service's name is one only where that name is said whole
    blocked = index.place_and_service_words_said(ct.tokens) if name_asked \
        else index.place_and_service_words
    name = find_name(ct, question.name_part, spelled_runs, blocked)
    replacements = name_replacements(ct) if " not " in f" {ct.text} " or ct.words & _REPLACING else ()
    # a name corrected is the caller's own where a personal detail is asked, read back or corrected; elsewhere
    # "not Raj, Anna" corrects whom they would see
    own_name_replaced = question.personal or question.read_back or correcting
    findings = _without_practitioners_in_the_name(findings, ct, name, replacements if own_name_replaced else ())
    # letters count as a spelling where a name is in play: asked for, said, or being corrected
    spelled = None
    if spelled_runs and (name_asked or name is not None or question.read_back or names & {"correction", "no"}):
        spelled = " ".join(s.letters for s in spelled_runs)

    # a name corrected without being said again in full: "it's Doe, not Roe", "with a Y", "two Ls"
    # (the engine applies one only where its old name or letter is in the name it holds)
    name_in_play = name_asked or question.read_back or correcting or "no" in names or name is not None
    edits = letter_edits(ct) if name_in_play else ()

    # date of birth
    dob = None
    dob_span: list[tuple[int, int]] = []
    expected_dob = question.wants("dob") or correcting or DOB_MARKER.search_in(ct)
    if expected_dob or question.read_back or name_asked or name is not None:
        found = find_dob_span(ct, today, context.region)
        # at a read-back, a date only where its year is long past: no booking is in a year gone by; so too a date
        # said with a name, asked for or not ("it's Jane Doe, fifteenth of July ninety-one, I need a follow-up")
        if found is not None and (expected_dob or found[0].year < today.year - 1):
            dob, start, end = found
            dob_span = [(start, end)]

    # phone number
    phone = None
    if question.wants("phone") or correcting:
        phone = find_phone(ct, context.region)
    else:
        m = PHONE_MARKER.search_in(ct)
        if m:
            phone = find_phone(ct, context.region, after_char=m.start())

    # words about an existing appointment
    choosing_booking = question.wants("booking")
    definite = choosing_booking or bool(names & _EXISTING)
    spans = reference_spans(ct, definite, findings.spans("service"))
    if choosing_booking:
        target = next((k for k, t in enumerate(ct.tokens) if t in _TARGET_WORDS and k > 0), len(ct.tokens))
        spans = [*spans, (0, target)]

    # days and times, found once for picks and windows
    days = find_days(ct.tokens, context.now, context.region) \
        if not question.personal and may_name_days(ct) else []
    times = find_times(ct.tokens) if context.offered_slots or context.bookings else []

    # slot picks
    slot_pick = None
    if context.offered_slots and not question.personal and not choosing_booking:
        # a time named inside a question about it ("what's the first one going to cost me?") asks, not picks
        asking = _question_clauses(ct) if names & _ASKS_ABOUT_A_TIME else ()
        inside = (lambda s, e: not covered(asking, s, e)) if asking else None
        constraints = read_constraints(ct, context.now, context.region, findings, inside, days, times)
        slot_pick = pick_slot(constraints, context.offered_slots)
        said_after = _after_taking_back(ct, context.region)
        if said_after is not None:
            # "nine's good, oh, actually no... the quarter past nine one": the pick said after taking one back
            named = find_catalog(said_after, context.catalog, question, context.region.clipped_endings,
                                 _town_centre(context))
            later = pick_slot(read_constraints(said_after, context.now, context.region, named, None,
                                               find_days(said_after.tokens, context.now, context.region),
                                               find_times(said_after.tokens)), context.offered_slots)
            slot_pick = later if later is not None else slot_pick

    # booking picks
    booking_picks: tuple[int, ...] = ()
    if context.bookings and not question.personal and (choosing_booking or spans or mentions_every_booking(ct)):
        # "not the physio tomorrow", "keep the follow-up", "the follow-up one's fine": a booking the caller keeps
        kept = [span for span in spans if _kept(ct, span)]
        wanted = [span for span in spans if span not in kept]
        if choosing_booking:
            inside = (lambda s, e: not covered(kept, s, e)) if kept else None
        else:
            inside = lambda s, e: covered(wanted, s, e)
        constraints = read_constraints(ct, context.now, context.region, findings, inside, days, times)
        plural_named = any(m.kind == "service" and ct.tokens[m.end - 1].endswith("s")
                           and not ct.tokens[m.end - 1].endswith("ss") for m in findings.mentions)
        booking_picks = pick_bookings(ct, constraints, context.bookings, plural_named)
        kept_picks: set[int] = set()
        for span in kept:
            keep = read_constraints(ct, context.now, context.region, findings,
                                    lambda s, e, span=span: covered([span], s, e), days, times)
            kept_picks.update(pick_bookings(ct, keep, context.bookings))
        booking_picks = tuple(k for k in booking_picks if k not in kept_picks)
        if kept_picks and not booking_picks and len(context.bookings) - len(kept_picks) == 1:
            # two bookings, one kept: the other is the one meant
            booking_picks = tuple(k for k in range(len(context.bookings)) if k not in kept_picks)

    refused = refused_days(ct, days, context.offered_slots) if not question.personal else ()

    # time window: not from words that picked an offered slot, nor from a plain
    # yes that repeats what was read back ("yes, Thursday is fine")
    window = None
    agreeing = question.read_back and "yes" in names and not names & {"no", "correction"}
    picking_slot = question.wants("slot")
    if not (slot_pick is not None and picking_slot) and not agreeing:
        window = find_window(
            ct, context.now, context.region, question, spans + dob_span,
            soonest_allowed=not (picking_slot and context.offered_slots), days=days,
        )
        window = _on_the_day_offered(ct, window, context.offered_slots, times)
        if window is not None and "hours" in names and question.wants("window") and days \
                and all("you" in ct.tokens[slice(*ct.clause_of(d.start))] for d in days):
            window = None   # "when are you open on Wednesday?" asks; "Saturday morning, do you do Saturdays?" answers
        if window is not None and dob is not None and _the_birthday(window, dob):
            window = None   # "the 30th of November 1951, today as it happens": the birthday, not a day wanted

    status = patient_status(ct)
    services = findings.service_ids
    first_visit = index.first_visit
    if status == "new" and first_visit in services[1:]:
        # "I haven't had a check-up in two years ... I'd be a new patient": a new patient's visit is the clinic's
        # first-visit service, among the services said
        services = (first_visit, *(s for s in services if s != first_visit))
    return Utterance(
        text=text,
        intents=intents,
        name=name,
        spelled=spelled,
        name_replacements=replacements,
        letter_edits=edits,
        dob=dob,
        phone=phone,
        service_ids=services,
        location_id=findings.location_id,
        practitioner_id=findings.practitioner_id,
        window=window,
        # the days an hours question names, asked at a question about the caller too ("what time do you shut on
        # Tuesday?" while asked for a date of birth)
        weekdays=_weekdays(days if days or "hours" not in names or not may_name_days(ct)
                           else find_days(ct.tokens, context.now, context.region)),
        refused_days=refused,
        slot_pick=slot_pick,
        booking_picks=booking_picks,
        patient_status=status,
        patient_relation=patient_relation(ct) if question.open or question.closing else None,
        answers=run_extractors(ct, context),
    )


def _weekdays(days) -> tuple[int, ...]:
    """The weekdays the day mentions cover; none when one covers more than a week ("next month")."""
    covered: set[int] = set()
    for mention in days:
        span = (mention.end - mention.first).days
        if span > 7:
            return ()
        covered.update((mention.first + timedelta(days=k)).weekday() for k in range(span))
    return tuple(sorted(covered))


def _town_centre(context: ListenContext) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return context.region.town_centre_names, context.region.town_centre_said
