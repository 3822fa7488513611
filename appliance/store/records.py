"""Call records: what happened on each call, written as the call goes.

Every method commits before it returns, so a crash mid-call leaves the record
of everything up to that point. The simulator checks calls against these rows
and the monitor shows them.

When the database cannot be written (disk full, read-only file, I/O error) a
`RecordError` names the database file; the engine decides what to do.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, time
from enum import Enum
from typing import Any

import sqlite_utils

RESULT_KINDS = ("ok", "guard", "pms", "other")

# Filled in later by the voice layer: moments (ISO text) and durations (milliseconds).
TIMING_MOMENTS = ("speech_start", "speech_end", "agent_speech_start", "agent_speech_end")
TIMING_DURATIONS = ("stt_ms", "engine_ms", "llm_ms", "tts_first_audio_ms")
TIMING_COLUMNS = TIMING_MOMENTS + TIMING_DURATIONS

_JSON_COLUMNS = {"arguments", "result"}


class RecordError(Exception):
    """The call record could not be written; the message names the database."""


def iso(moment: datetime | date | time | None) -> str | None:
    """ISO text: seconds, or milliseconds when the moment has a fraction."""
    if moment is None:
        return None
    if isinstance(moment, datetime):
        return moment.isoformat(timespec="milliseconds" if moment.microsecond else "seconds")
    return moment.isoformat()


def _json_default(value: Any) -> Any:
    if isinstance(value, (datetime, date, time)):
        return iso(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, Enum):
        return value.value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    return str(value)


def to_json(value: Any) -> str:
    """JSON text for a tool's arguments or result (dates as ISO, dataclasses as objects)."""
    return json.dumps(value, default=_json_default, ensure_ascii=False, sort_keys=False)


class CallRecorder:
    def __init__(self, db: sqlite_utils.Database):
        self.db = db

    # -- plumbing ------------------------------------------------------------

    def _where(self) -> str:
        try:
            for _, name, file in self.db.conn.execute("PRAGMA database_list").fetchall():
                if name == "main":
                    return file or "the in-memory database"
        except sqlite3.Error:
            pass
        return "the database"

    @contextmanager
    def _writing(self, what: str) -> Iterator[sqlite3.Connection]:
        conn = self.db.conn
        outer = conn.in_transaction
        try:
            if not outer:
                conn.execute("BEGIN IMMEDIATE")
            yield conn
            if not outer:
                conn.execute("COMMIT")
        except sqlite3.IntegrityError as error:
            self._rollback(outer)
            raise RecordError(f"cannot record {what} in {self._where()}: {error}") from error
        except sqlite3.Error as error:
            self._rollback(outer)
            raise RecordError(f"cannot write the call record to {self._where()}: {error}") from error
        except BaseException:
            self._rollback(outer)
            raise

    def _rollback(self, outer: bool) -> None:
        if not outer and self.db.conn.in_transaction:
            try:
                self.db.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    @staticmethod
    def _trigger(trigger: Any) -> tuple[Any, Any, Any]:
        if trigger is None:
            return (None, None, None)
        if hasattr(trigger, "as_tuple"):
            trigger = trigger.as_tuple()
        route, confidence, evidence = trigger
        return (route, confidence, evidence)

    def _insert(self, conn: sqlite3.Connection, table: str, row: dict[str, Any]) -> None:
        columns = ", ".join(f'"{name}"' for name in row)
        marks = ", ".join("?" for _ in row)
        conn.execute(f'INSERT INTO "{table}" ({columns}) VALUES ({marks})', list(row.values()))

    # -- writing -------------------------------------------------------------

    WRITERS = ("call_started", "turn", "transition", "tool_call", "turn_timing", "call_ended")

    def write_batch(self, entries: list[tuple[str, dict[str, Any]]]) -> None:
        """Several record writes (method name, keyword arguments) in one transaction: all or none."""
        for name, _ in entries:
            if name not in self.WRITERS:
                raise ValueError(f"not a record writer: {name}")
        with self._writing(f"{len(entries)} call record entries"):
            for name, kwargs in entries:
                getattr(self, name)(**kwargs)

    def call_started(self, *, call_id: str, clinic: str | None, caller_id: str | None, started_at: datetime) -> None:
        with self._writing(f"the start of call {call_id!r}") as conn:
            self._insert(
                conn,
                "calls",
                {"id": call_id, "clinic": clinic, "caller_id": caller_id, "started_at": iso(started_at)},
            )

    def turn(
        self,
        *,
        call_id: str,
        seq: int,
        caller_text: str | None,
        agent_text: str | None,
        state: str | None,
        waiting_for: str | None,
        trigger: tuple[str, str, str] | None,
        at: datetime,
    ) -> None:
        route, confidence, evidence = self._trigger(trigger)
        with self._writing(f"turn {seq} of call {call_id!r}") as conn:
            self._insert(
                conn,
                "turns",
                {
                    "call_id": call_id,
                    "seq": seq,
                    "caller_text": caller_text,
                    "agent_text": agent_text,
                    "state": state,
                    "waiting_for": waiting_for,
                    "trigger_route": route,
                    "trigger_confidence": confidence,
                    "trigger_evidence": evidence,
                    "at": iso(at),
                },
            )

    def transition(
        self,
        *,
        call_id: str,
        turn_seq: int,
        from_state: str | None,
        to_state: str,
        trigger: tuple[str, str, str] | None,
        at: datetime,
    ) -> None:
        route, confidence, evidence = self._trigger(trigger)
        with self._writing(f"a transition of call {call_id!r}") as conn:
            self._insert(
                conn,
                "transitions",
                {
                    "call_id": call_id,
                    "turn_seq": turn_seq,
                    "from_state": from_state,
                    "to_state": to_state,
                    "trigger_route": route,
                    "trigger_confidence": confidence,
                    "trigger_evidence": evidence,
                    "at": iso(at),
                },
            )

    def tool_call(
        self,
        *,
        call_id: str,
        turn_seq: int,
        state: str | None,
        name: str,
        arguments: dict,
        result_kind: str,
        result: dict,
        duration_ms: float,
        at: datetime,
    ) -> None:
        if result_kind not in RESULT_KINDS:
            raise ValueError(f"result_kind must be one of {', '.join(RESULT_KINDS)}, not {result_kind!r}")
        with self._writing(f"tool call {name!r} of call {call_id!r}") as conn:
            self._insert(
                conn,
                "tool_calls",
                {
                    "call_id": call_id,
                    "turn_seq": turn_seq,
                    "state": state,
                    "name": name,
                    "arguments": to_json(arguments if arguments is not None else {}),
                    "result_kind": result_kind,
                    "result": to_json(result if result is not None else {}),
                    "duration_ms": duration_ms,
                    "at": iso(at),
                },
            )

    def turn_timing(self, *, call_id: str, seq: int, **timings: Any) -> None:
        """Fill timing columns of a recorded turn: moments (datetime or ISO text)
        speech_start, speech_end, agent_speech_start, agent_speech_end; durations
        (milliseconds) stt_ms, engine_ms, llm_ms, tts_first_audio_ms."""
        unknown = sorted(set(timings) - set(TIMING_COLUMNS))
        if unknown:
            raise ValueError(f"unknown timing {', '.join(unknown)}: known are {', '.join(TIMING_COLUMNS)}")
        if not timings:
            return
        values: dict[str, Any] = {}
        for name, value in timings.items():
            if name in TIMING_DURATIONS:
                if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                    raise ValueError(f"{name} must be a number of milliseconds, not {value!r}")
                values[name] = value
            else:
                values[name] = iso(value) if isinstance(value, datetime) else value
        assignments = ", ".join(f'"{name}" = ?' for name in values)
        with self._writing(f"timings of turn {seq} of call {call_id!r}") as conn:
            cursor = conn.execute(
                f"UPDATE turns SET {assignments} WHERE call_id = ? AND seq = ?", [*values.values(), call_id, seq]
            )
            if cursor.rowcount == 0:
                raise RecordError(f"no turn {seq} of call {call_id!r} in {self._where()}: record the turn first")

    def call_ended(
        self, *, call_id: str, ended_at: datetime, outcome: str | None, final_state: str | None, end_action: str | None
    ) -> None:
        with self._writing(f"the end of call {call_id!r}") as conn:
            cursor = conn.execute(
                "UPDATE calls SET ended_at = ?, outcome = ?, final_state = ?, end_action = ? WHERE id = ?",
                [iso(ended_at), outcome, final_state, end_action, call_id],
            )
            if cursor.rowcount == 0:
                raise RecordError(f"no call {call_id!r} in {self._where()}: record call_started first")

    # -- reading -------------------------------------------------------------

    def _rows(self, sql: str, params: list[Any]) -> list[dict[str, Any]]:
        cursor = self.db.conn.execute(sql, params)
        names = [d[0] for d in cursor.description]
        rows = []
        for values in cursor.fetchall():
            row = dict(zip(names, values))
            for column in _JSON_COLUMNS & row.keys():
                if isinstance(row[column], str):
                    row[column] = json.loads(row[column])
            rows.append(row)
        return rows

    def call_record(self, call_id: str) -> dict:
        """{"call": row or None, "turns": [...], "transitions": [...], "tool_calls": [...]}, each in order."""
        calls = self._rows("SELECT * FROM calls WHERE id = ?", [call_id])
        return {
            "call": calls[0] if calls else None,
            "turns": self._rows("SELECT * FROM turns WHERE call_id = ? ORDER BY seq", [call_id]),
            "transitions": self._rows("SELECT * FROM transitions WHERE call_id = ? ORDER BY id", [call_id]),
            "tool_calls": self._rows("SELECT * FROM tool_calls WHERE call_id = ? ORDER BY id", [call_id]),
        }

    def calls(self, limit: int = 50) -> list[dict]:
        """The most recent calls, newest first (for the monitor)."""
        return self._rows("SELECT * FROM calls ORDER BY started_at DESC, rowid DESC LIMIT ?", [limit])
