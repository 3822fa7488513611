"""Past calls from the database: searching them, and reading one back as the monitor shows a live call."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from ..engine.types import OUTCOMES  # noqa: F401  (the history's outcome filter offers every one)
from ..events.catch_up import record_entries
from ..events.messages import CallEvent
from ..store.backend import database_over, dialect_of
from ..store.records import CallRecorder
from .call_timeline import CallTimeline, clock_text
from .database_access import Connection, rows


def _patient_names(conn: Connection) -> str:
    """The caller's name as the call proved it: a name+DOB match, or the patient the call created (the JSON
    read in the back end's own words: store/sqlite_sql.py, store/postgres_sql.py)."""
    field = dialect_of(conn).json_text
    return f"""
WITH names AS (
    SELECT call_id, {field('arguments', 'first_name')} || ' ' || {field('arguments', 'last_name')} AS name, id
    FROM tool_calls
    WHERE name = 'GetPatientDetails' AND result_kind = 'ok' AND {field('result', 'status')} = 'matched'
    UNION ALL
    SELECT call_id, {field('result', 'patient', 'first_name')} || ' ' || {field('result', 'patient', 'last_name')}, id
    FROM tool_calls WHERE name = 'CreatePatient' AND result_kind = 'ok'
),
last_name AS (SELECT call_id, name FROM names WHERE id IN (SELECT max(id) FROM names GROUP BY call_id))
"""


@dataclass(frozen=True)
class CallSummary:
    id: str
    started_at: str
    ended_at: str | None
    caller_id: str
    patient_name: str | None
    outcome: str | None
    final_state: str | None
    end_action: str | None
    turns: int

    @property
    def who(self) -> str:
        return self.patient_name or self.caller_id or "withheld number"

    @property
    def duration(self) -> str:
        from datetime import datetime

        if not self.ended_at:
            return "-"
        try:
            seconds = (datetime.fromisoformat(self.ended_at) - datetime.fromisoformat(self.started_at)).total_seconds()
        except ValueError:
            return "-"
        return clock_text(seconds)


def _summaries(conn: Connection, where: list[str], params: list, limit: int) -> list[CallSummary]:
    sql = _patient_names(conn) + """
    SELECT calls.id, calls.started_at, calls.ended_at, coalesce(calls.caller_id, '') AS caller_id,
           last_name.name AS patient_name, calls.outcome, calls.final_state, calls.end_action,
           (SELECT count(*) FROM turns WHERE turns.call_id = calls.id AND turns.seq > 0) AS turns
    FROM calls LEFT JOIN last_name ON last_name.call_id = calls.id
    """
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY calls.started_at DESC, calls.rowid DESC LIMIT ?"
    return [CallSummary(**row) for row in rows(conn, sql, [*params, limit])]


def day_bounds(day: date) -> tuple[str, str]:
    return day.isoformat(), (day + timedelta(days=1)).isoformat()


def search_calls(conn: Connection, *, day: date | None = None, outcome: str | None = None,
                 caller: str | None = None, limit: int = 200) -> list[CallSummary]:
    """Newest first. `caller` matches part of the caller ID or of the identified patient's name."""
    where, params = [], []
    if day is not None:
        where.append("calls.started_at >= ? AND calls.started_at < ?")
        params.extend(day_bounds(day))
    if outcome:
        if outcome == "in progress":
            where.append("calls.ended_at IS NULL")
        else:
            where.append("calls.outcome = ?")
            params.append(outcome)
    if caller and caller.strip():
        text = caller.strip().lower()
        digits = "".join(ch for ch in text if ch.isdigit())
        clauses = ["lower(coalesce(last_name.name, '')) LIKE ?"]
        params_caller = [f"%{text}%"]
        if digits:
            clauses.append("replace(replace(coalesce(calls.caller_id, ''), ' ', ''), '+', '') LIKE ?")
            params_caller.append(f"%{digits}%")
        where.append("(" + " OR ".join(clauses) + ")")
        params.extend(params_caller)
    return _summaries(conn, where, params, limit)


def calls_where(conn: Connection, where: str, params: list, limit: int = 100) -> list[CallSummary]:
    return _summaries(conn, [where], params, limit)


def load_call(conn: Connection, call_id: str) -> CallTimeline | None:
    """The recorded call folded exactly as its live events would have been."""
    record = CallRecorder(database_over(conn)).call_record(call_id)
    if record["call"] is None:
        return None
    timeline = CallTimeline(call_id=call_id)
    for name, fields in record_entries(record):
        timeline.apply(CallEvent(kind=name, call_id=call_id, fields=fields))
    return timeline
