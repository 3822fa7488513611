"""How long one call's writes may wait while the database is locked or the disk is full.

A backup or a monitor can hold SQLite's write lock for seconds, a full disk
refuses every commit, and a shared PostgreSQL can restart or hold a row lock.
A call must not hang on any of them: the caller is on the line. So a call's
writes share a `WriteBudget`: the first write that meets a locked or full
database keeps trying for `wait_s` (the voice layer plays holding lines
meanwhile); once one has been refused, the next writes try only briefly
(`after_refusal_s`) until one succeeds again, so a turn that needs several
writes is not made to wait several times.

    budget = WriteBudget()
    result = budget.run(conn, body)     # BEGIN; body(conn); COMMIT, retried within the budget

What a back end calls a refusal, and how long it waits for a lock, its dialect says (backend.dialect_of).
"""

from __future__ import annotations

import time
from typing import Any, Callable, TypeVar

from . import postgres_sql, sqlite_sql
from .backend import DATABASE_ERRORS, dialect_of

T = TypeVar("T")

WAIT_S = 6.0               # a refused write keeps trying this long (holding lines cover it)
AFTER_REFUSAL_S = 0.3      # once refused, later writes try only this long until one succeeds
RETRY_EVERY_S = 0.25       # between tries when the disk is full (a lock is waited for inside the database)


def is_refusal(error: BaseException) -> bool:
    """True when `error` says the database could not take a write (rather than that the write was wrong)."""
    if getattr(error, "storage", False):
        return True
    if sqlite_sql.is_refusal(error) or postgres_sql.is_refusal(error):
        return True
    return isinstance(error, OSError) and not isinstance(error, FileNotFoundError)


class WriteBudget:
    def __init__(self, *, wait_s: float = WAIT_S, after_refusal_s: float = AFTER_REFUSAL_S,
                 sleep: Callable[[float], None] = time.sleep):
        self.wait_s = wait_s
        self.after_refusal_s = after_refusal_s
        self.refused = False            # the last write was refused: try briefly until one succeeds
        self._sleep = sleep

    def allowance(self) -> float:
        return self.after_refusal_s if self.refused else self.wait_s

    def run(self, conn: Any, body: Callable[[Any], T], *, limit_s: float | None = None) -> T:
        """`body` in one write transaction (BEGIN ... COMMIT), tried again while the database refuses and the
        budget lasts (at most `limit_s`: for writes nobody waits on); raises the last refusal when it runs out.
        Any other exception rolls back and is raised at once."""
        sql = dialect_of(conn)
        allowance = self.allowance() if limit_s is None else min(limit_s, self.allowance())
        deadline = time.monotonic() + allowance
        previous = None
        try:
            while True:
                remaining = deadline - time.monotonic()
                try:
                    if previous is None:        # (inside: a PostgreSQL server that went away is a refusal too)
                        previous = sql.lock_wait(conn)
                    sql.set_lock_wait(conn, max(20, int(remaining * 1000)))
                    conn.execute(sql.BEGIN_WRITE)
                    result = body(conn)
                    conn.execute("COMMIT")
                except DATABASE_ERRORS as error:
                    _rollback(conn)
                    if not is_refusal(error):
                        raise
                    if time.monotonic() >= deadline - 0.01:
                        self.refused = True
                        raise
                    self._sleep(min(RETRY_EVERY_S, max(0.0, deadline - time.monotonic())))
                    continue
                except BaseException:
                    _rollback(conn)
                    raise
                self.refused = False
                return result
        finally:
            try:
                if previous is not None:
                    sql.set_lock_wait(conn, previous)
            except DATABASE_ERRORS:
                pass


def _rollback(conn: Any) -> None:
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except DATABASE_ERRORS:
            pass
