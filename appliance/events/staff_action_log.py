"""Every staff action from a monitor, with who did it: the `staff_actions` table.

The table lives in the appliance database: on the SQLite file it is created
here, idempotently, the first time an action is recorded (the rest of the
schema does not need it); the shared PostgreSQL store has it from the start
(store/postgres_schema.py). A refused action is recorded too, with its reason.
"""

from __future__ import annotations

import sqlite3
import threading
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from ..store.backend import DATABASE_ERRORS, is_postgres
from .messages import CommandResult, StaffCommand

TABLE = """
CREATE TABLE IF NOT EXISTS staff_actions (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    user TEXT NOT NULL,
    claimed_user TEXT,
    action TEXT NOT NULL,
    call_id TEXT,
    callback_id TEXT,
    note TEXT,
    ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
    message TEXT,
    via TEXT NOT NULL
)
"""
INDEX = "CREATE INDEX IF NOT EXISTS staff_actions_by_at ON staff_actions (at)"

VIA_SERVICE = "service"
VIA_MONITOR = "monitor"   # the service was not running: the monitor wrote the database itself
# a staff account signed in to the browser monitor (`user` is the account, `claimed_user` the OS user of the web
# monitor's process), through the service or, when it was not running, written by the web monitor itself
VIA_WEB = "web"
# a monitor on another machine, over TLS: `user` is its certificate's name (the desk), `claimed_user` the OS user
# that monitor named
VIA_REMOTE = "remote"


class StaffActionLog:
    """Writes staff actions to the database at `db_path` (a file, or the shared store's postgresql:// address),
    opening its own connection per thread."""

    def __init__(self, db_path: str | Path, *, now: Callable[[], datetime] = datetime.now):
        self.db_path: str | Path = db_path if is_postgres(db_path) else Path(db_path)
        self._now = now
        self._local = threading.local()

    def _conn(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None and is_postgres(self.db_path):
            from ..store.postgres_database import PostgresConnection

            conn = self._local.conn = PostgresConnection(str(self.db_path))
        elif conn is None:
            if not Path(self.db_path).exists():
                raise FileNotFoundError(f"{self.db_path}: no appliance database there to record staff actions in")
            conn = sqlite3.connect(self.db_path, timeout=5.0)
            conn.execute("PRAGMA busy_timeout = 5000")
            with conn:
                conn.execute(TABLE)
                conn.execute(INDEX)
            self._local.conn = conn
        return conn

    def record(self, command: StaffCommand, result: CommandResult, *, user: str, via: str,
               claimed_user: str | None = None) -> None:
        """`user` is who did it as the OS vouches for it (the socket's peer, or the staff account the web monitor
        names), `claimed_user` who they said they were (default `command.user`)."""
        conn = self._conn()
        try:
            conn.execute(
                'INSERT INTO staff_actions (at, "user", claimed_user, action, call_id, callback_id, note, ok, message,'
                " via) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [self._now().isoformat(timespec="seconds"), user, claimed_user or command.user or None, command.action,
                 command.call_id, command.callback_id, command.recorded_note(), int(result.ok), result.message, via])
            conn.commit()
        except BaseException:
            conn.rollback()
            raise

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def staff_actions(conn: Any, limit: int = 100) -> list[dict]:
    """The most recent staff actions, newest first ([] when none were ever recorded)."""
    try:
        cursor = conn.execute("SELECT * FROM staff_actions ORDER BY id DESC LIMIT ?", [limit])
    except DATABASE_ERRORS:
        return []
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]
