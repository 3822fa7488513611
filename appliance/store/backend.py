"""Which back end a database is on: SQLite (the one box's file) or PostgreSQL (the shared store).

A database is named by a path (SQLite) or a `postgresql://` address; `open_database` (database.py) opens
either. Code that holds a connection asks `dialect_of(conn)` for what differs (sqlite_sql.py,
postgres_sql.py) and catches `DATABASE_ERRORS` / `INTEGRITY_ERRORS`, which cover both drivers.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import ModuleType
from typing import Any

import psycopg

from . import sqlite_sql

POSTGRES_SCHEMES = ("postgresql://", "postgres://")

DATABASE_ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error, psycopg.Error)
INTEGRITY_ERRORS: tuple[type[BaseException], ...] = (sqlite3.IntegrityError, psycopg.IntegrityError)


def is_postgres(target: str | Path | None) -> bool:
    """True when `target` names a PostgreSQL database (a `postgresql://` address) rather than a file."""
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


def dialect_of(conn: Any) -> ModuleType:
    """The module that says what the connection's back end says differently (a sqlite3 connection: SQLite)."""
    return getattr(conn, "dialect", sqlite_sql)


def redacted(dsn: str) -> str:
    """A PostgreSQL address fit for a message or a log: the password, if any, left out."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.Error:
        return "the PostgreSQL database (its address cannot be read)"
    user = f"{info['user']}@" if info.get("user") else ""
    host = info.get("host") or "localhost"
    port = f":{info['port']}" if info.get("port") else ""
    return f"postgresql://{user}{host}{port}/{info.get('dbname', '')}"


def database_present(target: str | Path | None) -> bool:
    """Whether there is a database to open at `target` without making one: a PostgreSQL address (the server
    says whether it answers), or a file that exists."""
    if target is None:
        return False
    return is_postgres(target) or Path(target).exists()


def database_over(conn: Any) -> Any:
    """The store's database object over a connection already open (the monitor's own): sqlite_utils'
    `Database` for a sqlite3 connection, `PostgresDatabase` for the shared store's."""
    if dialect_of(conn) is sqlite_sql:
        import sqlite_utils

        return sqlite_utils.Database(conn)
    from .postgres_database import PostgresDatabase

    return PostgresDatabase(conn)


def database_name(target: str | Path) -> str:
    """`target` as a message or a screen names it: a file's path, a PostgreSQL address without its password."""
    return redacted(target) if is_postgres(target) else str(target)
