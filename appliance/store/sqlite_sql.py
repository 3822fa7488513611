"""What the store says differently to SQLite; `postgres_sql.py` says the same to PostgreSQL.

The store's other SQL is written once, with `?` placeholders, and runs on both back ends. Each connection
names its dialect (`backend.dialect_of`): a plain `sqlite3.Connection` is this module.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Callable

from .database import diary_imported_as_is, durable_commits

NAME = "SQLite"
SHARED = False             # one box writes it
BEGIN_WRITE = "BEGIN IMMEDIATE"          # takes the write lock now: a re-check inside sees every other writer's row
ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error,)
INTEGRITY_ERRORS: tuple[type[BaseException], ...] = (sqlite3.IntegrityError,)

# SQLite's words for a database that cannot take a write just now (locked, busy, full, I/O, read-only)
_REFUSALS = ("locked", "busy", "full", "disk i/o", "readonly", "read-only", "unable to open", "no such file")

durable = durable_commits                # synchronous = FULL for the writes a caller is told about
diary_as_is = diary_imported_as_is       # the clinic file's own diary, loaded as the clinic keeps it


def is_refusal(error: BaseException) -> bool:
    """The database could not take a write just now (rather than the write being wrong)."""
    return isinstance(error, sqlite3.OperationalError) and any(word in str(error).lower() for word in _REFUSALS)


def same(column: str) -> str:
    """`column` equals the next parameter, NULL equal to NULL."""
    return f"{column} IS ?"


def insert_or_ignore(table: str, columns: list[str]) -> str:
    names = ", ".join(f'"{name}"' for name in columns)
    return f'INSERT OR IGNORE INTO "{table}" ({names}) VALUES ({", ".join("?" for _ in columns)})'


def json_text(column: str, *path: str) -> str:
    """The text at `path` inside the JSON object kept in `column`."""
    return f"json_extract({column}, '$.{'.'.join(path)}')"


def lock_wait(conn: sqlite3.Connection) -> int:
    """How long a statement waits for a locked database (milliseconds), for `set_lock_wait` to put back."""
    return conn.execute("PRAGMA busy_timeout").fetchone()[0]


def set_lock_wait(conn: sqlite3.Connection, milliseconds: int) -> None:
    conn.execute(f"PRAGMA busy_timeout = {int(milliseconds)}")


def describe(conn: sqlite3.Connection) -> str:
    """The database, as a message names it."""
    try:
        for _, name, file in conn.execute("PRAGMA database_list").fetchall():
            if name == "main":
                return file or "the in-memory database"
    except sqlite3.Error:
        pass
    return "the database"


def prepare(db: Any, name_key: Callable[[str], str]) -> None:
    """What a store needs on its connection: names compared in SQL, as `name_key` folds them."""
    db.register_function(name_key, deterministic=True, replace=True)


def patients_with_name_key(conn: sqlite3.Connection, key: str, name_key: Callable[[str], str]) -> Any:
    """A cursor over the patients whose last name folds to `key`, oldest first."""
    return conn.execute("SELECT * FROM patients WHERE name_key(last_name) = ? ORDER BY rowid", [key])
