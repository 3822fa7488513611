"""`appliance doctor` on the shared PostgreSQL store: the address, the connection, the schema and the rights.

Read-only: nothing is created or changed (the service creates missing tables when it starts; `appliance db
init` loads the clinic). Messages name the database by its address without the password.
"""

from __future__ import annotations

from typing import Any

import psycopg

from ..settings import ConfigError, Settings
from ..store.backend import redacted
from ..store.database import SCHEMA_VERSION
from ..store.postgres_database import first_line
from ..store.postgres_schema import schema_version

CONNECT_TIMEOUT_S = 5
# the tables a call writes: the role must be allowed to
WRITTEN_TABLES = ("appointments", "patients", "callback_requests", "calls", "turns", "transitions", "tool_calls")
SETUP = "docs/it-admin.md, \"The shared PostgreSQL store\""


def check_postgres(settings: Settings, check: Any) -> Any:
    """One `Check` (doctor's type, passed in as `check`) of the configured PostgreSQL database."""
    try:
        dsn = settings.database_target()
    except ConfigError as exc:
        return check("FAIL", "database", str(exc), f"see {SETUP}")
    where = redacted(dsn)
    try:
        conn = psycopg.connect(dsn, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True)
    except psycopg.Error as exc:
        return check("FAIL", "database", f"{where}: cannot connect: {first_line(exc)}",
                     "check that the server is up and reachable from this box, that pg_hba.conf lets this box's "
                     f"address in for the role, and the role's password ({SETUP})")
    with conn:
        try:
            return _schema_check(conn, where, settings, check)
        except psycopg.Error as exc:
            return check("FAIL", "database", f"{where}: {first_line(exc)}", f"see {SETUP}")


def _schema_check(conn: psycopg.Connection, where: str, settings: Settings, check: Any) -> Any:
    init = f"appliance db init --clinic {settings.paths.clinic}"
    version = schema_version(conn)
    if version is None:
        return check("FAIL", "database", f"{where}: holds no appliance tables",
                     f"{init} (a new clinic) or appliance db migrate --from sqlite:///<the box's database file>")
    if version > SCHEMA_VERSION:
        return check("FAIL", "database", f"{where}: schema version {version}, newer than this appliance's "
                                         f"({SCHEMA_VERSION})", "update the appliance software on this box")
    if conn.execute("SELECT 1 FROM pg_constraint WHERE conname = 'slot_taken_practitioner'").fetchone() is None:
        return check("FAIL", "database", f"{where}: the constraint that refuses double bookings is missing",
                     "start the service once as a role that may create the extension btree_gist, or "
                     "CREATE EXTENSION btree_gist as the database's owner, then restart it")
    denied = [table for table in WRITTEN_TABLES
              if not conn.execute("SELECT has_table_privilege(%s, 'INSERT, UPDATE')", [table]).fetchone()[0]]
    if denied:
        return check("FAIL", "database", f"{where}: the role may not write {', '.join(denied)}",
                     "GRANT the appliance's role ownership of the database (or INSERT and UPDATE on its tables)")
    clinic = conn.execute("SELECT 1 FROM clinic").fetchone()
    if clinic is None:
        return check("FAIL", "database", f"{where}: holds no clinic", init)
    server = conn.info.server_version
    note = f", schema {version}" + (" (the service brings it up to date when it starts)"
                                    if version < SCHEMA_VERSION else "")
    return check("WARN" if version < SCHEMA_VERSION else "OK", "database",
                 f"{where}: PostgreSQL {server // 10000}.{server % 10000}, writable{note}, "
                 "double bookings refused by the database")

