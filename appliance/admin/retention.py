"""`appliance db prune`: forget what callers said after `[data] transcript_days`, and
delete call recordings after `[data] recording_days`.

A call older than the limit keeps its row in `calls` (start, end, outcome,
final state, end action) and the shape of its record (turn order, states,
transitions, which tools ran and how they ended), so the monitor's figures
and history still add up. What goes is the words: the caller's and the
agent's text of every turn, the evidence a rule matched on, and the
arguments and results of its tool calls (names, dates of birth, phone
numbers). Callback requests made before the limit lose their free text too:
the caller's name, number and own words, and staff notes (open or done: one
that old is stale). Deleted text is overwritten in the file (`secure_delete`).

Recordings are the `*.wav` files under `<data_dir>/recordings`, aged by their
modification time; emptied subfolders are removed.

On the shared PostgreSQL store the same SQL runs there (every box's nightly run prunes the whole store; a
second run finds nothing left to clear); each box deletes its own recordings. Deleted text is gone from the
tables at once and from the disk when PostgreSQL's vacuum reuses the space.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..settings import Settings
from ..store.backend import DATABASE_ERRORS, dialect_of, is_postgres

RECORDING_SUFFIXES = (".wav",)


@dataclass(frozen=True)
class PruneReport:
    transcript_cutoff: str        # calls that started before this clinic-local moment lost their words
    calls: int                    # calls whose words were removed now
    turns: int
    tool_calls: int
    callbacks: int                # callback requests whose name, number, words and notes were removed now
    recordings: tuple[Path, ...]  # recording files deleted
    recording_cutoff: datetime

    def lines(self, *, dry_run: bool = False) -> list[str]:
        verb = "would clear" if dry_run else "cleared"
        delete = "would delete" if dry_run else "deleted"
        return [f"{verb} the transcripts of {self.calls} call(s) that started before {self.transcript_cutoff} "
                f"({self.turns} turns, {self.tool_calls} tool calls); call outcomes are kept",
                f"{verb} the names, numbers, words and notes of {self.callbacks} callback request(s) made before "
                f"{self.transcript_cutoff}",
                f"{delete} {len(self.recordings)} recording(s) older than "
                f"{self.recording_cutoff:%Y-%m-%d %H:%M}"]


def prune(settings: Settings, *, database: Path | str | None = None, now: datetime | None = None,
          dry_run: bool = False) -> PruneReport:
    """Apply the retention limits once; `now` is the wall clock (naive local time or aware). `database`: a file
    or a postgresql:// address (default: the configured database)."""
    moment = now or datetime.now().astimezone()
    db_path = database if database is not None else settings.database_target()
    cutoff, calls, turns, tools, callbacks = _prune_transcripts(db_path, moment, settings.data.transcript_days,
                                                                dry_run)
    recording_cutoff = moment - timedelta(days=settings.data.recording_days)
    recordings = _prune_recordings(settings.recordings_dir, recording_cutoff, dry_run)
    return PruneReport(cutoff, calls, turns, tools, callbacks, recordings, recording_cutoff.replace(tzinfo=None))


def _clinic_now(conn, moment: datetime) -> datetime:
    """`moment` as the clinic's wall clock (the call records hold clinic-local time)."""
    try:
        row = conn.execute("SELECT timezone FROM clinic WHERE id = 1").fetchone()
    except DATABASE_ERRORS:
        row = None
    if moment.tzinfo is None:
        return moment
    try:
        zone = ZoneInfo(row[0]) if row and row[0] else None
    except (ZoneInfoNotFoundError, ValueError):
        zone = None
    return (moment.astimezone(zone) if zone else moment.astimezone()).replace(tzinfo=None)


_CALLBACK_TEXT = "(name IS NOT NULL OR phone IS NOT NULL OR reason IS NOT NULL OR note IS NOT NULL)"


def _open(db_path: Path | str):
    if is_postgres(db_path):
        from ..store.postgres_database import PostgresConnection

        conn = PostgresConnection(db_path)
        conn.dialect.set_lock_wait(conn, 10000)
        return conn
    db_path = Path(db_path)
    if not db_path.is_file():
        raise FileNotFoundError(f"{db_path}: no database (create it with: appliance db init --clinic FILE)")
    conn = sqlite3.connect(db_path, timeout=10, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA secure_delete = ON")
    return conn


def _prune_transcripts(db_path: Path | str, moment: datetime, days: int,
                       dry_run: bool) -> tuple[str, int, int, int, int]:
    conn = _open(db_path)
    sql = dialect_of(conn)
    try:
        cutoff = (_clinic_now(conn, moment) - timedelta(days=days)).isoformat(timespec="seconds")
        old_calls = "SELECT id FROM calls WHERE started_at < ?"
        conn.execute(sql.BEGIN_WRITE)
        try:
            turns = conn.execute(
                f"SELECT count(*) FROM turns WHERE call_id IN ({old_calls}) AND (caller_text IS NOT NULL "
                "OR agent_text IS NOT NULL OR trigger_evidence IS NOT NULL)", [cutoff]).fetchone()[0]
            tools = conn.execute(
                f"SELECT count(*) FROM tool_calls WHERE call_id IN ({old_calls}) "
                "AND (arguments != '{}' OR result != '{}')", [cutoff]).fetchone()[0]
            calls = conn.execute(
                f"SELECT count(DISTINCT call_id) FROM (SELECT call_id FROM turns WHERE call_id IN ({old_calls}) "
                "AND (caller_text IS NOT NULL OR agent_text IS NOT NULL OR trigger_evidence IS NOT NULL) "
                f"UNION SELECT call_id FROM tool_calls WHERE call_id IN ({old_calls}) "
                "AND (arguments != '{}' OR result != '{}')) AS texts", [cutoff, cutoff]).fetchone()[0]
            callbacks = conn.execute(f"SELECT count(*) FROM callback_requests WHERE created_at < ? AND {_CALLBACK_TEXT}",
                                     [cutoff]).fetchone()[0]
            if not dry_run:
                conn.execute("UPDATE callback_requests SET name = NULL, phone = NULL, reason = NULL, note = NULL "
                             f"WHERE created_at < ? AND {_CALLBACK_TEXT}", [cutoff])
                if sql.SHARED or conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'journal_replayed'").fetchone():
                    conn.execute("DELETE FROM journal_replayed WHERE replayed_at < ?", [cutoff])
                conn.execute(f"UPDATE turns SET caller_text = NULL, agent_text = NULL, trigger_evidence = NULL "
                             f"WHERE call_id IN ({old_calls}) AND (caller_text IS NOT NULL OR agent_text IS NOT NULL "
                             "OR trigger_evidence IS NOT NULL)", [cutoff])
                conn.execute(f"UPDATE transitions SET trigger_evidence = NULL WHERE call_id IN ({old_calls}) "
                             "AND trigger_evidence IS NOT NULL", [cutoff])
                conn.execute(f"UPDATE tool_calls SET arguments = '{{}}', result = '{{}}' "
                             f"WHERE call_id IN ({old_calls}) AND (arguments != '{{}}' OR result != '{{}}')", [cutoff])
            conn.execute("ROLLBACK" if dry_run else "COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        if not dry_run and (turns or tools or callbacks) and not sql.SHARED:
            try:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")   # the old text leaves the WAL file too
            except sqlite3.Error:
                pass
        return cutoff, calls, turns, tools, callbacks
    finally:
        conn.close()


def _prune_recordings(folder: Path, cutoff: datetime, dry_run: bool) -> tuple[Path, ...]:
    if not folder.is_dir():
        return ()
    limit = cutoff.timestamp()
    old = sorted(path for path in folder.rglob("*")
                 if path.suffix.lower() in RECORDING_SUFFIXES and path.is_file() and not path.is_symlink()
                 and path.stat().st_mtime < limit)
    if dry_run:
        return tuple(old)
    for path in old:
        path.unlink(missing_ok=True)
    for sub in sorted((p for p in folder.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        try:
            sub.rmdir()   # only succeeds when empty
        except OSError:
            pass
    return tuple(old)
