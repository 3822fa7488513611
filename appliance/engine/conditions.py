"""The named rules the flow's edges refer to.

Each rule reads the call context (and the clinic's catalogue) and answers yes
or no; none has a side effect. A rule that rests on the caller's words returns
a `Trigger` so the engine can record why it routed.
"""

from __future__ import annotations

from typing import Callable

from ..domain import ANYONE, fold_name
from ..understanding.name_list import is_known_name
from .context import IDENTITY_TASKS, TASKS, CallContext
from .read_backs import pending_confirmation
from .rule_env import RuleEnv, possible_locations
from .types import ROUTES, Trigger

__all__ = ["CONDITIONS", "ROUTES", "RuleEnv", "intent_trigger", "possible_locations"]


Rule = Callable[[CallContext, RuleEnv], "bool | Trigger | None"]
CONDITIONS: dict[str, Rule] = {}


def rule(fn: Rule) -> Rule:
    CONDITIONS[fn.__name__] = fn
    return fn


def intent_trigger(ctx: CallContext, intent: str) -> Trigger | None:
    if ctx.utt is None:
        return None
    signal = ctx.utt.signal(intent)
    if signal is None:
        return None
    return Trigger(ROUTES.get(intent, intent), signal.confidence, signal.evidence)


def _intent_rule(intent: str) -> Rule:
    def check(ctx: CallContext, env: RuleEnv) -> Trigger | None:
        return intent_trigger(ctx, intent)
    return check


for _name, _intent in {
    "emergency": "emergency", "crisis": "crisis", "asks_price": "price", "asks_hours": "hours",
    "asks_address": "address", "asks_service_info": "service_info", "wants_human": "human",
    "wants_callback": "callback", "medical_advice": "medical_advice", "non_service": "non_service",
    "says_goodbye": "goodbye", "withdraws": "withdraw", "asks_about_offer": "offer_check",
}.items():
    CONDITIONS[_name] = _intent_rule(_intent)


@rule
def always(ctx: CallContext, env: RuleEnv) -> bool:
    return True


# ---------------------------------------------------------------- the caller's words this turn

@rule
def said_yes(ctx: CallContext, env: RuleEnv) -> Trigger | None:
    """A plain yes: no 'no' with it, and nothing said that changes what was read back."""
    if ctx.utt is None or ctx.utt.has("no"):
        return None
    if ctx.side_trips_this_turn and ctx.pending_kind is not None:
        return None  # "before I say yes, how much is it?": answer, then ask again
    if ctx.pending_kind is not None and pending_confirmation(ctx.pending_kind, ctx) != ctx.pending:
        return None
    return intent_trigger(ctx, "yes")


@rule
def yes_to_read_back(ctx: CallContext, env: RuleEnv) -> bool:
    """A yes while a summary waits for one ("yes that's all correct" is no goodbye)."""
    return ctx.pending_kind is not None and ctx.utt is not None and ctx.utt.has("yes")


@rule
def said_no(ctx: CallContext, env: RuleEnv) -> Trigger | None:
    return intent_trigger(ctx, "no")


@rule
def answered(ctx: CallContext, env: RuleEnv) -> bool:
    """The thing the current state asked for was given this turn (the engine sets `answered`)."""
    return "answered" in ctx.given


@rule
def name_given(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.given & {"first_name", "last_name"})


@rule
def whole_name_or_asked_again(ctx: CallContext, env: RuleEnv) -> bool:
    """Both names are known, or the full name was already asked for twice.

    Half a name is more often a mishearing (a first name bent into small words) than a caller
    who gave one part, so the full name is asked for once more before the
    missing part is asked for on its own."""
    return bool(ctx.first_name and ctx.last_name) or ctx.misses.get(ctx.state, 0) >= 1


@rule
def dob_given(ctx: CallContext, env: RuleEnv) -> bool:
    return "dob" in ctx.given


@rule
def identity_given(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.given & {"first_name", "last_name", "dob"})


@rule
def details_changed(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.given & {"first_name", "last_name", "dob", "phone"})


@rule
def search_changed(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.given & {"window", "service", "location", "practitioner"})


@rule
def slot_picked(ctx: CallContext, env: RuleEnv) -> bool:
    return "slot" in ctx.given and ctx.picked is not None


@rule
def something_written(ctx: CallContext, env: RuleEnv) -> bool:
    """A booking, change, cancellation or callback request was made in this call."""
    return bool(ctx.writes) or ctx.callback_created


@rule
def unsure_goodbye_mid_task(ctx: CallContext, env: RuleEnv) -> bool:
    """A goodbye only guessed at ("that's it", a lone "thanks") while the caller's task is under way and nothing
    has been done for them yet: it ends no call (the question is asked again). Speech-to-text writes a lone
    "Thank you." for a breath or a noise, and an unclear name or answer as "That's it."."""
    signal = ctx.utt.signal("goodbye") if ctx.utt is not None else None
    return signal is not None and signal.confidence == "low" and ctx.task is not None \
        and not something_written(ctx, env)


@rule
def has_new_task(ctx: CallContext, env: RuleEnv) -> bool:
    return "task" in ctx.given


# ---------------------------------------------------------------- the task

@rule
def has_task(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.task is not None


def _task_rule(task: str) -> Rule:
    def check(ctx: CallContext, env: RuleEnv) -> bool:
        return ctx.task == task
    return check


for _task in TASKS:
    CONDITIONS[f"task_is_{_task}"] = _task_rule(_task)


@rule
def needs_identity(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.task in IDENTITY_TASKS and ctx.patient is None


# ---------------------------------------------------------------- identity

@rule
def any_name_known(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.first_name or ctx.last_name)


@rule
def first_name_known(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.first_name)


@rule
def last_name_known(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.last_name)


@rule
def dob_known(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.dob is not None


@rule
def phone_known(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.phone or ctx.caller_id)


@rule
def phone_given_up(ctx: CallContext, env: RuleEnv) -> bool:
    """The caller was asked for a number and it could not be understood."""
    return "phone" in ctx.skipped


@rule
def has_caller_id(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.caller_id)


@rule
def identified(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.patient is not None


@rule
def dob_mismatch(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.identity_result == "dob_mismatch"


@rule
def dob_attempts_left(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.dob_mismatches < int(env.options.get("dob_attempts", 2))


@rule
def name_attempts_left(ctx: CallContext, env: RuleEnv) -> bool:
    """The name + DOB lookup has found nobody fewer times than the flow allows."""
    return ctx.not_found < int(env.options.get("name_attempts", 2))


@rule
def identity_candidate_found(ctx: CallContext, env: RuleEnv) -> bool:
    """The date of birth is one patient's and their surname was heard (see tools._GetPatientDetails)."""
    return ctx.identity_candidate is not None


@rule
def says_new_patient(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.patient_status == "new"


@rule
def says_been_before(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.patient_status == "returning"


@rule
def name_corrected(ctx: CallContext, env: RuleEnv) -> bool:
    """The caller corrected their name this call (a lookup that then fails is not for a misheard name)."""
    return bool(ctx.corrected.keys() & {"first_name", "last_name"})


@rule
def asked_been_before(ctx: CallContext, env: RuleEnv) -> bool:
    return "been_before" in ctx.asked


@rule
def name_repeated(ctx: CallContext, env: RuleEnv) -> bool:
    """The name was said the same way twice and still matched nobody: the date of birth is the likelier slip,
    once."""
    return ctx.same_name_lookups == 1


@rule
def first_name_unusual(ctx: CallContext, env: RuleEnv) -> bool:
    """A new patient's first name unlike any name people have, not yet spelled by the caller and not yet asked to
    be: a caller who says the name again rather than spell it goes on to the read-back, where it is heard back
    and can be corrected (asking on would go round in circles). Doubt alone does not ask: a first name said again
    under the spelling's letters prompt is written as letters ("OEC" for a plain "Lucy"), and a right name heard
    with doubt was lost that way."""
    return bool(ctx.first_name) and "first_name" not in ctx.spelled and "spell_first" not in ctx.asked \
        and not is_known_name(ctx.first_name, "first")


@rule
def last_name_unusual(ctx: CallContext, env: RuleEnv) -> bool:
    """A new patient's surname unlike any name people have, or heard in words the ears were unsure of."""
    return bool(ctx.last_name) and "last_name" not in ctx.spelled and "spell_last" not in ctx.asked \
        and ("last_name" in ctx.doubted or not is_known_name(ctx.last_name, "last"))


@rule
def surname_spelled_or_asked(ctx: CallContext, env: RuleEnv) -> bool:
    """The caller spelled the surname, or was asked to: a spelling is asked for at most once."""
    return "last_name" in ctx.spelled or bool({"spell_last", "spelling"} & ctx.asked)


@rule
def surname_changed_since_lookup(ctx: CallContext, env: RuleEnv) -> bool:
    """The surname now held (spelled, or corrected) is not the one the last name and date of birth lookup
    used: a record under it may exist."""
    if not ctx.name_lookups or not ctx.last_name or ctx.dob is None:
        return False
    return fold_name(ctx.last_name) != ctx.name_lookups[-1][1]


@rule
def spelling_needed(ctx: CallContext, env: RuleEnv) -> bool:
    """A letter change the caller said fits neither name read back."""
    return ctx.spelling_needed


# ---------------------------------------------------------------- booking details

@rule
def service_known(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.service_id is not None


@rule
def location_needed(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.location_id is None and len(possible_locations(ctx, env.catalog)) > 1


@rule
def practitioner_unsuitable(ctx: CallContext, env: RuleEnv) -> bool:
    """The caller named someone who does not offer this service (at this site)."""
    if ctx.practitioner_id in (None, ANYONE) or ctx.service_id is None:
        return False
    p = env.catalog.practitioner(ctx.practitioner_id)
    if ctx.service_id not in p.services:
        return True
    return ctx.location_id is not None and ctx.location_id not in p.locations


@rule
def window_known(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.window is not None


@rule
def slots_in_window(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.offered) and ctx.offer_in_window


@rule
def nothing_on_offer(ctx: CallContext, env: RuleEnv) -> bool:
    """No times are on offer now: the words that turned a read-back down also changed the search, or the task."""
    return not ctx.offered


@rule
def offered_too_often(ctx: CallContext, env: RuleEnv) -> bool:
    """Times have been offered for this task more often than the flow allows (`max_offers`): a caller who turns
    down every offer, or whose choice is never understood, is called back by a person rather than offered more."""
    return ctx.offers > int(env.options.get("max_offers", 5))


@rule
def slots_after_window(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.offered) and not ctx.offer_in_window


@rule
def slot_taken(ctx: CallContext, env: RuleEnv) -> bool:
    tool = ctx.last_tool
    return tool is not None and tool.kind == "pms" and tool.result.get("code") == "slot_taken"


# ---------------------------------------------------------------- existing bookings

@rule
def no_bookings(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.bookings is not None and not ctx.bookings


@rule
def several_bookings(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.bookings) and len(ctx.bookings) > 1


@rule
def target_chosen(ctx: CallContext, env: RuleEnv) -> bool:
    return len(ctx.targets) == 1


@rule
def all_bookings_picked(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.bookings) and len(ctx.targets) == len(ctx.bookings) and len(ctx.bookings) > 1


# ---------------------------------------------------------------- tools and handoffs

@rule
def last_tool_ok(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.last_tool is not None and ctx.last_tool.ok


@rule
def transfer_available(ctx: CallContext, env: RuleEnv) -> bool:
    return bool(ctx.transfer_number) and not ctx.transfer_failed


@rule
def desk_unanswered(ctx: CallContext, env: RuleEnv) -> bool:
    """The phone line rang the front desk for a warm transfer and nobody took the call (the brief is the
    callback's message)."""
    return ctx.desk_unanswered


_ASK_MESSAGE_FOR = {"caller_request", "human_unavailable"}


@rule
def callback_needs_message(ctx: CallContext, env: RuleEnv) -> bool:
    return (ctx.callback_reason in _ASK_MESSAGE_FOR and not ctx.callback_message
            and "message" not in ctx.skipped)


@rule
def callback_needs_name(ctx: CallContext, env: RuleEnv) -> bool:
    return (ctx.full_name is None and ctx.callback_reason != "unclear"
            and "name" not in ctx.skipped)


@rule
def callback_needs_phone(ctx: CallContext, env: RuleEnv) -> bool:
    return ctx.callback_phone is None and "phone" not in ctx.skipped
