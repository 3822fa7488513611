"""How long one call's writes may wait while the database is locked or the disk is full.

A backup or a monitor can hold SQLite's write lock for seconds, and a full disk
refuses every commit. A call must not hang on either: the caller is on the line.
So a call's writes share a `WriteBudget`: the first write that meets a locked or
full database keeps trying for `wait_s` (the voice layer plays holding lines
meanwhile); once one has been refused, the next writes try only briefly
(`after_refusal_s`) until one succeeds again, so a turn that needs several
writes is not made to wait several times.

    budget = WriteBudget()
    result = budget.run(conn, body)     # BEGIN IMMEDIATE; body(conn); COMMIT, retried within the budget
"""

from __future__ import annotations

import sqlite3
import time
from typing import Callable, TypeVar

T = TypeVar("T")

WAIT_S = 6.0               # a refused write keeps trying this long (holding lines cover it)
AFTER_REFUSAL_S = 0.3      # once refused, later writes try only this long until one succeeds
RETRY_EVERY_S = 0.25       # between tries when the disk is full (a lock is waited for inside SQLite)

# SQLite's words for a database that cannot take a write just now (locked, busy, full, I/O, read-only)
_REFUSALS = ("locked", "busy", "full", "disk i/o", "readonly", "read-only", "unable to open", "no such file")


def is_refusal(error: BaseException) -> bool:
    """True when `error` says the database could not take a write (rather than that the write was wrong)."""
    if getattr(error, "storage", False):
        return True
    if isinstance(error, sqlite3.OperationalError):
        text = str(error).lower()
        return any(word in text for word in _REFUSALS)
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

    def run(self, conn: sqlite3.Connection, body: Callable[[sqlite3.Connection], T], *,
            limit_s: float | None = None) -> T:
        """`body` in one write transaction (BEGIN IMMEDIATE ... COMMIT), tried again while the database refuses
        and the budget lasts (at most `limit_s`: for writes nobody waits on); raises the last refusal
        (sqlite3.Error) when it runs out. Any other exception rolls back and is raised at once."""
        allowance = self.allowance() if limit_s is None else min(limit_s, self.allowance())
        deadline = time.monotonic() + allowance
        previous = conn.execute("PRAGMA busy_timeout").fetchone()[0]
        try:
            while True:
                remaining = deadline - time.monotonic()
                conn.execute(f"PRAGMA busy_timeout = {max(20, int(remaining * 1000))}")
                try:
                    conn.execute("BEGIN IMMEDIATE")
                    result = body(conn)
                    conn.execute("COMMIT")
                except sqlite3.Error as error:
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
                conn.execute(f"PRAGMA busy_timeout = {int(previous)}")
            except sqlite3.Error:
                pass


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass
