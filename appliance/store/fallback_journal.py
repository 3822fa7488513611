"""Where a call's record and a callback request go when the database refuses them.

A full disk or a long-held lock must not lose what the caller was promised. The
journal is a small file under the data folder, `fallback-journal` (0600), that
is given its space up front (`PREALLOCATE` bytes of zeros), so writing into it
still works when the disk is full. Entries are JSON lines written after the
last one and flushed to the disk (fsync) before `append` returns:

    {"id": "j-...", "call_id": "call-...", "kind": "records", "entries": [[method, fields], ...]}
    {"id": "j-...", "call_id": "call-...", "kind": "callback_request", "row": {...}}

They are replayed into the database, in order, once it accepts writes again:
by the call itself (its next write replays its own entries first, in the same
transaction), by the service every few seconds, and at start-up. Each replayed
entry's id goes into the `journal_replayed` table in the transaction that
replays it, so an entry is applied once however often replay runs; once every
entry is replayed the file is zeroed again. `appliance doctor` counts what is
left (`unreplayed`).

One journal object per file and process (`FallbackJournal.at(path)`): calls on
their own threads share it.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import uuid
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import Any, Callable

from .backend import dialect_of, is_postgres

log = logging.getLogger("appliance.store")

FILE_NAME = "fallback-journal"
PREALLOCATE = 512 * 1024
JOURNAL_MODE = 0o600

RECORDS = "records"
CALLBACK = "callback_request"


class JournalError(OSError):
    """The journal could not be written either; the message names the file."""


@dataclass(frozen=True)
class JournalEntry:
    id: str
    call_id: str | None
    kind: str
    body: dict[str, Any]


def _plain(value: Any) -> Any:
    if isinstance(value, (datetime, date, time)):
        return {"$moment": value.isoformat()}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _revive(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$moment"}:
            return datetime.fromisoformat(value["$moment"])
        return {k: _revive(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_revive(v) for v in value]
    return value


class FallbackJournal:
    _open: dict[Path, "FallbackJournal"] = {}
    _open_lock = threading.Lock()

    @classmethod
    def at(cls, path: str | Path) -> "FallbackJournal":
        """The process's journal at `path` (a folder: its `fallback-journal`), made and given its space if new."""
        path = Path(path)
        if path.is_dir():
            path = path / FILE_NAME
        key = path.resolve()
        with cls._open_lock:
            journal = cls._open.get(key)
            if journal is None:
                journal = cls._open[key] = cls(path)
            return journal

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.RLock()
        self._entries: list[JournalEntry] = []
        self._replayed: set[str] = set()
        self._end = 0
        self._prepare()

    # ------------------------------------------------------------ the file

    def _prepare(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, JOURNAL_MODE)
        except OSError as exc:
            raise JournalError(exc.errno, f"{self.path}: cannot open the fallback journal: {exc.strerror}") from None
        try:
            size = os.fstat(fd).st_size
            if size < PREALLOCATE:
                try:
                    os.posix_fallocate(fd, 0, PREALLOCATE)
                    os.fsync(fd)
                except OSError as exc:
                    log.error("%s: cannot reserve space for the fallback journal (%s)", self.path, exc.strerror)
            data = os.pread(fd, max(size, PREALLOCATE), 0)
        finally:
            os.close(fd)
        self._entries, self._end = _parse(data)

    def _write_at_end(self, line: bytes) -> None:
        fd = os.open(self.path, os.O_RDWR)
        try:
            written = os.pwrite(fd, line, self._end)
            if written != len(line):
                raise OSError(28, "short write")
            os.fsync(fd)
        finally:
            os.close(fd)
        self._end += len(line)

    def append(self, kind: str, call_id: str | None, body: dict[str, Any]) -> str:
        """Write one entry and flush it to the disk; its id. Raises JournalError when that cannot be done."""
        entry = JournalEntry(f"j-{uuid.uuid4().hex[:12]}", call_id, kind, body)
        line = (json.dumps({"id": entry.id, "call_id": call_id, "kind": kind, **_plain(body)},
                           ensure_ascii=False, default=str) + "\n").encode()
        with self._lock:
            try:
                self._write_at_end(line)
            except OSError as exc:
                raise JournalError(exc.errno, f"{self.path}: the fallback journal cannot be written either: "
                                              f"{exc.strerror or exc}") from None
            self._entries.append(entry)
        log.warning("call %s: the database refused a write; kept in the fallback journal (%s)", call_id or "-", kind)
        return entry.id

    def append_records(self, entries: list[tuple[str, dict[str, Any]]]) -> str:
        call_ids = {fields.get("call_id") for _, fields in entries}
        return self.append(RECORDS, next(iter(call_ids)) if len(call_ids) == 1 else None,
                           {"entries": [[name, fields] for name, fields in entries]})

    # ------------------------------------------------------------ what waits

    def pending(self, call_id: str | None = None) -> list[JournalEntry]:
        with self._lock:
            return [e for e in self._entries if e.id not in self._replayed
                    and (call_id is None or e.call_id == call_id)]

    def holds(self, call_id: str) -> bool:
        return bool(self.pending(call_id))

    def mark_replayed(self, ids: list[str]) -> None:
        """After the transaction that replayed them has committed; zeroes the file once nothing waits."""
        with self._lock:
            self._replayed.update(ids)
            if self._entries and all(e.id in self._replayed for e in self._entries):
                self._clear()

    def _clear(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDWR)
            try:
                os.pwrite(fd, b"\0" * self._end, 0)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            log.error("%s: replayed, but could not be cleared (%s)", self.path, exc.strerror)
            return
        self._entries, self._replayed, self._end = [], set(), 0

    # ------------------------------------------------------------ replay

    def replay_in(self, conn: Any, entries: list[JournalEntry],
                  apply_records: Callable[[list[tuple[str, dict]]], None]) -> list[str]:
        """Inside an open write transaction on `conn`: apply `entries` not replayed before (by anyone) and note
        each as replayed; the ids applied. `apply_records` writes record entries on that connection."""
        sql = dialect_of(conn)
        done = []
        for entry in entries:
            claimed = conn.execute(sql.insert_or_ignore("journal_replayed", ["id", "replayed_at"]),
                                   [entry.id, datetime.now().isoformat(timespec="seconds")]).rowcount
            if claimed:
                if entry.kind == RECORDS:
                    apply_records([(name, _revive(fields)) for name, fields in entry.body["entries"]])
                elif entry.kind == CALLBACK:
                    row = entry.body["row"]
                    conn.execute(sql.insert_or_ignore("callback_requests", list(row)), list(row.values()))
            done.append(entry.id)
        return done

    def replay(self, db: Any, *, budget: Any = None) -> int:
        """Replay every waiting entry into `db` (either back end's database), one call's entries per transaction;
        how many were applied. Stops at the first refusal (they wait for the next try)."""
        from .records import CallRecorder, RecordError
        from .write_budget import WriteBudget

        recorder = CallRecorder(db, budget=budget or WriteBudget(wait_s=0.5))
        applied = 0
        groups: dict[str | None, list[JournalEntry]] = {}
        for entry in self.pending():
            groups.setdefault(entry.call_id if entry.kind == RECORDS else entry.id, []).append(entry)
        for entries in groups.values():
            try:
                ids = recorder.replay_journal(self, entries)
            except RecordError as exc:
                log.warning("fallback journal not replayed yet: %s", exc)
                break
            self.mark_replayed(ids)
            applied += len(ids)
        return applied


def _parse(data: bytes) -> tuple[list[JournalEntry], int]:
    """The entries written so far and where the next one goes (the first zero byte)."""
    end = data.find(b"\0")
    if end < 0:
        end = len(data)
    entries = []
    for raw in data[:end].split(b"\n"):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
            entries.append(JournalEntry(item.pop("id"), item.pop("call_id", None), item.pop("kind"), item))
        except (ValueError, KeyError):
            log.error("fallback journal: an unreadable line was skipped (%d bytes)", len(raw))
    return entries, end


def unreplayed(path: str | Path, db_path: str | Path | None) -> int | None:
    """How many entries of the journal at `path` (file or data folder) the database at `db_path` (a file, or a
    PostgreSQL address) has not taken yet (None when the journal cannot be read). Read-only: for
    `appliance doctor`."""
    path = Path(path)
    if path.is_dir():
        path = path / FILE_NAME
    try:
        entries, _ = _parse(path.read_bytes())
    except FileNotFoundError:
        return 0
    except OSError:
        return None
    if not entries:
        return 0
    done: set[str] = set()
    if is_postgres(db_path):
        done = _replayed_on_postgres(str(db_path), [e.id for e in entries])
    elif db_path is not None and Path(db_path).is_file():
        try:
            conn = sqlite3.connect(db_path, timeout=2)     # reads only (not opened read-only: see doctor.py)
            try:
                marks = ", ".join("?" for _ in entries)
                done = {row[0] for row in conn.execute(
                    f"SELECT id FROM journal_replayed WHERE id IN ({marks})", [e.id for e in entries])}
            finally:
                conn.close()
        except sqlite3.Error:
            pass
    return sum(1 for e in entries if e.id not in done)


def _replayed_on_postgres(dsn: str, ids: list[str]) -> set[str]:
    import psycopg

    try:
        with psycopg.connect(dsn, connect_timeout=3) as conn:
            return {row[0] for row in conn.execute("SELECT id FROM journal_replayed WHERE id = ANY(%s)", [ids])}
    except psycopg.Error:
        return set()


class JournalingStore:
    """What a callback tool writes to when the database refuses: the same `add_callback_request`, into the
    journal. The row is made by the real store (checked, number normalised)."""

    def __init__(self, store: Any, journal: FallbackJournal):
        self.store = store
        self.journal = journal

    def add_callback_request(self, *, call_id: str | None, patient_id: str | None, name: str | None,
                             phone: str | None, reason: str | None, urgency: str = "normal", **_: Any) -> str:
        row = self.store.callback_row(call_id=call_id, patient_id=patient_id, name=name, phone=phone,
                                      reason=reason, urgency=urgency)
        self.journal.append(CALLBACK, call_id, {"row": row})
        return row["id"]

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"{name}: only callback requests go to the fallback journal")
