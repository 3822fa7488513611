"""CheckAvailability: the slots to offer for the wanted service, site, practitioner and time window. Every slot
it returns goes into the ledger: only those may be booked in this call."""

from __future__ import annotations

from dataclasses import replace

from ...domain import ANYONE, TimeWindow
from ..context import CallContext
from ..rule_env import RuleEnv, possible_locations
from .base import Tool, ToolEnv, ToolKind


OFFERED = 2   # times offered at once


class CheckAvailability(Tool):
    name = "CheckAvailability"
    kind = ToolKind.READ

    def arguments(self, ctx: CallContext, env: RuleEnv) -> dict:
        location = ctx.location_id
        if location is None:
            options = possible_locations(ctx, env.catalog)
            location = options[0] if options else None
        window = ctx.window or TimeWindow("soonest")
        if ctx.refused_days:   # never offered again, whatever the window
            window = replace(window, not_on=tuple(sorted(ctx.refused_days)))
        return {"service_id": ctx.service_id, "location_id": location,
                "practitioner_id": ctx.practitioner_id, "window": window}

    def call(self, env: ToolEnv, *, service_id: str, location_id: str, practitioner_id: str | None,
             window: TimeWindow) -> dict:
        # a time the store refused as taken in this call is never offered again (the patient's own booking at
        # that time, or another writer's): offered again, the caller would go round in circles
        taken = env.ledger.taken
        # the store refuses a second booking of one patient at the same start, so the identified caller is never
        # offered a time they are already booked at (with anyone): a yes to it could only end in "taken"
        patient = env.ledger.identified_patient
        own_starts = {a.start for a in env.store.upcoming_appointments(patient, env.now())} if patient else set()
        offer = env.store.find_slots(
            service_id=service_id, location_id=location_id,
            practitioner_id=None if practitioner_id in (None, ANYONE) else practitioner_id,
            window=window, now=env.now(), count=OFFERED + len(taken) + len(own_starts),
        )
        slots = [slot for slot in offer.slots if slot.key not in taken and slot.start not in own_starts][:OFFERED]
        for slot in slots:
            env.ledger.offered[slot.key] = slot
        return {"slots": slots, "in_window": offer.in_window}

    def apply(self, raw: dict | None, ctx: CallContext, store) -> None:
        if raw is None:
            return
        ctx.offered = tuple(raw["slots"])
        ctx.offers += 1 if ctx.offered else 0
        ctx.offer_in_window = raw["in_window"]
        ctx.offer_window = ctx.window
        ctx.picked = None
