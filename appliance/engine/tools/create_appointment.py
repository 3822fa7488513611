"""CreateAppointment: book the slot the caller picked and confirmed, for the patient identified this call."""

from __future__ import annotations

from ...domain import Slot
from ..context import CallContext
from ..rule_env import RuleEnv
from .base import Tool, ToolEnv, ToolKind


class CreateAppointment(Tool):
    name = "CreateAppointment"
    kind = ToolKind.WRITE
    read_back = "book"

    def arguments(self, ctx: CallContext, env: RuleEnv) -> dict:
        return {"patient_id": ctx.patient.id if ctx.patient else None, "slot": ctx.picked}

    def pending(self, ctx: CallContext) -> tuple | None:
        if ctx.patient and ctx.picked:
            return ("book", ctx.patient.id, ctx.picked.key)
        return None

    def call(self, env: ToolEnv, *, patient_id: str, slot: Slot) -> dict:
        env.ledger.require_identified(patient_id, "Booking")
        env.ledger.require_offered(slot, "Booking")
        env.ledger.require_confirmed(("book", patient_id, slot.key), "Booking")
        return {"appointment": env.store.create_appointment(patient_id=patient_id, slot=slot, call_id=env.call_id)}

    def apply(self, raw: dict | None, ctx: CallContext, store) -> None:
        if raw is None:
            return
        ctx.booked = raw["appointment"]
        ctx.writes.append("booked")
