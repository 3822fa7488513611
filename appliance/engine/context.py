"""What one call has collected so far: the caller's answers and the tools' findings.

The context is mutable and belongs to one call. Rules (conditions.py) only read
it; the engine's absorb step and the tool results are the only writers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ..domain import AppointmentRecord, PatientRecord, Slot, TimeWindow
from ..understanding import Utterance
from .types import ToolRun

TASKS = ("book", "reschedule", "cancel", "cancel_all", "query")
# tasks that need the caller identified by name + date of birth first
IDENTITY_TASKS = frozenset(TASKS)


@dataclass
class CallContext:
    call_id: str
    caller_id: str = ""                 # E.164 when it parsed, else as given ("" = withheld)
    transfer_number: str | None = None

    # what the caller wants
    task: str | None = None

    # who the caller says they are
    first_name: str | None = None
    last_name: str | None = None
    dob: date | None = None
    phone: str | None = None            # a number the caller gave
    phone_candidates: tuple[PatientRecord, ...] = ()   # patients on the caller ID (narrows, never unlocks)
    patient: PatientRecord | None = None               # identified by name + DOB, or created this call
    patient_created: bool = False
    identity_result: str | None = None  # matched | dob_mismatch | not_found, from the last name + DOB lookup
    dob_mismatches: int = 0
    not_found: int = 0                  # name + DOB lookups that found nobody
    patient_status: str | None = None   # "new" or "returning", when the caller said so
    patient_relation: str | None = None   # whom the caller books for, where someone of theirs ("son")
    name_words: list[str] = field(default_factory=list)   # what was said when a name was asked for
    # what the caller corrected, and the form they corrected away from (folded): a later answer in that
    # old form does not undo the correction ("first_name", "last_name", "dob")
    corrected: dict[str, str] = field(default_factory=dict)
    spelling_needed: bool = False       # a letter change that fit neither name: ask for a spelling
    spelled: set[str] = field(default_factory=set)   # name parts the caller spelled ("first_name", "last_name")
    doubted: set[str] = field(default_factory=set)   # name parts taken from words the ears were unsure of
    doubtful_words: tuple[str, ...] = ()   # this turn's words the ears were unsure of (Engine.turn)
    name_lookups: list[tuple[str, str]] = field(default_factory=list)   # (first, last) of each name + DOB lookup
    same_name_lookups: int = 0          # lookups that found nobody under the same name as the one before
    asked: set[str] = field(default_factory=set)   # questions asked so far this call
    # the one patient whose date of birth was given and whose surname was among those words (not identified:
    # the caller is asked, by name); each is put to the caller at most once a call
    identity_candidate: PatientRecord | None = None
    candidates_asked: set[str] = field(default_factory=set)

    # what they want booked
    service_id: str | None = None
    location_id: str | None = None
    practitioner_id: str | None = None  # an id, domain.ANYONE, or None (not said: anyone)
    window: TimeWindow | None = None
    refused_days: set[date] = field(default_factory=set)   # days the caller said they cannot do, all call long
    booking_hint: TimeWindow | None = None   # a day said about an existing booking, before we loaded them
    booking_hint_texts: list[str] = field(default_factory=list)  # the caller's words about it ("the one tomorrow")
    offered: tuple[Slot, ...] = ()
    offers: int = 0   # times slots were offered for this task (flow option max_offers)
    offer_in_window: bool = True
    offer_window: TimeWindow | None = None
    picked: Slot | None = None

    # their existing bookings
    bookings: tuple[AppointmentRecord, ...] | None = None   # None until looked up
    target_ids: tuple[str, ...] = ()

    # results to talk about
    booked: AppointmentRecord | None = None
    rescheduled: tuple[AppointmentRecord, AppointmentRecord] | None = None
    cancelled: tuple[AppointmentRecord, ...] = ()
    question_service_ids: tuple[str, ...] = ()   # what the caller's question is about

    # handoffs
    callback_reason: str | None = None
    callback_message: str | None = None
    callback_created: bool = False
    transferred: bool = False
    transfer_failed: bool = False
    desk_unanswered: bool = False       # a warm transfer rang the front desk and nobody took the call
    emergency: bool = False
    ended: bool = False
    end_action: str | None = None
    hung_up: bool = False
    store_refused: bool = False        # the database refused a write this call (locked, full): see types.OUTCOMES
    # the call was ended from outside the conversation: (outcome, reason, staff user or None)
    cut: tuple[str, str, str | None] | None = None

    # answers of the kinds registered extractors read (understanding/extractors.py), by kind
    answers: dict[str, Any] = field(default_factory=dict)

    # writes that happened, in order: booked, rescheduled, cancelled, waitlisted
    writes: list[str] = field(default_factory=list)

    # the read-back just said, and its kind (see read_backs.py)
    pending_kind: str | None = None
    pending: tuple | None = None

    # bookkeeping for the rules
    utt: Utterance | None = None        # the utterance being handled this turn
    given: set[str] = field(default_factory=set)   # what this turn's words filled
    side_trips_this_turn: int = 0                  # questions answered this turn
    skipped: set[str] = field(default_factory=set) # kinds of answer given up on (caller could not give them)
    misses: dict[str, int] = field(default_factory=dict)
    last_side_trip: tuple = ()          # (state, questions answered) of the last turn that only asked something
    same_side_trips: int = 0            # turns in a row that asked just that
    state: str = ""                     # the state the call is in (rules may look at its misses)
    last_tool: ToolRun | None = None
    caller_turns: int = 0
    understood_turns: int = 0

    @property
    def full_name(self) -> str | None:
        if self.patient is not None:
            return self.patient.full_name
        parts = [p for p in (self.first_name, self.last_name) if p]
        return " ".join(parts) or None

    @property
    def callback_phone(self) -> str | None:
        return self.phone or self.caller_id or (self.patient.phone if self.patient else None) or None

    @property
    def targets(self) -> tuple[AppointmentRecord, ...]:
        if not self.bookings:
            return ()
        wanted = set(self.target_ids)
        return tuple(b for b in self.bookings if b.id in wanted)

    def reset_task_details(self) -> None:
        """A new task in the same call keeps who the caller is and forgets the rest."""
        self.service_id = self.location_id = self.practitioner_id = None
        self.window = self.booking_hint = self.offer_window = None
        self.offered = ()
        self.offers = 0
        self.picked = None
        self.target_ids = ()
        self.bookings = None
        self.booking_hint_texts = []
        self.question_service_ids = ()
