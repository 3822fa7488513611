"""What needs a person: open callback requests, calls handed off today, calls that failed."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta

from .call_history import CallSummary, calls_where, day_bounds
from .database_access import rows

FAILED_DAYS = 7


def open_callbacks(conn: sqlite3.Connection) -> list[dict]:
    """Urgent first, then oldest first (the order staff should work them)."""
    return rows(conn, """
        SELECT id, call_id, name, phone, reason, urgency, created_at, note
        FROM callback_requests WHERE status = 'open'
        ORDER BY urgency = 'urgent' DESC, created_at, rowid""")


def handed_off(conn: sqlite3.Connection, day: date) -> list[CallSummary]:
    """Calls transferred to the front desk or redirected to emergency services on `day`."""
    start, end = day_bounds(day)
    return calls_where(conn, "calls.started_at >= ? AND calls.started_at < ? AND (calls.outcome IN "
                             "('transferred', 'emergency') OR calls.end_action = 'transfer')", [start, end])


def failed_calls(conn: sqlite3.Connection, day: date, days: int = FAILED_DAYS) -> list[CallSummary]:
    """Calls that ended `failed` on `day` or the `days` - 1 days before it."""
    start = (day - timedelta(days=days - 1)).isoformat()
    end = (day + timedelta(days=1)).isoformat()
    return calls_where(conn, "calls.started_at >= ? AND calls.started_at < ? AND calls.outcome = 'failed'",
                       [start, end])
