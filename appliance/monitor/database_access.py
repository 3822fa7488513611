"""Opening the appliance database for the monitor: never creating it, saying plainly why not.

On one box that is the SQLite file, which the monitor reads while the service
writes (WAL). It opens read-write when it may (WAL readers need the
shared-memory file, and marking a callback done without the service writes),
read-only otherwise. With the shared PostgreSQL store ([data] database) every
desk reads the same database, whichever box took the call.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..store.backend import DATABASE_ERRORS, is_postgres, redacted


# a database connection as the monitor holds it: sqlite3's, or the shared store's PostgresConnection
Connection = Any


class DatabaseUnavailable(Exception):
    """The message says which file (or PostgreSQL database) and what to do."""


def open_for_monitor(target: str | Path) -> Any:
    """A connection to the database at `target` (a file, or a postgresql:// address): sqlite3's, or the shared
    store's `PostgresConnection` (autocommit between the store's own transactions, as the store uses it)."""
    if is_postgres(target):
        return _open_postgres(str(target))
    path = Path(target)
    if not path.exists():
        raise DatabaseUnavailable(f"no appliance database at {path} (build one with `appliance db init`, "
                                  "or give the monitor --db)")
    last: Exception | None = None
    for mode in ("rw", "ro"):
        try:
            conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode={mode}", uri=True, timeout=5.0,
                                   check_same_thread=False)
            conn.execute("PRAGMA busy_timeout = 5000")
            conn.execute("SELECT count(*) FROM calls").fetchone()
            return conn
        except sqlite3.Error as exc:
            last = exc
    raise DatabaseUnavailable(f"cannot read {path}: {last} (the monitor's user needs read access to it)")


def _open_postgres(dsn: str) -> Any:
    from ..store.database import DatabaseFileError
    from ..store.postgres_database import open_postgres

    try:
        db = open_postgres(dsn)
    except DatabaseFileError as exc:
        raise DatabaseUnavailable(f"{exc} (the shared store, [data] database: is PostgreSQL running, and may "
                                  "this desk's user connect?)") from None
    try:
        db.execute("SELECT count(*) FROM calls").fetchone()
    except DATABASE_ERRORS as exc:
        db.close()
        raise DatabaseUnavailable(f"cannot read {redacted(dsn)}: {exc}") from None
    return db.conn


def rows(conn: Any, sql: str, params: list | tuple = ()) -> list[dict]:
    cursor = conn.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, values)) for values in cursor.fetchall()]
