"""CreatePatient: a new patient's record, exactly as the caller confirmed it when it was read back."""

from __future__ import annotations

from datetime import date

from ..context import CallContext
from ..rule_env import RuleEnv
from .base import GuardRefusal, Tool, ToolEnv, ToolKind
from .get_patient_details import patient_dict


class CreatePatient(Tool):
    name = "CreatePatient"
    kind = ToolKind.WRITE
    read_back = "patient"

    def arguments(self, ctx: CallContext, env: RuleEnv) -> dict:
        return {"first_name": ctx.first_name, "last_name": ctx.last_name, "dob": ctx.dob,
                "phone": ctx.phone or ctx.caller_id or None}

    def pending(self, ctx: CallContext) -> tuple | None:
        if ctx.first_name and ctx.last_name and ctx.dob:
            return ("patient", ctx.first_name, ctx.last_name, ctx.dob, ctx.phone or ctx.caller_id or None)
        return None

    def call(self, env: ToolEnv, *, first_name: str, last_name: str, dob: date, phone: str | None) -> dict:
        if not (first_name and last_name and dob):
            raise GuardRefusal("Patient creation blocked: name and date of birth were not collected")
        env.ledger.require_confirmed(("patient", first_name, last_name, dob, phone), "Patient creation")
        patient = env.store.create_patient(first_name=first_name, last_name=last_name, dob=dob,
                                           phone=phone, call_id=env.call_id)
        env.ledger.identified_patient = patient.id
        return {"patient_id": patient.id, "patient": patient_dict(patient)}

    def apply(self, raw: dict | None, ctx: CallContext, store) -> None:
        if raw is None:
            return
        ctx.patient = store.patient(raw["patient_id"])
        ctx.patient_created = True
