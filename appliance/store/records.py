"""Call records: what happened on each call, written as the call goes.

Every method commits before it returns, so a crash mid-call leaves the record
of everything up to that point. The simulator checks calls against these rows
and the monitor shows them.

`commit_with(work, entries)` runs a clinic write (`work`, on the same
connection) and the record entries that describe it in one transaction: a
booking is never on disk without its tool call and the turn that asked for it.

A booking made on a call is `confirmed_aloud = 0` until the caller has heard the
reply that confirms it: `reply_heard(call_id, seq)` (the voice layer, once the
reply has played to its end) or a later turn in which the caller speaks (the
call went on past it) marks it 1. Recovery after a crash and the monitor ask
staff to confirm those still 0.

When the call ends (and when its last turn's timings come after that) its summary and review flags are
written on the call in the same transaction (`call_review.store_review`).

Writes retry within the call's `WriteBudget` while the database is locked or
full. When it still refuses, a `RecordError` (with `storage` true) names the
database file; with a `FallbackJournal`, `write_batch` keeps the entries there
instead (and a call's later writes replay them first, in order).
"""

from __future__ import annotations

import dataclasses
import json
import socket
from datetime import date, datetime, time
from enum import Enum
from typing import Any, Callable, TypeVar

T = TypeVar("T")

from ..call_review import store_review
from .backend import dialect_of
from .write_budget import WriteBudget, is_refusal

RESULT_KINDS = ("ok", "guard", "pms", "other")
# timings and "heard" are written after the reply has played, while the caller may already be speaking: they
# wait this long at most for a locked database (a booking left unheard is asked of staff; a timing is only lost)
AFTER_REPLY_WAIT_S = 0.5

# Filled in later by the voice layer: moments (ISO text) and durations (milliseconds).
TIMING_MOMENTS = ("speech_start", "speech_end", "agent_speech_start", "agent_speech_end")
TIMING_DURATIONS = ("stt_ms", "engine_ms", "llm_ms", "tts_first_audio_ms")
TIMING_COLUMNS = TIMING_MOMENTS + TIMING_DURATIONS

_JSON_COLUMNS = {"arguments", "result"}


class RecordError(Exception):
    """The call record could not be written; the message names the database. `storage`: the database refused
    the write (locked, full, I/O) rather than the write being wrong."""

    def __init__(self, message: str, *, storage: bool = False):
        super().__init__(message)
        self.storage = storage


def this_box() -> str:
    """This appliance's name on a shared store: its host name."""
    return socket.gethostname()


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
    def __init__(self, db: Any, *, budget: WriteBudget | None = None, journal: Any = None, box: str | None = None):
        """`db`: sqlite_utils' Database, or postgres_database.PostgresDatabase. `box`: the appliance the calls
        are taken on, kept on each call (default: this host's name): on a shared store, recovery after a crash
        closes only its own box's calls."""
        self.db = db
        self.box = box or this_box()
        self.sql = dialect_of(db.conn)
        self.budget = budget or WriteBudget()
        self.journal = journal

    # -- plumbing ------------------------------------------------------------

    def _where(self) -> str:
        return self.sql.describe(self.db.conn)

    def _transaction(self, what: str, body: Callable[[Any], T], *, durable: bool = False,
                     limit_s: float | None = None) -> T:
        """`body(conn)` in one write transaction, retried within the budget (at most `limit_s`); RecordError when
        refused. Inside an open transaction, `body` just runs in it (the outer transaction commits or rolls
        back)."""
        conn = self.db.conn
        if conn.in_transaction:
            return body(conn)
        try:
            if durable:
                with self.sql.durable(conn):
                    return self.budget.run(conn, body, limit_s=limit_s)
            return self.budget.run(conn, body, limit_s=limit_s)
        except self.sql.INTEGRITY_ERRORS as error:
            raise RecordError(f"cannot record {what} in {self._where()}: {error}") from error
        except self.sql.ERRORS as error:
            raise RecordError(f"cannot write the call record to {self._where()}: {error}",
                              storage=is_refusal(error)) from error

    @staticmethod
    def _trigger(trigger: Any) -> tuple[Any, Any, Any]:
        if trigger is None:
            return (None, None, None)
        if hasattr(trigger, "as_tuple"):
            trigger = trigger.as_tuple()
        route, confidence, evidence = trigger
        return (route, confidence, evidence)

    @staticmethod
    def _insert(conn: Any, table: str, row: dict[str, Any]) -> None:
        columns = ", ".join(f'"{name}"' for name in row)
        marks = ", ".join("?" for _ in row)
        conn.execute(f'INSERT INTO "{table}" ({columns}) VALUES ({marks})', list(row.values()))

    # -- writing -------------------------------------------------------------

    WRITERS = ("call_started", "turn", "transition", "tool_call", "turn_timing", "reply_heard", "call_ended")

    def _check_entries(self, entries: list[tuple[str, dict[str, Any]]]) -> None:
        for name, _ in entries:
            if name not in self.WRITERS:
                raise ValueError(f"not a record writer: {name}")

    def _apply(self, entries: list[tuple[str, dict[str, Any]]]) -> None:
        for name, kwargs in entries:
            getattr(self, name)(**kwargs)

    def _replay_held(self, conn: Any, call_ids: set[str | None]) -> list[str]:
        """Inside a transaction: the journal's waiting entries of these calls first, so the record keeps its order."""
        if self.journal is None:
            return []
        held = [e for call_id in call_ids if call_id for e in self.journal.pending(call_id)]
        return self.journal.replay_in(conn, held, self._apply) if held else []

    def write_batch(self, entries: list[tuple[str, dict[str, Any]]]) -> None:
        """Several record writes (method name, keyword arguments) in one transaction: all or none. When the
        database refuses them and there is a journal, they are kept there (and replayed later) instead."""
        self._check_entries(entries)
        replayed: list[str] = []

        def body(conn: Any) -> None:
            replayed[:] = self._replay_held(conn, {kwargs.get("call_id") for _, kwargs in entries})
            self._apply(entries)

        try:
            self._transaction(f"{len(entries)} call record entries", body)
        except RecordError as error:
            if self.journal is None or not error.storage:
                raise
            self.journal.append_records(entries)     # raises JournalError when that cannot be written either
            return
        if replayed:
            self.journal.mark_replayed(replayed)

    def commit_with(self, work: Callable[[], T], entries: Callable[[T], list[tuple[str, dict[str, Any]]]]) -> T:
        """`work()` (a clinic write on this database's connection) and the record entries made from its result,
        in one transaction flushed to the disk before it returns (synchronous FULL): both or neither. A refusal
        raises RecordError (storage true) with nothing written; an error of `work` is raised as it is."""
        replayed: list[str] = []

        def body(conn: Any) -> T:
            result = work()
            made = entries(result)
            self._check_entries(made)
            replayed[:] = self._replay_held(conn, {kwargs.get("call_id") for _, kwargs in made})
            self._apply(made)
            return result

        result = self._transaction("a clinic write and its record", body, durable=True)
        if replayed:
            self.journal.mark_replayed(replayed)
        return result

    def replay_journal(self, journal: Any, entries: list) -> list[str]:
        """Apply journal entries in one transaction (FULL: they were promised to someone); the ids applied."""
        return self._transaction("the fallback journal", lambda conn: journal.replay_in(conn, entries, self._apply),
                                 durable=True)

    def call_started(self, *, call_id: str, clinic: str | None, caller_id: str | None, started_at: datetime) -> None:
        row = {"id": call_id, "clinic": clinic, "caller_id": caller_id, "started_at": iso(started_at), "box": self.box}
        self._transaction(f"the start of call {call_id!r}", lambda conn: self._insert(conn, "calls", row))

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
        """The turn, or its final form over a provisional one (written with a clinic write, before the reply
        was known). A caller who speaks has heard the replies before this turn."""
        route, confidence, evidence = self._trigger(trigger)
        row = {"call_id": call_id, "seq": seq, "caller_text": caller_text, "agent_text": agent_text, "state": state,
               "waiting_for": waiting_for, "trigger_route": route, "trigger_confidence": confidence,
               "trigger_evidence": evidence, "at": iso(at)}
        updates = ", ".join(f'"{name}" = excluded."{name}"' for name in row if name not in ("call_id", "seq"))

        def body(conn: Any) -> None:
            columns = ", ".join(f'"{name}"' for name in row)
            conn.execute(f'INSERT INTO turns ({columns}) VALUES ({", ".join("?" for _ in row)}) '
                         f"ON CONFLICT (call_id, seq) DO UPDATE SET {updates}", list(row.values()))
            if caller_text:
                self._mark_heard(conn, call_id, seq - 1)
            self._review_if_ended(conn, call_id)     # the engine records the last turn after the call's end

        self._transaction(f"turn {seq} of call {call_id!r}", body)

    def reply_heard(self, *, call_id: str, seq: int) -> None:
        """The reply of turn `seq` was played to the caller to its end: what it confirmed has been heard."""
        self._transaction(f"turn {seq} of call {call_id!r} heard", lambda conn: self._mark_heard(conn, call_id, seq),
                          limit_s=AFTER_REPLY_WAIT_S)

    @staticmethod
    def _review_if_ended(conn: Any, call_id: str) -> None:
        ended = conn.execute("SELECT ended_at IS NOT NULL FROM calls WHERE id = ?", [call_id]).fetchone()
        if ended and ended[0]:
            store_review(conn, call_id)

    @staticmethod
    def _mark_heard(conn: Any, call_id: str, seq: int) -> None:
        booked = dialect_of(conn).json_text("result", "appointment", "id")
        conn.execute(
            "UPDATE appointments SET confirmed_aloud = 1 WHERE confirmed_aloud = 0 AND created_by_call = ? AND id IN "
            f"(SELECT {booked} FROM tool_calls WHERE call_id = ? AND turn_seq <= ? AND result_kind = 'ok')",
            [call_id, call_id, seq])

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
        row = {"call_id": call_id, "turn_seq": turn_seq, "from_state": from_state, "to_state": to_state,
               "trigger_route": route, "trigger_confidence": confidence, "trigger_evidence": evidence, "at": iso(at)}
        self._transaction(f"a transition of call {call_id!r}", lambda conn: self._insert(conn, "transitions", row))

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
        row = {"call_id": call_id, "turn_seq": turn_seq, "state": state, "name": name,
               "arguments": to_json(arguments if arguments is not None else {}), "result_kind": result_kind,
               "result": to_json(result if result is not None else {}), "duration_ms": duration_ms, "at": iso(at)}
        self._transaction(f"tool call {name!r} of call {call_id!r}", lambda conn: self._insert(conn, "tool_calls", row))

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

        def body(conn: Any) -> None:
            cursor = conn.execute(f"UPDATE turns SET {assignments} WHERE call_id = ? AND seq = ?",
                                  [*values.values(), call_id, seq])
            if cursor.rowcount == 0:
                raise RecordError(f"no turn {seq} of call {call_id!r} in {self._where()}: record the turn first")
            self._review_if_ended(conn, call_id)     # the last turn's timings arrive after the call has ended

        self._transaction(f"timings of turn {seq} of call {call_id!r}", body, limit_s=AFTER_REPLY_WAIT_S)

    def call_ended(
        self, *, call_id: str, ended_at: datetime, outcome: str | None, final_state: str | None, end_action: str | None,
        reason: str | None = None, ended_by: str | None = None,
    ) -> None:
        """`reason`: why the call ended when it was not the conversation's own end (a crash, a shutdown, staff);
        `ended_by`: the OS user of the staff member who ended or took it."""
        def body(conn: Any) -> None:
            cursor = conn.execute(
                "UPDATE calls SET ended_at = ?, outcome = ?, final_state = ?, end_action = ?, end_reason = ?, "
                "ended_by = ? WHERE id = ?",
                [iso(ended_at), outcome, final_state, end_action, reason, ended_by, call_id])
            if cursor.rowcount == 0:
                raise RecordError(f"no call {call_id!r} in {self._where()}: record call_started first")
            store_review(conn, call_id)

        self._transaction(f"the end of call {call_id!r}", body)

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
