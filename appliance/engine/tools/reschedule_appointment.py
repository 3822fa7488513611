"""RescheduleAppointment: move one of the caller's looked-up appointments to a slot they picked and confirmed
(the old one is cancelled in the same transaction)."""

from __future__ import annotations

from ...domain import Slot
from ..context import CallContext
from ..rule_env import RuleEnv
from .base import Tool, ToolEnv, ToolKind


class RescheduleAppointment(Tool):
    name = "RescheduleAppointment"
    kind = ToolKind.WRITE
    read_back = "reschedule"

    def arguments(self, ctx: CallContext, env: RuleEnv) -> dict:
        target = ctx.targets[0] if ctx.targets else None
        return {"appointment_id": target.id if target else None, "slot": ctx.picked}

    def pending(self, ctx: CallContext) -> tuple | None:
        if ctx.targets and ctx.picked:
            return ("reschedule", ctx.targets[0].id, ctx.picked.key)
        return None

    def call(self, env: ToolEnv, *, appointment_id: str, slot: Slot) -> dict:
        env.ledger.require_looked_up(appointment_id, "Reschedule")
        env.ledger.require_offered(slot, "Reschedule")
        env.ledger.require_confirmed(("reschedule", appointment_id, slot.key), "Reschedule")
        old, new = env.store.reschedule_appointment(appointment_id, slot, call_id=env.call_id)
        return {"cancelled": old, "appointment": new}

    def apply(self, raw: dict | None, ctx: CallContext, store) -> None:
        if raw is None:
            return
        ctx.rescheduled = (raw["cancelled"], raw["appointment"])
        ctx.writes.append("rescheduled")
