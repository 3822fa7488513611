"""Signed-in browser sessions: a random token in a cookie, held in the server's memory only.

A session ends after `idle_s` without the person doing anything (a key or a click in the monitor; the monitor's
own live updates do not count), after `max_s` in any case, when they sign out, and as soon as their account is
removed or its password changed (`appliance staff remove|passwd`). A restart of the server ends every session.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Callable

from .staff_accounts import AccountError, StaffAccounts


@dataclass
class WebSession:
    token: str
    staff: str
    password_hash: str      # the account's at sign-in: a changed password ends the session
    started: float
    last_active: float


class WebSessions:
    def __init__(self, accounts: StaffAccounts, *, idle_s: float, max_s: float,
                 clock: Callable[[], float] = time.monotonic):
        self.accounts = accounts
        self.idle_s = idle_s
        self.max_s = max_s
        self.clock = clock
        self._sessions: dict[str, WebSession] = {}

    def start(self, staff: str) -> WebSession:
        account = self.accounts.get(staff)
        if account is None:
            raise KeyError(staff)
        now = self.clock()
        session = WebSession(secrets.token_urlsafe(32), staff, account.password_hash, now, now)
        self._sessions[session.token] = session
        return session

    def find(self, token: str | None) -> WebSession | None:
        """The live session with this token (expired or orphaned ones are dropped), else None."""
        session = self._sessions.get(token or "")
        if session is None:
            return None
        why = self.ended(session)
        if why:
            self._sessions.pop(session.token, None)
            return None
        return session

    def ended(self, session: WebSession) -> str | None:
        """Why the session is over, or None while it lasts."""
        now = self.clock()
        if self._sessions.get(session.token) is not session:
            return "signed out"
        if now - session.last_active >= self.idle_s:
            return "idle too long"
        if now - session.started >= self.max_s:
            return "session too long"
        try:
            account = self.accounts.get(session.staff)
        except AccountError as exc:
            return f"the staff accounts cannot be read ({exc})"
        if account is None:
            return "account removed"
        if account.password_hash != session.password_hash:
            return "password changed"
        return None

    def touch(self, session: WebSession) -> None:
        session.last_active = self.clock()

    def end(self, token: str | None) -> None:
        self._sessions.pop(token or "", None)

    def __len__(self) -> int:
        return len(self._sessions)
