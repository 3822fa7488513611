"""What the store says differently to PostgreSQL; `sqlite_sql.py` says the same to SQLite.

The store's other SQL is written once, with `?` placeholders, and runs on both back ends (the connection,
`postgres_database.PostgresConnection`, turns the placeholders into psycopg's).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, Callable

import psycopg

from .postgres_schema import diary_imported_as_is

NAME = "PostgreSQL"
# Read committed: a booking's re-check may miss another box's booking made at the same moment; the exclusion
# constraint then refuses the second insert (slot_taken_practitioner), which the store reads as SlotTaken.
SHARED = True              # several boxes write it at once
BEGIN_WRITE = "BEGIN"
ERRORS: tuple[type[BaseException], ...] = (psycopg.Error,)
INTEGRITY_ERRORS: tuple[type[BaseException], ...] = (psycopg.IntegrityError,)

diary_as_is = diary_imported_as_is


def is_refusal(error: BaseException) -> bool:
    """The database could not take a write just now: the server gone or restarting, a lock not granted in
    time, a deadlock or serialisation failure, a full disk (all psycopg's OperationalError), rather than the
    write being wrong."""
    return isinstance(error, psycopg.OperationalError)


@contextlib.contextmanager
def durable(conn: Any) -> Iterator[None]:
    """PostgreSQL's commit is flushed (synchronous_commit on, its default) before it returns: nothing to do."""
    yield


def same(column: str) -> str:
    """`column` equals the next parameter, NULL equal to NULL."""
    return f"{column} IS NOT DISTINCT FROM ?"


def insert_or_ignore(table: str, columns: list[str]) -> str:
    names = ", ".join(f'"{name}"' for name in columns)
    return f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" for _ in columns)}) ON CONFLICT DO NOTHING'


def json_text(column: str, *path: str) -> str:
    """The text at `path` inside the JSON object kept in `column` (text holding JSON, as on SQLite)."""
    return f"({column}::jsonb #>> '{{{','.join(path)}}}')"


def lock_wait(conn: Any) -> str:
    """How long a statement waits for a lock (lock_timeout), for `set_lock_wait` to put back."""
    return conn.execute("SELECT current_setting('lock_timeout')").fetchone()[0]


def set_lock_wait(conn: Any, wait: int | str) -> None:
    """`wait`: milliseconds, or a setting `lock_wait` returned."""
    conn.execute("SELECT set_config('lock_timeout', ?, false)", [f"{int(wait)}ms" if isinstance(wait, int) else wait])


def describe(conn: Any) -> str:
    """The database, as a message names it (never its password)."""
    return getattr(conn, "where", "the PostgreSQL database")


def prepare(db: Any, name_key: Callable[[str], str]) -> None:
    """Nothing: names are folded in Python here (see patients_with_name_key)."""


def patients_with_name_key(conn: Any, key: str, name_key: Callable[[str], str]) -> Any:
    """A cursor over the patients whose last name folds to `key`, oldest first.

    PostgreSQL cannot run the Python fold (`domain.fold_name`: transliteration to Latin letters, which no
    PostgreSQL function matches exactly), so the last names are read and folded here: one narrow scan of
    the patients per name lookup."""
    ids = [patient_id for patient_id, last_name in conn.execute("SELECT id, last_name FROM patients")
           if name_key(last_name) == key]
    return conn.execute("SELECT * FROM patients WHERE id = ANY(?) ORDER BY rowid", [ids])
