"""What the front desk hears when it picks up a warm transfer, before the caller is put through.

Built from the call's summary so far (`call_review.summary_of_call`): who is calling (named when they gave a
name, and whether it was verified), what they asked for, what was done, what is still open. The summary's
own lines about the transfer itself are left out: the desk is living it.
"""

from __future__ import annotations

from typing import Any

OPENING = "Hello, this is the automated receptionist with a caller for you."
CLOSING = "I'm putting them through now."
NO_RECORD = "I have no details of the call."
# the summary's lines about this handoff, which the desk is taking part in
_HANDOFF_LINES = ("transferred the call to the front desk", "the front desk answered", "rang the front desk")


def desk_brief(recap: Any | None) -> str:
    """The brief for `recap` (a call_review.CallRecap, or None when the call has no record)."""
    if recap is None:
        return f"{OPENING} {NO_RECORD} {CLOSING}"
    parts = [OPENING, recap.who + "."]
    if recap.asked:
        parts.append("They asked " + _and(recap.asked) + ".")
    done = [line for line in recap.done if not line.startswith(_HANDOFF_LINES)]
    parts.append(("So far I have " + "; ".join(done) + ".") if done else "Nothing has been done for them yet.")
    pending = [line for line in recap.pending if not line.startswith("the call is in progress")]
    if pending:
        parts.append("Still open: " + "; ".join(pending) + ".")
    parts.append(CLOSING)
    return " ".join(parts)


def _and(items: Any) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
