"""CancelAppt and CancelAppointments: cancel one, or every one, of the caller's looked-up appointments, as
confirmed."""

from __future__ import annotations

from ..context import CallContext
from ..rule_env import RuleEnv
from .base import GuardRefusal, Tool, ToolEnv, ToolKind


class _Cancellation(Tool):
    kind = ToolKind.WRITE

    def apply(self, raw: dict | None, ctx: CallContext, store) -> None:
        if raw is None:
            return
        ctx.cancelled = tuple(raw["cancelled"])
        ctx.writes.append("cancelled")


class CancelAppt(_Cancellation):
    name = "CancelAppt"
    read_back = "cancel"

    def arguments(self, ctx: CallContext, env: RuleEnv) -> dict:
        target = ctx.targets[0] if ctx.targets else None
        return {"appointment_id": target.id if target else None}

    def pending(self, ctx: CallContext) -> tuple | None:
        return ("cancel", ctx.targets[0].id) if len(ctx.targets) == 1 else None

    def call(self, env: ToolEnv, *, appointment_id: str) -> dict:
        env.ledger.require_looked_up(appointment_id, "Cancellation")
        env.ledger.require_confirmed(("cancel", appointment_id), "Cancellation")
        return {"cancelled": [env.store.cancel_appointment(appointment_id, call_id=env.call_id)]}


class CancelAppointments(_Cancellation):
    name = "CancelAppointments"
    read_back = "cancel_all"

    def arguments(self, ctx: CallContext, env: RuleEnv) -> dict:
        return {"appointment_ids": _all_ids(ctx)}

    def pending(self, ctx: CallContext) -> tuple | None:
        return ("cancel_all", tuple(_all_ids(ctx))) if (ctx.targets or ctx.bookings) else None

    def call(self, env: ToolEnv, *, appointment_ids: list[str]) -> dict:
        if not appointment_ids:
            raise GuardRefusal("Cancellation blocked: no appointments named")
        for appointment_id in appointment_ids:
            env.ledger.require_looked_up(appointment_id, "Cancellation")
        env.ledger.require_confirmed(("cancel_all", tuple(sorted(appointment_ids))), "Cancellation")
        return {"cancelled": [env.store.cancel_appointment(appointment_id, call_id=env.call_id)
                              for appointment_id in appointment_ids]}


def _all_ids(ctx: CallContext) -> list[str]:
    return sorted(b.id for b in (ctx.targets or ctx.bookings or ()))
