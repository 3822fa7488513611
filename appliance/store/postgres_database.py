"""The shared store on PostgreSQL, opened so that the store's code runs on it as on the SQLite file.

`PostgresConnection` wraps a psycopg 3 connection the way the store uses sqlite3's: `execute(sql, params)`
with `?` placeholders, transactions begun and ended by the store's own BEGIN / COMMIT (autocommit between
them), `in_transaction`, and a fresh connection for the next transaction when the server went away (a
restart, a failover). `PostgresDatabase` stands where sqlite_utils' `Database` does (`conn`, `execute`,
`atomic`, `close`).

Tables whose rows SQLite orders by its implicit `rowid` have a real `rowid` column here (postgres_schema.py);
like SQLite's, it is not among a `SELECT *`'s columns.
"""

from __future__ import annotations

import contextlib
import functools
import re
import secrets
from collections.abc import Iterator
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus

from . import postgres_sql
from .backend import redacted
from .database import SCHEMA_VERSION, DatabaseFileError
from .postgres_schema import ROWID_TABLES, TABLES, create_schema, schema_version

CONNECT_TIMEOUT_S = 3         # a store that does not answer is a refusal the write budget retries, then journals
LOCK_WAIT = "5s"              # a statement waits this long for a lock, as SQLite's busy_timeout (database.py)
HIDDEN_COLUMN = "rowid"

_QUOTED = re.compile(r"('(?:[^']|'')*'|\"(?:[^\"]|\"\")*\")")


@functools.lru_cache(maxsize=1024)
def pyformat(sql: str) -> str:
    """The store's `?` placeholders as psycopg's `%s` (a literal % doubled); quoted text is left alone."""
    parts = _QUOTED.split(sql)
    return "".join(part.replace("%", "%%") if i % 2 else part.replace("%", "%%").replace("?", "%s")
                   for i, part in enumerate(parts))


class _Cursor:
    """psycopg's cursor without the `rowid` column (see the module's docstring)."""

    def __init__(self, cursor: psycopg.Cursor):
        self._cursor = cursor
        description = cursor.description
        self._keep: list[int] | None = None
        if description and any(column.name == HIDDEN_COLUMN for column in description):
            self._keep = [i for i, column in enumerate(description) if column.name != HIDDEN_COLUMN]

    @property
    def description(self) -> Any:
        description = self._cursor.description
        return description if self._keep is None else [description[i] for i in self._keep]

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    def _row(self, row: tuple | None) -> tuple | None:
        if row is None or self._keep is None:
            return row
        return tuple(row[i] for i in self._keep)

    def fetchone(self) -> tuple | None:
        return self._row(self._cursor.fetchone())

    def fetchall(self) -> list[tuple]:
        rows = self._cursor.fetchall()
        return rows if self._keep is None else [self._row(row) for row in rows]

    def __iter__(self) -> Iterator[tuple]:
        return iter(self.fetchall())


class _NoRows:
    description = None
    rowcount = -1

    def fetchone(self) -> None:
        return None

    def fetchall(self) -> list:
        return []

    def __iter__(self) -> Iterator[tuple]:
        return iter(())


_NO_ROWS = _NoRows()


class PostgresConnection:
    dialect = postgres_sql

    def __init__(self, dsn: str):
        self.dsn = dsn
        self.where = redacted(dsn)
        self._closed = False
        self._began = False         # the store's BEGIN seen, its COMMIT or ROLLBACK not yet
        self.raw = self._connect()

    def _connect(self) -> psycopg.Connection:
        raw = psycopg.connect(self.dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S,
                              application_name="appliance")
        raw.execute("SELECT set_config('lock_timeout', %s, false)", [LOCK_WAIT])
        return raw

    @property
    def in_transaction(self) -> bool:
        if self.raw.broken:
            return self._began          # until the store's ROLLBACK has been seen
        return self.raw.info.transaction_status in (TransactionStatus.INTRANS, TransactionStatus.INERROR,
                                                    TransactionStatus.ACTIVE)

    def execute(self, sql: str, params: Any = ()) -> _Cursor | _NoRows:
        if self._closed:
            raise psycopg.InterfaceError(f"{self.where}: the connection is closed")
        word = sql.lstrip()[:8].upper()
        if self.raw.broken or self.raw.closed:
            # The server went away (a restart, a failover). Inside a transaction that is lost (the server rolled
            # it back) every statement is refused until the store's own ROLLBACK; then a fresh connection.
            if word.startswith("ROLLBACK"):
                self._began = False
                return _NO_ROWS
            if self._began:
                raise psycopg.OperationalError(f"{self.where}: the connection was lost during a transaction")
            self.raw = self._connect()
        if word.startswith("BEGIN"):
            self._began = True
        elif word.startswith(("COMMIT", "ROLLBACK")) and "TO SAVEPOINT" not in sql.upper():
            self._began = False
        try:
            return _Cursor(self.raw.execute(pyformat(sql), list(params)))
        except psycopg.OperationalError:
            if self._began or not self.raw.broken or word.startswith(("BEGIN", "COMMIT", "ROLLBACK")):
                raise
        # A statement on its own (a read: the store writes inside transactions) found the connection dead: it is
        # tried once more on a new one, as the first statement after a server restart
        self.raw = self._connect()
        return _Cursor(self.raw.execute(pyformat(sql), list(params)))

    def commit(self) -> None:
        if self.in_transaction:
            self.execute("COMMIT")

    def rollback(self) -> None:
        if self.in_transaction:
            self.execute("ROLLBACK")

    def close(self) -> None:
        self._closed = True
        self.raw.close()


class PostgresDatabase:
    """Where sqlite_utils' `Database` stands for the SQLite file."""

    memory = False

    def __init__(self, conn: PostgresConnection):
        self.conn = conn

    def execute(self, sql: str, params: Any = ()) -> _Cursor:
        return self.conn.execute(sql, params)

    @contextlib.contextmanager
    def atomic(self) -> Iterator[PostgresDatabase]:
        """One transaction; nested, a savepoint."""
        conn = self.conn
        if conn.in_transaction:
            savepoint = f"appliance_{secrets.token_hex(8)}"
            conn.execute(f"SAVEPOINT {savepoint}")
            try:
                yield self
            except BaseException:
                if conn.in_transaction:
                    conn.execute(f"ROLLBACK TO SAVEPOINT {savepoint}")
                    conn.execute(f"RELEASE SAVEPOINT {savepoint}")
                raise
            else:
                conn.execute(f"RELEASE SAVEPOINT {savepoint}")
            return
        conn.execute("BEGIN")
        try:
            yield self
        except BaseException:
            conn.rollback()
            raise
        else:
            conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()

    def __getitem__(self, table: str) -> _Table:
        return _Table(self, table)


class _Table:
    """`db[table].rows`, `.count` and `.get(id)`, as sqlite_utils gives them (rows in the order written)."""

    def __init__(self, db: PostgresDatabase, name: str):
        if name not in TABLES:
            raise KeyError(f"no appliance table {name!r}")
        self.db = db
        self.name = name

    @property
    def rows(self) -> Iterator[dict[str, Any]]:
        order = " ORDER BY rowid" if self.name in ROWID_TABLES else ""
        cursor = self.db.execute(f'SELECT * FROM "{self.name}"{order}')
        names = [d[0] for d in cursor.description]
        return (dict(zip(names, row)) for row in cursor.fetchall())

    @property
    def count(self) -> int:
        return self.db.execute(f'SELECT count(*) FROM "{self.name}"').fetchone()[0]

    def get(self, row_id: Any) -> dict[str, Any]:
        cursor = self.db.execute(f'SELECT * FROM "{self.name}" WHERE id = ?', [row_id])
        row = cursor.fetchone()
        if row is None:
            raise KeyError(f"no row {row_id!r} in {self.name}")
        return dict(zip([d[0] for d in cursor.description], row))


def open_postgres(dsn: str) -> PostgresDatabase:
    """Connect, and create the schema where it is missing or older (idempotent; another appliance may do the
    same at the same moment). DatabaseFileError, naming the database but never its password, when it
    cannot be used."""
    where = redacted(dsn)
    try:
        conn = PostgresConnection(dsn)
    except psycopg.Error as error:
        raise DatabaseFileError(f"{where}: cannot connect: {first_line(error)}") from None
    try:
        if not _schema_current(conn.raw):
            create_schema(conn.raw)
    except psycopg.Error as error:
        conn.close()
        raise DatabaseFileError(f"{where}: cannot create the appliance's tables: {first_line(error)}") from None
    except DatabaseFileError:
        conn.close()
        raise
    return PostgresDatabase(conn)


def _schema_current(raw: psycopg.Connection) -> bool:
    if schema_version(raw) != SCHEMA_VERSION:
        return False
    # the last column the schema added (postgres_schema.ROWID_TABLES) is there
    return raw.execute("SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
                       "AND table_name = 'diary_blocks' AND column_name = 'rowid'").fetchone() is not None


def first_line(error: BaseException) -> str:
    """A driver's error in one line (its detail and hint lines left out)."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def build_postgres(clinic: Any, dsn: str, *, replace: bool = False) -> str:
    """Load a validated `Clinic` into the PostgreSQL database at `dsn` (its tables made if missing), in one
    transaction: nothing is written when anything fails. A database that already holds a clinic is refused
    unless `replace`, which empties every appliance table first (patients, bookings and call records too)."""
    from .clinic_store import ClinicStore

    db = open_postgres(dsn)
    try:
        with db.atomic():
            if db.execute("SELECT 1 FROM clinic").fetchone():
                if not replace:
                    raise ValueError(f"{redacted(dsn)} already holds a clinic: use --replace to empty it and load "
                                     "this one (every patient, booking and call record there goes)")
                empty_tables(db)
            ClinicStore(db).load_clinic(clinic)
    finally:
        db.close()
    return redacted(dsn)


def empty_tables(db: PostgresDatabase) -> None:
    """Inside a transaction: every appliance table emptied (not the schema version)."""
    tables = ", ".join(f'"{name}"' for name in TABLES if name != "schema_version")
    db.execute(f"TRUNCATE {tables} RESTART IDENTITY CASCADE")
