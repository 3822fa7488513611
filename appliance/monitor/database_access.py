"""Opening the appliance database for the monitor: never creating it, saying plainly why not.

The monitor reads while the service writes (WAL). It opens read-write when it
may (WAL readers need the shared-memory file, and marking a callback done
without the service writes), read-only otherwise.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import quote


class DatabaseUnavailable(Exception):
    """The message says which file and what to do."""


def open_for_monitor(path: str | Path) -> sqlite3.Connection:
    path = Path(path)
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


def rows(conn: sqlite3.Connection, sql: str, params: list | tuple = ()) -> list[dict]:
    cursor = conn.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, values)) for values in cursor.fetchall()]
