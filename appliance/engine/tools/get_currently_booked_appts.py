"""GetCurrentlyBookedAppts: the identified caller's upcoming appointments. Only these may be moved or
cancelled in this call."""

from __future__ import annotations

from ...domain import ANYONE
from ..context import CallContext
from ..rule_env import RuleEnv
from .base import Tool, ToolEnv, ToolKind


class GetCurrentlyBookedAppts(Tool):
    name = "GetCurrentlyBookedAppts"
    kind = ToolKind.READ

    def arguments(self, ctx: CallContext, env: RuleEnv) -> dict:
        return {"patient_id": ctx.patient.id if ctx.patient else None}

    def call(self, env: ToolEnv, *, patient_id: str) -> dict:
        env.ledger.require_identified(patient_id, "Lookup")
        appts = env.store.upcoming_appointments(patient_id, env.now())
        for appt in appts:
            env.ledger.looked_up[appt.id] = appt
        return {"appointments": appts}

    def apply(self, raw: dict | None, ctx: CallContext, store) -> None:
        if raw is None:
            return
        ctx.bookings = tuple(raw["appointments"])
        still_there = {b.id for b in ctx.bookings}
        ctx.target_ids = tuple(t for t in ctx.target_ids if t in still_there)
        if not ctx.target_ids and not ctx.booking_hint_texts:
            ctx.target_ids = targets_from_hint(ctx)
        # else the engine reads the caller's earlier words again first ("cancel the pilates, not the physio
        # tomorrow"), and only then falls back to what was gathered from them


def targets_from_hint(ctx: CallContext) -> tuple[str, ...]:
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
