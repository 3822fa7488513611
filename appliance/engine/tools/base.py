"""What every clinic tool is, and the guards the writes share.

A tool is declared once, in its own module: its kind, the read-back its
write needs (the flow's `confirms:`), how the call fills its arguments, what
it does behind its guards, and how its result updates the call. The state
machine decides *which* tool runs; a tool never decides that.

Guards are code: a write runs only for data this call looked up, for the
patient this call identified, after the caller confirmed exactly that. The
`Ledger` is the call's evidence of what was looked up and confirmed; the
engine adds to it only from tool results and the caller's yes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any, Callable, ClassVar

from ...domain import AppointmentRecord, Slot
from ...store.clinic_store import ClinicStore
from ..context import CallContext
from ..rule_env import RuleEnv
from ..types import ToolRun


class ToolKind(str, Enum):
    READ = "read"          # looks things up; changes nothing
    WRITE = "write"        # changes the clinic's bookings or records: only after a confirmed read-back
    HANDOFF = "handoff"    # keeps a record or hands the call on (waitlist, callback, transfer, end)


class GuardRefusal(Exception):
    """A tool call the guards will not allow."""


@dataclass
class Ledger:
    identified_patient: str | None = None
    offered: dict[str, Slot] = field(default_factory=dict)            # slot key -> slot, from CheckAvailability
    looked_up: dict[str, AppointmentRecord] = field(default_factory=dict)  # from GetCurrentlyBookedAppts
    confirmed: set[tuple] = field(default_factory=set)                 # read-backs the caller said yes to
    writes: dict[str, tuple[ToolRun, Any]] = field(default_factory=dict)  # identical write -> first result
    taken: set[str] = field(default_factory=set)      # slot keys the store refused as no longer free: never offered again

    def confirm(self, token: tuple) -> None:
        self.confirmed.add(token)

    # ------------------------------------------------------------ guards

    def require_identified(self, patient_id: str | None, what: str) -> None:
        if not patient_id or patient_id != self.identified_patient:
            raise GuardRefusal(f"{what} blocked: patient {patient_id or '(none)'} was not identified by name and "
                               "date of birth in this call")

    def require_offered(self, slot: Slot, what: str) -> None:
        if self.offered.get(slot.key) != slot:
            raise GuardRefusal(f"{what} blocked: {slot.key} was not returned by CheckAvailability in this call")

    def require_confirmed(self, token: tuple, what: str) -> None:
        if token not in self.confirmed:
            raise GuardRefusal(f"{what} blocked: the caller has not confirmed exactly this")

    def require_looked_up(self, appointment_id: str, what: str) -> AppointmentRecord:
        appt = self.looked_up.get(appointment_id)
        if appt is None:
            raise GuardRefusal(f"{what} blocked: appointment {appointment_id} was not returned by "
                               "GetCurrentlyBookedAppts in this call")
        if appt.patient_id != self.identified_patient:
            raise GuardRefusal(f"{what} blocked: appointment {appointment_id} belongs to another patient")
        return appt


@dataclass
class ToolEnv:
    """What a tool works with while it runs: the store, the call's ledger, the clock and the call's id."""

    store: ClinicStore
    ledger: Ledger
    now: Callable[[], datetime]
    call_id: str


class Tool(ABC):
    """One clinic tool. Subclasses set the class attributes and implement `arguments` and `call`."""

    name: ClassVar[str]
    kind: ClassVar[ToolKind]
    read_back: ClassVar[str | None] = None   # the `confirms:` read-back this tool's call rests on
    ends_call: ClassVar[bool] = False
    # a handoff that writes to the store (every WRITE does): its write and its tool-call record commit in one
    # transaction (runner.py)
    changes_store: ClassVar[bool] = False
    # when the database refuses it, the same call goes to the fallback journal instead (a promise to the caller)
    journaled_when_refused: ClassVar[bool] = False

    @property
    def transactional(self) -> bool:
        return self.kind is ToolKind.WRITE or self.changes_store

    def arguments(self, ctx: CallContext, env: RuleEnv) -> dict[str, Any]:
        """The call's collected facts, as this tool's arguments."""
        return {}

    def pending(self, ctx: CallContext) -> tuple | None:
        """The exact thing this tool's read-back puts to the caller, as its guard will check it (None: the call
        does not yet hold everything the read-back names)."""
        return None

    def on_confirmed(self, token: tuple, ctx: CallContext) -> None:
        """What the caller's yes to this read-back settles beyond the ledger."""

    @abstractmethod
    def call(self, env: ToolEnv, **args: Any) -> dict:
        """Do it, behind the guards; returns the raw result (domain objects) or raises."""

    def apply(self, raw: dict | None, ctx: CallContext, store: ClinicStore) -> None:
        """Take the result into the call (raw is None when the tool failed)."""
