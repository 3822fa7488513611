"""What the caller's next answer is likely to be, when the question's answers are few and known.

Where the answer set is small (a yes or a no at a read-back, one of the slots just offered, one of the
clinic's sites or services, one of the patients on the caller's number, one of the caller's own appointments,
a day of the week said alone), the ears can score these phrases against the audio as well as transcribing it
freely (voice/stt.py: never instead of it, and never to invent an answer the free transcription does not
allow). Built from the question just asked and the call so far.

The phrases come grouped by the option they mean (a site's name and its aliases, a slot's position and its
time): a scored answer must stand clearly above the other options, not above another way of saying the same
one ("physio" and "physiotherapy" read alike and are one choice). A phrase two options share says neither and
is left out.
"""

from __future__ import annotations

from collections import Counter

from ..understanding import Question
from ..understanding.calendar_phrases import WEEKDAY_NAMES
from .context import CallContext
from .rule_env import RuleEnv
from .speech import say_time

_POSITIONS = ("the first one", "the second one", "the third one")

Options = tuple[tuple[str, ...], ...]   # each option's phrases, in the order the options were offered


def expected_answers(question: Question, ctx: CallContext, env: RuleEnv) -> Options:
    options: list[tuple[str, ...]] = []
    if question.read_back or question.closing:
        options.extend(tuple(answers) for _intent, answers in question.short_answer_phrases)
    if question.wants("slot") and ctx.offered:
        for position, slot in zip(_POSITIONS, ctx.offered):
            said = say_time(slot.start.time())
            options.append((position, position.removeprefix("the "), said, f"the {said} one"))
    if question.wants("booking") and ctx.bookings and len(ctx.bookings) <= len(_POSITIONS):
        # which of their own appointments: as often its time, day or service as its place in the list (the
        # place by date, as the understanding layer counts it)
        for position, booking in zip(_POSITIONS, sorted(ctx.bookings, key=lambda b: b.start)):
            said = say_time(booking.start.time())
            day = WEEKDAY_NAMES[booking.start.weekday()]
            service = env.catalog.service(booking.service_id).name
            options.append((position, said, f"the {said} one", f"the {service}", day, f"the {day} one"))
    if question.wants("location"):
        # a site is as often "the Docklands one" as "Docklands": the bare name alone reads badly over
        # audio that has the words around it
        options.extend(tuple(phrase for name in (location.name, *location.aliases)
                             for phrase in (name, f"the {name} one")) for location in env.catalog.locations)
    if question.wants("service"):
        options.extend((service.name, *service.aliases) for service in env.catalog.services)
    if question.wants("window"):
        # a day said alone is the commonest answer to "what day suits?", and a lone weekday is what Whisper
        # most often writes as other words ("First date" for Thursday, "Mandai" for Monday)
        options.extend((day,) for day in WEEKDAY_NAMES)
    if question.name_part == "full" and ctx.phone_candidates:
        # many callers give the surname first ("Doe, Jane"): read in the other order, the name scores as noise
        options.extend((f"{p.first_name} {p.last_name}", f"{p.last_name}, {p.first_name}")
                       for p in ctx.phone_candidates)
    return _distinct(options)


def _distinct(options: list[tuple[str, ...]]) -> Options:
    """Each option's phrases once, less any phrase another option also has."""
    options = [tuple(dict.fromkeys(p for p in phrases if p)) for phrases in options]
    shared = Counter(p.lower() for phrases in options for p in {q.lower() for q in phrases})
    kept = (tuple(p for p in phrases if shared[p.lower()] == 1) for phrases in options)
    return tuple(phrases for phrases in kept if phrases)
