"""The engine's input and output types: one small module everyone imports.

A caller utterance goes in as text; a `TurnResult` comes out. The voice
pipeline, the SIP bridge, the simulator and the monitor all speak these types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..understanding.questions import Question

# What the conversation achieved (SCENARIOS.md), then how a call ended when something outside the conversation
# ended it: the service restarted mid-call (`interrupted`, found at the next start), staff ended it or took it
# from the monitor (`taken_over`: a person joined the call from a listen-in or take-over and the receptionist
# stopped), the service was stopped (`shutdown`), the database refused the caller's write
# (`failed_store`), or the engine broke outside its own guard (`engine_error`).
CUT_OUTCOMES = ("interrupted", "ended_by_staff", "transferred_by_staff", "taken_over", "shutdown", "failed_store",
                "engine_error")
OUTCOMES = ("booked", "rescheduled", "cancelled", "info", "callback", "transferred", "emergency", "abandoned",
            "failed") + CUT_OUTCOMES
# a caller the service itself cut off: a callback request is raised for them (when their number is known)
CUT_OFF = ("interrupted", "shutdown", "failed_store", "engine_error")

RESULT_KINDS = ("ok", "guard", "pms", "other")

# intent name -> route label in the customer's trigger vocabulary (a `Trigger`'s route, kept in the call record)
ROUTES = {
    "book": "booking_request", "reschedule": "reschedule_request", "cancel": "cancel_request",
    "cancel_all": "cancel_all_request", "query": "booking_query", "price": "price_question",
    "hours": "hours_question", "address": "address_question", "service_info": "service_question",
    "human": "human_request", "callback": "callback_request", "emergency": "emergency",
    "crisis": "crisis", "medical_advice": "medical_advice", "non_service": "non_service_caller",
    "yes": "confirmation", "no": "declined", "correction": "correction", "goodbye": "closing",
    "withdraw": "task_withdrawn", "offer_check": "offer_question",
}


@dataclass(frozen=True)
class CallInfo:
    caller_id: str = ""          # what SIP From / caller ID carried; "" when withheld
    call_id: str | None = None   # given by the transport, or made by the engine's id source


@dataclass(frozen=True)
class Trigger:
    """Why the engine took a route: the customer's `route/confidence evidence` triple."""

    route: str
    confidence: str  # high | medium | low
    evidence: str

    def __str__(self) -> str:
        return f"{self.route}/{self.confidence} {self.evidence}"

    def as_tuple(self) -> tuple[str, str, str]:
        return (self.route, self.confidence, self.evidence)


NO_RULE = Trigger("unknown", "low", "no_rule_matched")


@dataclass(frozen=True)
class ToolRun:
    name: str
    state: str
    arguments: dict[str, Any]
    kind: str                  # one of RESULT_KINDS
    result: dict[str, Any]
    duration_ms: float

    @property
    def ok(self) -> bool:
        return self.kind == "ok"


@dataclass(frozen=True)
class Transition:
    from_state: str
    to_state: str
    trigger: Trigger | None


@dataclass
class TurnResult:
    reply: str
    state: str
    waiting_for: str
    tools: list[ToolRun] = field(default_factory=list)
    transitions: list[Transition] = field(default_factory=list)
    trigger: Trigger | None = None
    ended: bool = False
    outcome: str | None = None
    end_action: str | None = None      # "hangup" | "transfer" when the call ends
    transfer_to: str | None = None
    seq: int = 0                       # turn number in the call record (greeting = 0)
    # the question `waiting_for` names: what the ears should expect next (its speech-to-text prompt, its
    # patience at the end of a turn, what keypad digits mean)
    question: Question | None = None
    # what the next answer is likely to be, where the answers are few and known: each option's phrases
    # (engine/expected_answers.py)
    expected: tuple[tuple[str, ...], ...] = ()
    # what the question just asked reads back for a yes or no (its state's `confirms`: "identity", "book", ...)
    confirms: str | None = None

    @property
    def hangup(self) -> bool:
        return self.end_action == "hangup"

    @property
    def transfer(self) -> bool:
        return self.end_action == "transfer"
