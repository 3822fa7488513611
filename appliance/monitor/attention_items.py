"""What needs a person: open callback requests, calls handed off today, calls cut off or failed, and bookings
a caller may not have heard confirmed."""

from __future__ import annotations

from datetime import date, timedelta

from ..engine.types import CUT_OFF
from .call_history import CallSummary, calls_where, day_bounds
from ..store.backend import DATABASE_ERRORS
from .database_access import Connection, rows

FAILED_DAYS = 7


def open_callbacks(conn: Connection) -> list[dict]:
    """Urgent first, then oldest first (the order staff should work them)."""
    return rows(conn, """
        SELECT id, call_id, name, phone, reason, urgency, created_at, note
        FROM callback_requests WHERE status = 'open'
        ORDER BY urgency = 'urgent' DESC, created_at, rowid""")


def handed_off(conn: Connection, day: date) -> list[CallSummary]:
    """Calls transferred to the front desk or redirected to emergency services on `day`."""
    start, end = day_bounds(day)
    return calls_where(conn, "calls.started_at >= ? AND calls.started_at < ? AND (calls.outcome IN "
                             "('transferred', 'emergency') OR calls.end_action = 'transfer')", [start, end])


def failed_calls(conn: Connection, day: date, days: int = FAILED_DAYS) -> list[CallSummary]:
    """Calls that ended `failed`, or that the service cut off (a crash found at restart, a shutdown, the database
    or the engine failing: engine.types.CUT_OFF), on `day` or the `days` - 1 days before it."""
    start = (day - timedelta(days=days - 1)).isoformat()
    end = (day + timedelta(days=1)).isoformat()
    outcomes = ("failed",) + CUT_OFF
    marks = ", ".join("?" for _ in outcomes)
    return calls_where(conn, f"calls.started_at >= ? AND calls.started_at < ? AND calls.outcome IN ({marks})",
                       [start, end, *outcomes])


def unheard_bookings(conn: Connection, day: date) -> list[dict]:
    """Bookings from `day` on, made on calls now over, that the caller may not have heard confirmed (they hung up
    during the confirmation, or the service stopped): staff confirm them with the patient. Soonest first."""
    try:
        return rows(conn, """
            SELECT a.id, a.created_by_call AS call_id, a.start, p.first_name || ' ' || p.last_name AS who,
                   p.phone, pr.name AS practitioner
            FROM appointments a JOIN calls c ON c.id = a.created_by_call
                 JOIN patients p ON p.id = a.patient_id JOIN practitioners pr ON pr.id = a.practitioner_id
            WHERE a.status = 'booked' AND a.confirmed_aloud = 0 AND c.ended_at IS NOT NULL AND a.start >= ?
            ORDER BY a.start""", [day.isoformat()])
    except DATABASE_ERRORS:      # a database from before confirmed_aloud
        return []
