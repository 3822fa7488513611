"""What the understanding layer hands the engine: the listening context in,
one `Utterance` of structured facts out."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Mapping

from ..domain import AppointmentRecord, Catalog, Region, Slot, TimeWindow
from .questions import Question
from .signals import EVIDENCE

# every intent the rules can find: those the signals declare, each with its evidence label
INTENTS = tuple(EVIDENCE)


@dataclass(frozen=True)
class ListenContext:
    question: Question                    # what the agent just asked (config/flows/questions.yaml)
    now: datetime                         # clinic-local, naive
    catalog: Catalog
    region: Region                        # the clinic's country: date order, phone numbering, words
    offered_slots: tuple[Slot, ...] = ()  # slots just offered, in the order they were read out
    bookings: tuple[AppointmentRecord, ...] = ()  # the caller's upcoming appointments, in the order read out

    @property
    def waiting_for(self) -> str:
        return self.question.name


@dataclass(frozen=True)
class Signal:
    name: str         # an intent name from INTENTS
    confidence: str   # "high" | "medium" | "low"
    evidence: str     # rule label(s), comma-joined, e.g. "booking_terms" or "confirm_prompt,affirmation"


@dataclass(frozen=True)
class PersonName:
    first: str | None
    last: str | None


@dataclass(frozen=True)
class Utterance:
    text: str
    intents: tuple[Signal, ...]       # every intent that fired, most decisive first
    name: PersonName | None = None    # a full or partial name
    spelled: str | None = None        # letters spelled out, upper case, joined ("SMYTH")
    name_replacements: tuple[tuple[str, str], ...] = ()   # (name said before, name meant): "Doe, not Roe"
    letter_edits: tuple[Any, ...] = ()   # name_corrections.LetterEdit: "with a Y", "K not C", "two Ls"
    dob: date | None = None
    phone: str | None = None          # E.164
    service_ids: tuple[str, ...] = ()
    location_id: str | None = None
    practitioner_id: str | None = None   # a practitioner id, or domain.ANYONE
    window: TimeWindow | None = None
    weekdays: tuple[int, ...] = ()       # the weekdays named (Monday = 0): "are you open Mondays and Thursdays?"
    refused_days: tuple[date, ...] = ()  # dates the caller said they cannot do ("I'm working that day")
    slot_pick: int | None = None         # index into ListenContext.offered_slots
    booking_picks: tuple[int, ...] = ()  # indexes into ListenContext.bookings
    patient_status: str | None = None    # "new" or "returning" when the caller said which
    patient_relation: str | None = None  # whom the caller calls for, where someone of theirs ("son")
    answers: Mapping[str, Any] = field(default_factory=dict)  # kinds read by registered extractors

    def has(self, intent: str) -> bool:
        return any(s.name == intent for s in self.intents)

    def signal(self, intent: str) -> Signal | None:
        return next((s for s in self.intents if s.name == intent), None)
