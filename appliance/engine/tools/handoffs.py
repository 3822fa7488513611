"""The handoffs: the waitlist, a call-back request, a transfer to the front desk, and ending the call. They
change no booking; the waitlist still needs the caller's yes, and a call-back never carries a record the
caller did not prove is theirs."""

from __future__ import annotations

from ..context import CallContext
from ..rule_env import RuleEnv
from .base import GuardRefusal, Tool, ToolEnv, ToolKind

CALLBACK_URGENCY = {"crisis": "urgent", "medical_advice": "normal"}


class AddToWaitlist(Tool):
    name = "AddToWaitlist"
    kind = ToolKind.HANDOFF
    read_back = "waitlist"
    changes_store = True

    def arguments(self, ctx: CallContext, env: RuleEnv) -> dict:
        return {"patient_id": ctx.patient.id if ctx.patient else None, "service_id": ctx.service_id,
                "location_id": ctx.location_id, "note": ctx.window.label if ctx.window else "soonest"}

    def pending(self, ctx: CallContext) -> tuple | None:
        if ctx.patient and ctx.service_id:
            return ("waitlist", ctx.patient.id, ctx.service_id)
        return None

    def call(self, env: ToolEnv, *, patient_id: str | None, service_id: str, location_id: str | None,
             note: str) -> dict:
        env.ledger.require_identified(patient_id, "Waitlist")
        env.ledger.require_confirmed(("waitlist", patient_id, service_id), "Waitlist")
        return {"waitlist_id": env.store.add_to_waitlist(call_id=env.call_id, patient_id=patient_id,
                                                         service_id=service_id, location_id=location_id,
                                                         note=note)}

    def apply(self, raw: dict | None, ctx: CallContext, store) -> None:
        if raw is not None:
            ctx.writes.append("waitlisted")


class CreateCallbackRequest(Tool):
    name = "CreateCallbackRequest"
    kind = ToolKind.HANDOFF
    changes_store = True
    journaled_when_refused = True

    def arguments(self, ctx: CallContext, env: RuleEnv) -> dict:
        reason = ctx.callback_reason or "caller_request"
        return {"reason": reason, "message": ctx.callback_message, "name": ctx.full_name,
                "phone": ctx.callback_phone, "patient_id": ctx.patient.id if ctx.patient else None,
                "urgency": CALLBACK_URGENCY.get(reason, "normal")}

    def call(self, env: ToolEnv, *, reason: str, message: str | None, name: str | None, phone: str | None,
             patient_id: str | None, urgency: str = "normal") -> dict:
        if patient_id is not None and patient_id != env.ledger.identified_patient:
            patient_id = None  # never attach a record the caller did not prove is theirs
        full_reason = reason if not message else f"{reason}: {message}"
        return {"callback_id": env.store.add_callback_request(call_id=env.call_id, patient_id=patient_id,
                                                               name=name, phone=phone, reason=full_reason,
                                                               urgency=urgency)}

    def apply(self, raw: dict | None, ctx: CallContext, store) -> None:
        if raw is not None:
            ctx.callback_created = True


class TransferCall(Tool):
    name = "TransferCall"
    kind = ToolKind.HANDOFF
    ends_call = True

    def arguments(self, ctx: CallContext, env: RuleEnv) -> dict:
        return {"number": ctx.transfer_number}

    def call(self, env: ToolEnv, *, number: str) -> dict:
        if not number:
            raise GuardRefusal("Transfer blocked: the clinic has no transfer number")
        return {"number": number}

    def apply(self, raw: dict | None, ctx: CallContext, store) -> None:
        if raw is None:
            ctx.transfer_failed = True
            return
        ctx.transferred = True
        ctx.end_action = "transfer"


class EndCall(Tool):
    name = "EndCall"
    kind = ToolKind.HANDOFF
    ends_call = True

    def call(self, env: ToolEnv) -> dict:
        return {}

    def apply(self, raw: dict | None, ctx: CallContext, store) -> None:
        if raw is not None:
            ctx.end_action = ctx.end_action or "hangup"
