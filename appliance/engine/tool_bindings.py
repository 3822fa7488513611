"""How the call context feeds each tool and how each tool's result feeds back.

The state machine decides *which* tool runs; this module only fills in its
arguments from what the call collected, states the exact read-back a write
needs confirmed, and stores the result where the rules can see it.
"""

from __future__ import annotations

from typing import Any

from ..domain import ANYONE, TimeWindow
from .conditions import RuleEnv, possible_locations
from .context import CallContext
from .types import ToolRun

CALLBACK_URGENCY = {"crisis": "urgent", "medical_advice": "normal"}


def tool_arguments(name: str, ctx: CallContext, env: RuleEnv) -> dict[str, Any]:
    if name == "GetPatientDetails":
        if ctx.dob is None or not ctx.last_name:
            return {"phone": ctx.caller_id}
        return {"first_name": ctx.first_name, "last_name": ctx.last_name, "dob": ctx.dob,
                "prefer": tuple(p.id for p in ctx.phone_candidates), "heard": tuple(ctx.name_words),
                "not_again": tuple(sorted(ctx.candidates_asked))}
    if name == "CreatePatient":
        return {"first_name": ctx.first_name, "last_name": ctx.last_name, "dob": ctx.dob,
                "phone": ctx.phone or ctx.caller_id or None}
    if name in ("GetServicesAndPricing", "GetAppointmentTypes"):
        return {"service_ids": list(ctx.question_service_ids)}
    if name == "CheckAvailability":
        location = ctx.location_id
        if location is None:
            options = possible_locations(ctx, env.catalog)
            location = options[0] if options else None
        return {"service_id": ctx.service_id, "location_id": location,
                "practitioner_id": ctx.practitioner_id, "window": ctx.window or TimeWindow("soonest")}
    if name == "GetCurrentlyBookedAppts":
        return {"patient_id": ctx.patient.id if ctx.patient else None}
    if name == "CreateAppointment":
        return {"patient_id": ctx.patient.id if ctx.patient else None, "slot": ctx.picked}
    if name == "RescheduleAppointment":
        target = ctx.targets[0] if ctx.targets else None
        return {"appointment_id": target.id if target else None, "slot": ctx.picked}
    if name == "CancelAppt":
        target = ctx.targets[0] if ctx.targets else None
        return {"appointment_id": target.id if target else None}
    if name == "CancelAppointments":
        return {"appointment_ids": sorted(b.id for b in (ctx.targets or ctx.bookings or ()))}
    if name == "AddToWaitlist":
        return {"patient_id": ctx.patient.id if ctx.patient else None, "service_id": ctx.service_id,
                "location_id": ctx.location_id, "note": ctx.window.label if ctx.window else "soonest"}
    if name == "CreateCallbackRequest":
        reason = ctx.callback_reason or "caller_request"
        return {"reason": reason, "message": ctx.callback_message, "name": ctx.full_name,
                "phone": ctx.callback_phone, "patient_id": ctx.patient.id if ctx.patient else None,
                "urgency": CALLBACK_URGENCY.get(reason, "normal")}
    if name == "TransferCall":
        return {"number": ctx.transfer_number}
    if name == "EndCall":
        return {}
    raise KeyError(name)


def apply_result(run: ToolRun, raw: dict | None, ctx: CallContext, store) -> None:
    """Store a tool's findings in the context (raw is None when the tool failed)."""
    ctx.last_tool = run
    if raw is None:
        if run.name == "TransferCall":
            ctx.transfer_failed = True
        return
    name = run.name
    if name == "GetPatientDetails":
        if raw["by"] == "phone":
            ctx.phone_candidates = tuple(p for p in (store.patient(pid) for pid in raw["patient_ids"]) if p)
            return
        ctx.identity_result = raw["status"]
        ctx.identity_candidate = None
        if raw["status"] == "matched":
            ctx.patient = store.patient(raw["patient_id"])
        elif raw["status"] == "dob_mismatch":
            ctx.dob_mismatches += 1
        else:
            ctx.not_found += 1
            if raw.get("candidate_id"):
                ctx.identity_candidate = store.patient(raw["candidate_id"])
                ctx.candidates_asked.add(raw["candidate_id"])
    elif name == "CreatePatient":
        ctx.patient = store.patient(raw["patient_id"])
        ctx.patient_created = True
    elif name == "CheckAvailability":
        ctx.offered = tuple(raw["slots"])
        ctx.offer_in_window = raw["in_window"]
        ctx.offer_window = ctx.window
        ctx.picked = None
    elif name == "GetCurrentlyBookedAppts":
        ctx.bookings = tuple(raw["appointments"])
        still_there = {b.id for b in ctx.bookings}
        ctx.target_ids = tuple(t for t in ctx.target_ids if t in still_there)
        if not ctx.target_ids:
            ctx.target_ids = _targets_from_hint(ctx)
    elif name == "CreateAppointment":
        ctx.booked = raw["appointment"]
        ctx.writes.append("booked")
    elif name == "RescheduleAppointment":
        ctx.rescheduled = (raw["cancelled"], raw["appointment"])
        ctx.writes.append("rescheduled")
    elif name in ("CancelAppt", "CancelAppointments"):
        ctx.cancelled = tuple(raw["cancelled"])
        ctx.writes.append("cancelled")
    elif name == "AddToWaitlist":
        ctx.writes.append("waitlisted")
    elif name == "CreateCallbackRequest":
        ctx.callback_created = True
    elif name == "TransferCall":
        ctx.transferred = True
        ctx.end_action = "transfer"
    elif name == "EndCall":
        ctx.end_action = ctx.end_action or "hangup"


def _targets_from_hint(ctx: CallContext) -> tuple[str, ...]:
    """One booking, or the caller's earlier words ("the one tomorrow"), pick the target."""
    bookings = ctx.bookings or ()
    if len(bookings) == 1:
        return (bookings[0].id,)
    if ctx.booking_hint is not None:
        hits = [b.id for b in bookings if ctx.booking_hint.contains(b.start)]
        if len(hits) == 1 or (hits and ctx.task == "cancel_all"):
            return tuple(hits)
    if ctx.service_id is not None and ctx.task in ("cancel", "reschedule"):
        hits = [b.id for b in bookings if b.service_id == ctx.service_id]
        if len(hits) == 1:
            return tuple(hits)
    if ctx.practitioner_id not in (None, ANYONE):
        hits = [b.id for b in bookings if b.practitioner_id == ctx.practitioner_id]
        if len(hits) == 1:
            return tuple(hits)
    return ()
