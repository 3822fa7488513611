"""A call in a few sentences, for the front desk: who, what they asked, what was done, what is still open, and
why the call was handed to a person or to a call back.

Built only from the record (`ReviewedCall`); the words for routes and reasons are the flow's vocabulary, not any
clinic's. A call in progress gets the summary of its record so far.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..engine.types import CUT_OFF, ROUTES
from .call_record import ReviewedCall

# what the caller asked, by the route their words took (an intent name too, for the classifier's `llm_intent:`)
ASKED = {
    "booking_request": "to book", "reschedule_request": "to reschedule", "cancel_request": "to cancel",
    "cancel_all_request": "to cancel all their bookings", "booking_query": "about their bookings",
    "price_question": "about a price", "hours_question": "about the opening hours",
    "address_question": "about an address",
    "service_question": "about a service", "human_request": "for a person", "callback_request": "for a call back",
    "emergency": "about an emergency", "crisis": "for help in a crisis", "medical_advice": "for medical advice",
    "non_service_caller": "about something other than care",
}
# questions the receptionist answers itself (side trips)
_QUESTIONS = ("price_question", "hours_question", "address_question", "service_question")
# the write that does what was asked: a task asked and never done (and not handed on) is still open
_TASK_TOOLS = {"booking_request": ("CreateAppointment",), "reschedule_request": ("RescheduleAppointment",),
               "cancel_request": ("CancelAppt", "CancelAppointments", "RescheduleAppointment"),
               "cancel_all_request": ("CancelAppointments", "CancelAppt")}

# why a call back was asked for: the flow's `reason` on the edge that led there (and recovery's)
CALLBACK_REASONS = {
    "caller_request": "the caller asked to be called back", "medical_advice": "the caller asked for medical advice",
    "non_service": "not a patient matter", "crisis": "a caller in crisis",
    "unverified_identity": "the caller's identity could not be verified",
    "patient_not_found": "no patient record was found", "booking_failed": "the booking could not be made",
    "no_time_agreed": "no time offered suited the caller",
    "cancel_failed": "the cancellation could not be made", "system_error": "something went wrong on the system",
    "unclear": "the caller could not be understood",
    "human_unavailable": "the caller asked for a person and nobody could take the call",
    "transfer_failed": "the transfer to the front desk did not connect",
    "desk_unanswered": "the front desk did not answer the transfer", "cut_off": "the call was cut off",
    "confirm_booking": "a booking the caller may not have heard confirmed",
}
# why a call was transferred, by the route of the turn that sent it
TRANSFER_ROUTES = {"human_request": "the caller asked for a person", "crisis": "a caller in crisis",
                   "emergency": "an emergency", "staff": "the front desk took the call"}


@dataclass(frozen=True)
class CallRecap:
    who: str
    identified: bool
    asked: tuple[str, ...]
    done: tuple[str, ...]
    pending: tuple[str, ...]
    handoff: str | None          # why the call went to a person or to a call back, else None
    in_progress: bool

    def text(self) -> str:
        """One paragraph: what the History, the callback note and a transfer brief show."""
        asked = "Asked " + _and(self.asked) + "." if self.asked else "Asked nothing the receptionist understood."
        parts = [self.who + ".", asked, "Done: " + ("; ".join(self.done) if self.done else "nothing") + ".",
                 "Pending: " + ("; ".join(self.pending) if self.pending else "nothing") + "."]
        if self.handoff:
            parts.append(self.handoff + ".")
        return " ".join(parts)


def _and(items: tuple[str, ...] | list[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def when_text(start: Any) -> str:
    """"Thu 2026-11-26 12:15" from the store's clinic-local ISO text."""
    try:
        moment = datetime.fromisoformat(str(start))
    except ValueError:
        return str(start)
    return moment.strftime("%a %Y-%m-%d %H:%M")


def _full_name(first: Any, last: Any) -> str | None:
    name = " ".join(str(part) for part in (first, last) if part)
    return name or None


def _who(call: ReviewedCall) -> tuple[str, bool]:
    identified = new = said = None
    for tool in call.tool_calls:
        args, result = tool["arguments"], tool["result"]
        if tool["result_kind"] != "ok":
            continue
        if tool["name"] == "GetPatientDetails" and args.get("last_name"):
            if result.get("status") == "matched":
                identified = _full_name(args.get("first_name"), args.get("last_name"))
            else:
                said = _full_name(args.get("first_name"), args.get("last_name"))
        elif tool["name"] == "CreatePatient":
            patient = result.get("patient") or args
            new = _full_name(patient.get("first_name"), patient.get("last_name"))
        elif tool["name"] == "CreateCallbackRequest" and args.get("name"):
            said = args["name"]
    caller_id = call.call.get("caller_id") or ""
    line = f"from {caller_id}" if caller_id else "withheld number"
    if identified:
        return f"{identified}, identified by name and date of birth ({line})", True
    if new:
        return f"{new}, a new patient set up on this call ({line})", True
    if said:
        return f"{said} by their own account, not verified ({line})", False
    return f"Caller not identified ({line})", False


def _routes(call: ReviewedCall) -> list[tuple[int, str]]:
    """(turn, route) of each caller turn, classifier labels read as the intent they name."""
    found = []
    for turn in call.turns:
        route, evidence = turn.get("trigger_route"), turn.get("trigger_evidence") or ""
        if route == "llm" and evidence.startswith("llm_intent:"):
            route = ROUTES.get(evidence.split(":", 1)[1], route)
        if route:
            found.append((turn["seq"], route))
    return found


def _first_service(call: ReviewedCall) -> str | None:
    for tool in call.tool_calls:
        if tool["name"] == "CheckAvailability" and tool["arguments"].get("service_id"):
            return call.name_of(tool["arguments"]["service_id"])
    return None


def _asked(call: ReviewedCall) -> tuple[str, ...]:
    asked: list[str] = []
    for _, route in _routes(call):
        words = ASKED.get(route)
        if words is None:
            continue
        if route == "booking_request" and (service := _first_service(call)):
            words = f"to book {service}"
        if words not in asked:
            asked.append(words)
    return tuple(asked)


def _appointment(call: ReviewedCall, appointment: dict[str, Any], *, place: bool = True) -> str:
    service = call.name_of(appointment.get("service_id")) or "an appointment"
    text = service
    practitioner = call.name_of(appointment.get("practitioner_id"))
    if practitioner:
        text += f" with {practitioner}"
    location = call.name_of(appointment.get("location_id"))
    if place and location:
        text += f" at {location}"
    return text


def _done(call: ReviewedCall) -> tuple[str, ...]:
    done: list[str] = []
    for tool in call.tool_calls:
        if tool["result_kind"] != "ok":
            continue
        name, args, result = tool["name"], tool["arguments"], tool["result"]
        if name == "CreatePatient":
            done.append("set up a new patient record")
        elif name == "CreateAppointment" and result.get("appointment"):
            booked = result["appointment"]
            done.append(f"booked {_appointment(call, booked)}, {when_text(booked.get('start'))}")
        elif name == "RescheduleAppointment" and result.get("appointment"):
            new, old = result["appointment"], result.get("cancelled") or {}
            done.append(f"moved {_appointment(call, new)} from {when_text(old.get('start'))} to "
                        f"{when_text(new.get('start'))}")
        elif name in ("CancelAppt", "CancelAppointments"):
            for cancelled in result.get("cancelled") or []:
                if isinstance(cancelled, dict):
                    done.append(f"cancelled {_appointment(call, cancelled, place=False)}, "
                                f"{when_text(cancelled.get('start'))}")
        elif name == "AddToWaitlist":
            service = call.name_of(args.get("service_id"))
            done.append("added to the waitlist" + (f" for {service}" if service else ""))
        elif name == "GetCurrentlyBookedAppts" and any(r == "booking_query" for _, r in _routes(call)):
            done.append(f"told them their bookings ({len(result.get('appointments') or [])})")
        elif name == "CreateCallbackRequest":
            done.append("took a callback request")
        elif name == "TransferCall":
            done.append("transferred the call to the front desk")
        elif name == "DeskLeg" and result.get("connected"):
            done.append(f"the front desk answered after {result.get('waited_s')} s")
        elif name == "DeskLeg":
            done.append(f"rang the front desk ({result.get('answer')} after {result.get('waited_s')} s)")
    answered = [ASKED[route] for route in _QUESTIONS if any(r == route for _, r in _routes(call))]
    if answered:
        done.append(("answered their question " if len(answered) == 1 else "answered their questions ") + _and(answered))
    if call.call.get("outcome") == "emergency":
        done.append("told the caller to call emergency services")
    return tuple(done)


def _pending(call: ReviewedCall) -> tuple[str, ...]:
    pending: list[str] = []
    if not call.ended:
        pending.append(f"the call is in progress (at {call.call.get('final_state') or _last_state(call)})")
    for callback in call.callbacks:
        if callback.get("status") == "open":
            who = callback.get("phone") or "no number given"
            urgent = "urgently " if callback.get("urgency") == "urgent" else ""
            pending.append(f"call back {urgent}on {who}")
    by_id = {}
    for tool in call.tool_calls:
        appointment = tool["result"].get("appointment") if tool["result_kind"] == "ok" else None
        if isinstance(appointment, dict) and appointment.get("id"):
            by_id[appointment["id"]] = appointment
    for appointment_id in call.unconfirmed:
        appointment = by_id.get(appointment_id, {})
        pending.append(f"confirm the booking {when_text(appointment.get('start'))} with the patient (they may not "
                       "have heard it)")
    written = {tool["name"] for tool in call.tool_calls if tool["result_kind"] == "ok"}
    handed_on = call.callbacks or "TransferCall" in written
    if call.ended and not handed_on and call.call.get("outcome") != "emergency":
        for route, tools in _TASK_TOOLS.items():
            if any(r == route for _, r in _routes(call)) and not written & set(tools):
                pending.append(f"not done: {ASKED[route]}")
    return tuple(pending)


def _last_state(call: ReviewedCall) -> str:
    return call.transitions[-1]["to_state"] if call.transitions else "the start"


def _reason_words(code: str | None) -> str:
    if not code:
        return "no reason recorded"
    head, _, rest = code.partition(":")
    words = CALLBACK_REASONS.get(head.strip())
    if words is None:
        return code.replace("_", " ")
    return f"{words} ({rest.strip()})" if rest.strip() and head.strip() != "cut_off" else words


def _handoff(call: ReviewedCall) -> str | None:
    record = call.call
    outcome = record.get("outcome")
    if outcome == "transferred_by_staff":
        by = record.get("ended_by")
        return "Transferred: the front desk took the call" + (f" ({by})" if by else "")
    if outcome == "taken_over":
        by = record.get("ended_by")
        return "Taken over: a person at the front desk joined the call" + (f" ({by})" if by else "")
    if outcome == "transferred" or record.get("end_action") == "transfer":
        seqs = [tool["turn_seq"] for tool in call.tool_calls if tool["name"] == "TransferCall"]
        routes = dict(_routes(call))
        route = routes.get(seqs[-1]) if seqs else None
        return "Transferred: " + TRANSFER_ROUTES.get(route or "", (route or "no reason recorded").replace("_", " "))
    if outcome == "ended_by_staff":
        by = record.get("ended_by")
        return "Ended by the front desk" + (f" ({by})" if by else "")
    if outcome in CUT_OFF:
        return "Cut off: " + (record.get("end_reason") or outcome.replace("_", " "))
    asked = [tool for tool in call.tool_calls if tool["name"] == "CreateCallbackRequest" and tool["result_kind"] == "ok"]
    if asked:
        args = asked[-1]["arguments"]
        message = (args.get("message") or "").strip()
        return "Call back because " + _reason_words(args.get("reason")) + (f": “{message}”" if message else "")
    if call.callbacks:
        return "Call back because " + _reason_words(call.callbacks[-1].get("reason"))
    if outcome == "emergency":
        return "Sent to emergency services"
    if outcome == "failed":
        return "Failed: the receptionist could not help and no call back was arranged"
    return None


def summarise(call: ReviewedCall) -> CallRecap:
    who, identified = _who(call)
    return CallRecap(who=who, identified=identified, asked=_asked(call), done=_done(call), pending=_pending(call),
                     handoff=_handoff(call), in_progress=not call.ended)
