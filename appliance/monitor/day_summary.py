"""One day's work in numbers: what the Today screen shows.

Bookings, reschedules and cancellations are counted from what the calls did
to the diary (a reschedule is not also a cancellation); callbacks from the
requests made; transfers, abandoned, emergency and failed calls from the
calls' outcomes. Latency is per caller turn (see turn_latency.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from ..store.records import TIMING_COLUMNS
from .call_history import day_bounds
from .database_access import Connection, rows
from .turn_latency import percentile, turn_latency_ms


@dataclass
class DaySummary:
    day: date
    calls: int = 0
    in_progress: int = 0
    bookings: int = 0
    reschedules: int = 0
    cancellations: int = 0
    callbacks: int = 0
    transfers: int = 0
    abandoned: int = 0
    emergencies: int = 0
    failed: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    calls_by_hour: dict[int, int] = field(default_factory=dict)
    turns_measured: int = 0
    avg_latency_ms: float | None = None
    p95_latency_ms: float | None = None


def _count(conn: Connection, sql: str, params: list) -> int:
    return int(conn.execute(sql, params).fetchone()[0] or 0)


def day_summary(conn: Connection, day: date) -> DaySummary:
    start, end = day_bounds(day)
    summary = DaySummary(day=day)
    in_day = "started_at >= ? AND started_at < ?"
    calls = rows(conn, f"SELECT started_at, ended_at, outcome, end_action FROM calls WHERE {in_day}", [start, end])
    summary.calls = len(calls)
    for call in calls:
        outcome = call["outcome"] or ("in progress" if not call["ended_at"] else "unknown")
        summary.outcomes[outcome] = summary.outcomes.get(outcome, 0) + 1
        if call["end_action"] == "transfer" or call["outcome"] == "transferred":
            summary.transfers += 1
        try:
            hour = int(call["started_at"][11:13])
        except (TypeError, ValueError):
            continue
        summary.calls_by_hour[hour] = summary.calls_by_hour.get(hour, 0) + 1
    summary.in_progress = summary.outcomes.get("in progress", 0)
    summary.abandoned = summary.outcomes.get("abandoned", 0)
    summary.emergencies = summary.outcomes.get("emergency", 0)
    summary.failed = summary.outcomes.get("failed", 0)
    made = "created_at >= ? AND created_at < ? AND created_by_call IS NOT NULL"
    summary.bookings = _count(conn, f"SELECT count(*) FROM appointments WHERE {made} AND rescheduled_from IS NULL",
                              [start, end])
    summary.reschedules = _count(conn, f"SELECT count(*) FROM appointments WHERE {made} AND rescheduled_from IS NOT NULL",
                                 [start, end])
    summary.cancellations = _count(conn, """
        SELECT count(*) FROM appointments
        WHERE cancelled_at >= ? AND cancelled_at < ? AND cancelled_by_call IS NOT NULL
          AND id NOT IN (SELECT rescheduled_from FROM appointments WHERE rescheduled_from IS NOT NULL)""", [start, end])
    summary.callbacks = _count(conn, "SELECT count(*) FROM callback_requests WHERE created_at >= ? AND created_at < ?",
                               [start, end])
    columns = ", ".join(f"turns.{name}" for name in TIMING_COLUMNS)
    latencies = []
    for turn in rows(conn, f"""
            SELECT {columns} FROM turns JOIN calls ON calls.id = turns.call_id
            WHERE calls.started_at >= ? AND calls.started_at < ? AND turns.seq > 0""", [start, end]):
        latency = turn_latency_ms(turn)
        if latency is not None:
            latencies.append(latency)
    summary.turns_measured = len(latencies)
    if latencies:
        summary.avg_latency_ms = sum(latencies) / len(latencies)
        summary.p95_latency_ms = percentile(latencies, 0.95)
    return summary
