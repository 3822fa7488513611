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
