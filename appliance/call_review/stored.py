"""The review kept with the call: `calls.summary` (the summary's text) and `calls.review_flags` (JSON: a list of
{kind, reason}), written when the call ends and again when a late record entry (the last turn's timings) arrives
after that. The call's open callback requests get the summary as their first note; staff notes follow it.

Summaries and flags name patients: they live in the database only and are never logged.
"""

from __future__ import annotations

import json
import logging
import sqlite3

import psycopg

from .call_record import read_call
from .flags import ReviewFlag, review_flags
from .summary import CallRecap, summarise

log = logging.getLogger("appliance.call_review")

REFUSED_ERRORS = (sqlite3.OperationalError, psycopg.Error)
MAX_SUMMARY_CHARS = 2000     # the store's limit on free text (store.database.MAX_TEXT_CHARS)
NOTE_PREFIX = "Summary: "


def summary_of_call(conn: sqlite3.Connection, call_id: str) -> CallRecap | None:
    """The summary of the call's record so far (a live call's too); None when there is no such call."""
    call = read_call(conn, call_id)
    return summarise(call) if call is not None else None


def flags_to_text(flags: list[ReviewFlag]) -> str:
    return json.dumps([flag.as_dict() for flag in flags], ensure_ascii=False)


def flags_from_text(text: str | None) -> list[ReviewFlag]:
    """The stored flags; [] for none or for text this version cannot read."""
    try:
        items = json.loads(text) if text else []
    except ValueError:
        return []
    return [ReviewFlag(str(item.get("kind")), str(item.get("reason", ""))) for item in items
            if isinstance(item, dict) and item.get("kind")] if isinstance(items, list) else []


def store_review(conn: sqlite3.Connection, call_id: str) -> bool:
    """Write the call's summary and flags, inside the caller's transaction when there is one. A database that
    refuses the write raises, as for the rest of that transaction; a review that cannot be built (a bug, odd
    record text) leaves the columns as they were, for the monitor to build from the record, and the end of the
    call is recorded regardless. True when written."""
    try:
        call = read_call(conn, call_id)
        if call is None:
            return False
        text = summarise(call).text()[:MAX_SUMMARY_CHARS]
        before = call.call.get("summary")
        conn.execute("UPDATE calls SET summary = ?, review_flags = ? WHERE id = ?",
                     [text, flags_to_text(review_flags(call)), call_id])
        # a note that is still only the summary follows it; one staff have written to is theirs
        conn.execute("UPDATE callback_requests SET note = ? WHERE call_id = ? AND status = 'open' "
                     "AND (note IS NULL OR note = ?)", [NOTE_PREFIX + text, call_id, NOTE_PREFIX + (before or "")])
        return True
    except REFUSED_ERRORS:
        # locked, full, I/O: the store's write budget retries or journals the whole entry; on PostgreSQL any
        # error has aborted the transaction, which must go back whole too
        raise
    except Exception as exc:  # a summary bug must never lose the end of a call
        log.warning("call %s: review not built (%s)", call_id, type(exc).__name__)
        return False
