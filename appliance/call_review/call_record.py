"""One call's record as the summary and the review flags read it, from the appliance database.

Only the record's own tables, in SQL both back ends run (SQLite, or PostgreSQL's shared store, whose connection
takes the same `?` placeholders): the store writes the review inside its own transaction with this.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

_JSON_COLUMNS = ("arguments", "result")


@dataclass(frozen=True)
class ReviewedCall:
    call: dict[str, Any]
    turns: list[dict[str, Any]] = field(default_factory=list)
    transitions: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)   # arguments and result as objects
    callbacks: list[dict[str, Any]] = field(default_factory=list)    # the call's callback requests
    unconfirmed: tuple[str, ...] = ()       # ids of bookings it made that the caller may not have heard
    names: dict[str, str] = field(default_factory=dict)             # service, practitioner, location id -> name

    @property
    def ended(self) -> bool:
        return bool(self.call.get("ended_at"))

    def name_of(self, some_id: Any) -> str | None:
        return self.names.get(some_id) if some_id is not None else None


def _rows(conn: sqlite3.Connection, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, values)) for values in cursor.fetchall()]


def _parsed(row: dict[str, Any]) -> dict[str, Any]:
    for column in _JSON_COLUMNS:
        value = row.get(column)
        if isinstance(value, str):
            try:
                row[column] = json.loads(value)
            except ValueError:
                row[column] = {}
        if not isinstance(row.get(column), dict):
            row[column] = {}
    return row


def catalogue_names(conn: sqlite3.Connection) -> dict[str, str]:
    names: dict[str, str] = {}
    for table in ("services", "practitioners", "locations"):
        try:
            names.update({row[0]: row[1] for row in conn.execute(f'SELECT id, name FROM "{table}"')})
        except sqlite3.Error:
            continue
    return names


def read_call(conn: sqlite3.Connection, call_id: str, *, names: dict[str, str] | None = None) -> ReviewedCall | None:
    """The call's record so far (a live call's too); None when there is no such call."""
    calls = _rows(conn, "SELECT * FROM calls WHERE id = ?", [call_id])
    if not calls:
        return None
    try:
        unconfirmed = tuple(row[0] for row in conn.execute(
            "SELECT id FROM appointments WHERE created_by_call = ? AND status = 'booked' AND confirmed_aloud = 0 "
            "ORDER BY start", [call_id]))
    except sqlite3.OperationalError:       # a database from before confirmed_aloud
        unconfirmed = ()
    return ReviewedCall(
        call=calls[0],
        turns=_rows(conn, "SELECT * FROM turns WHERE call_id = ? ORDER BY seq", [call_id]),
        transitions=_rows(conn, "SELECT * FROM transitions WHERE call_id = ? ORDER BY id", [call_id]),
        tool_calls=[_parsed(row) for row in _rows(conn, "SELECT * FROM tool_calls WHERE call_id = ? ORDER BY id",
                                                  [call_id])],
        callbacks=_rows(conn, "SELECT id, name, phone, reason, urgency, status FROM callback_requests "
                              "WHERE call_id = ? ORDER BY created_at, rowid", [call_id]),
        unconfirmed=unconfirmed,
        names=catalogue_names(conn) if names is None else names,
    )
