"""What a read-back puts to the caller, stated exactly as the write's guard checks it.

A confirm state reads back a summary; the caller's yes confirms this token and
nothing else. If the caller's words changed anything the token depends on, the
yes no longer matches and the summary is read again.
"""

from __future__ import annotations

from .context import CallContext


def pending_confirmation(kind: str, ctx: CallContext) -> tuple | None:
    """The exact thing a read-back of `kind` puts to the caller, as the guard will check it."""
    if kind == "book" and ctx.patient and ctx.picked:
        return ("book", ctx.patient.id, ctx.picked.key)
    if kind == "reschedule" and ctx.targets and ctx.picked:
        return ("reschedule", ctx.targets[0].id, ctx.picked.key)
    if kind == "cancel" and len(ctx.targets) == 1:
        return ("cancel", ctx.targets[0].id)
    if kind == "cancel_all" and (ctx.targets or ctx.bookings):
        return ("cancel_all", tuple(sorted(b.id for b in (ctx.targets or ctx.bookings or ()))))
    if kind == "patient" and ctx.first_name and ctx.last_name and ctx.dob:
        return ("patient", ctx.first_name, ctx.last_name, ctx.dob, ctx.phone or ctx.caller_id or None)
    if kind == "waitlist" and ctx.patient and ctx.service_id:
        return ("waitlist", ctx.patient.id, ctx.service_id)
    if kind == "identity" and ctx.identity_candidate is not None:
        return ("identity", ctx.identity_candidate.id)
    return None


def on_confirmed(token: tuple, ctx: CallContext) -> None:
    """What a yes settles beyond the ledger. "Am I speaking with Olivia Bennett?" - yes: that name is the
    caller's from now on (the name + date of birth lookup that follows still has to match it)."""
    candidate = ctx.identity_candidate
    if token[0] == "identity" and candidate is not None and candidate.id == token[1]:
        ctx.first_name, ctx.last_name = candidate.first_name, candidate.last_name
        ctx.identity_candidate = None
