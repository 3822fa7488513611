"""Taking what the caller said into the call context.

Everything the caller gave is taken at once (a caller who answers more than was
asked keeps it all), and a correction simply overwrites the earlier value.
`ctx.given` records what this turn filled, so the rules can tell an answer
from a repeat; the question just asked (its `answered_by`) says which of those
answer it.
"""

from __future__ import annotations

from datetime import timedelta

from rapidfuzz import fuzz

from ..domain import ANYONE, TimeWindow
from ..understanding import Question, Utterance
from .context import CallContext
from .rule_env import RuleEnv, possible_locations

# most specific first: "cancel all" beats "cancel", "move" beats "cancel"
TASK_PRIORITY = ("cancel_all", "reschedule", "cancel", "query", "book")
EXISTING_BOOKING_TASKS = frozenset({"reschedule", "cancel", "cancel_all", "query"})
# questions about the clinic: a service, site, person, day or time said in one ("are you open on Friday?",
# "where is the Hill Road clinic?") is what the question is about, not a choice for the booking
CLINIC_QUESTIONS = ("price", "service_info", "hours", "address")


def task_in(utt: Utterance) -> str | None:
    for task in TASK_PRIORITY:
        if utt.has(task):
            return task
    return None


def absorb(ctx: CallContext, utt: Utterance, question: Question) -> None:
    given = ctx.given
    _absorb_task(ctx, utt, question)
    _absorb_identity(ctx, utt, question)
    _absorb_booking_details(ctx, utt, question)
    if ctx.bookings and utt.booking_picks and not question.wants("slot"):
        picked = tuple(ctx.bookings[i].id for i in utt.booking_picks if 0 <= i < len(ctx.bookings))
        if picked:
            ctx.target_ids = picked
            given.add("booking")
    if question.wants("message") and utt.text.strip():
        ctx.callback_message = utt.text.strip()
        given.add("message")
    for kind, value in utt.answers.items():
        ctx.answers[kind] = value
        given.add(kind)
    if _answered(ctx, utt, question):
        given.add("answered")


def _absorb_task(ctx: CallContext, utt: Utterance, question: Question) -> None:
    task = task_in(utt)
    if task is None:
        return
    open_question = question.open or ctx.task is None
    if not (open_question or utt.has("correction")):
        return
    discussed = ctx.question_service_ids
    if question.closing or (ctx.task is not None and task != ctx.task):
        ctx.reset_task_details()
    ctx.task = task
    ctx.given.add("task")
    if task == "book" and _refers_back(utt) and len(discussed) == 1 and not utt.service_ids:
        # "how much is a massage?" ... "I'd like to book one": the one just talked about
        ctx.service_id = discussed[0]
        ctx.given.add("service")
    if task in EXISTING_BOOKING_TASKS and ctx.bookings is None:
        ctx.booking_hint_texts.append(utt.text)


def _refers_back(utt: Utterance) -> bool:
    return any(s.name == "book" and "booking_back_reference" in s.evidence for s in utt.intents)


def _absorb_identity(ctx: CallContext, utt: Utterance, question: Question) -> None:
    if ctx.patient_created:
        return  # the record exists; a late correction goes to the front desk, not a second record
    if question.name_part is not None and utt.text.strip():
        ctx.name_words.append(utt.text)
    first = utt.name.first if utt.name else None
    last = utt.name.last if utt.name else None
    if utt.spelled and not (first and last):
        spelled = utt.spelled.title()
        if " " in spelled and not (first or last):
            first, last = spelled.split(" ", 1)
        elif _spells(spelled, first) and not _spells(spelled, last):
            first = spelled
        elif _spells(spelled, last):
            last = spelled
        elif question.name_part == "first" or "first name" in utt.text.lower():
            first = spelled
        else:
            last = spelled
    changed = False
    if first and first != ctx.first_name:
        ctx.first_name = first
        changed = True
    if first:
        ctx.given.add("first_name")
    if last and last != ctx.last_name:
        ctx.last_name = last
        changed = True
    if last:
        ctx.given.add("last_name")
    if utt.dob is not None:
        changed = changed or utt.dob != ctx.dob
        ctx.dob = utt.dob
        ctx.given.add("dob")
    if utt.phone:
        ctx.phone = utt.phone
        ctx.given.add("phone")
    if utt.patient_status:
        ctx.patient_status = utt.patient_status
    if changed and ctx.patient is not None:
        # the caller corrected who they are: prove it again before anything else
        ctx.patient = None
        ctx.identity_result = None


def _spells(spelled: str, word: str | None) -> bool:
    """Is the spelling plainly of this spoken word ("Kris" spelled for "Chris")?"""
    if not word:
        return False
    return fuzz.ratio(spelled.lower(), word.lower()) >= 70


def _absorb_booking_details(ctx: CallContext, utt: Utterance, question: Question) -> None:
    given = ctx.given
    if utt.slot_pick is not None and ctx.offered and (question.wants("slot") or question.read_back):
        if 0 <= utt.slot_pick < len(ctx.offered):
            slot = ctx.offered[utt.slot_pick]
            if slot != ctx.picked:
                ctx.picked = slot
                given.add("slot")
            return  # "the second one, on Friday": the day describes the pick, it is not a new search
    about_the_clinic = any(utt.has(i) for i in CLINIC_QUESTIONS) and task_in(utt) is None
    asking_question = about_the_clinic and not question.wants("service")
    if utt.service_ids:
        if asking_question:
            ctx.question_service_ids = tuple(utt.service_ids)
        elif utt.service_ids[0] != ctx.service_id:
            ctx.service_id = utt.service_ids[0]
            given.add("service")
        elif question.wants("service"):
            given.add("service")
    elif asking_question:
        ctx.question_service_ids = (ctx.service_id,) if ctx.service_id else ()
    if utt.location_id is not None and not asking_question:
        if utt.location_id != ctx.location_id or question.wants("location"):
            given.add("location")
        ctx.location_id = utt.location_id
    if utt.practitioner_id is not None and not asking_question:
        if utt.practitioner_id != ctx.practitioner_id or question.wants("practitioner"):
            given.add("practitioner")
        ctx.practitioner_id = utt.practitioner_id
    if utt.refused_days and not about_the_clinic:
        new = set(utt.refused_days) - ctx.refused_days
        ctx.refused_days |= new
        if new and utt.window is None and ctx.window is not None and _within(ctx.window, new):
            # "I can't do Thursday" when Thursday was all they asked for: the soonest other day
            ctx.window = TimeWindow("soonest")
        if new:
            given.add("window")
    if utt.window is not None and not question.wants("booking") and not about_the_clinic:
        about_existing = ctx.task in ("reschedule", "cancel", "cancel_all", "query") and not ctx.target_ids
        if about_existing:
            ctx.booking_hint = utt.window
        elif utt.window != ctx.window or question.wants("window"):
            ctx.window = utt.window
            given.add("window")
    if given & {"service", "location", "practitioner", "window"}:
        ctx.offered = ()
        ctx.picked = None


def _within(window: TimeWindow, days: set) -> bool:
    """Whether the window covers only days in `days` (it has a start and an end, all of them refused)."""
    if window.start is None or window.end is None:
        return False
    span = (window.end.date() - window.start.date()).days
    return span <= 7 and all((window.start.date() + timedelta(days=k)) in days for k in range(span))


# what a turn filled (ctx.given) or said, for each fact a question may be `answered_by`
_FILLED = {
    "task": lambda ctx, utt: "task" in ctx.given,
    "yes": lambda ctx, utt: utt.has("yes"),
    "no": lambda ctx, utt: utt.has("no"),
    "full_name": lambda ctx, utt: bool(ctx.given & {"first_name", "last_name"}) and bool(ctx.first_name and ctx.last_name),
    "a_name": lambda ctx, utt: bool(ctx.given & {"first_name", "last_name"}),
    "slot": lambda ctx, utt: "slot" in ctx.given,
}


def _answered(ctx: CallContext, utt: Utterance, question: Question) -> bool:
    """Whether this turn answered the question just asked (any one of its `answered_by` facts)."""
    return any(_FILLED[fact](ctx, utt) if fact in _FILLED else fact in ctx.given for fact in question.answered_by)


def derive(ctx: CallContext, env: RuleEnv) -> None:
    """Fill what follows from the clinic's data without asking the caller."""
    catalog = env.catalog
    if ctx.task == "book" and ctx.service_id is None and len(catalog.services) == 1:
        ctx.service_id = catalog.services[0].id
    if ctx.task == "reschedule" and len(ctx.targets) == 1:
        target = ctx.targets[0]
        if ctx.service_id is None:
            ctx.service_id = target.service_id
        if ctx.location_id is None:
            ctx.location_id = target.location_id
        if ctx.practitioner_id is None:
            ctx.practitioner_id = target.practitioner_id
    if ctx.service_id is not None:
        options = possible_locations(ctx, catalog)
        if ctx.location_id is not None and ctx.location_id not in options:
            # nobody suitable works there: ask, offering only the sites that do
            if ctx.practitioner_id in (None, ANYONE) or len(options) == 0:
                ctx.location_id = None
        if ctx.location_id is None and len(options) == 1:
            ctx.location_id = options[0]
