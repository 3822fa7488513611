"""Failed sign-ins, counted per account and per address: past the limit, sign-in is refused for a while.

Both counts matter: per account stops guessing one person's password from many addresses, per address stops one
machine trying many accounts. A refused attempt is not checked at all (a right password then is refused too), and
the wait is the rest of the window since the first failure counted, so the limit holds however fast one tries.
A success clears the account's count; the address's stays (it may have been guessing others).
"""

from __future__ import annotations

import time
from collections import deque
from typing import Callable


class SignInGuard:
    def __init__(self, *, failures: int, window_s: float, clock: Callable[[], float] = time.monotonic):
        self.failures = failures
        self.window_s = window_s
        self.clock = clock
        self._seen: dict[tuple[str, str], deque[float]] = {}

    def _recent(self, key: tuple[str, str]) -> deque[float]:
        now = self.clock()
        times = self._seen.get(key)
        if times is None:
            return deque()
        while times and now - times[0] >= self.window_s:
            times.popleft()
        if not times:
            del self._seen[key]
        return times

    def wait_s(self, *, account: str, address: str) -> float:
        """Seconds until this account may try again from this address; 0 when it may now."""
        now, wait = self.clock(), 0.0
        for key in (("account", account), ("address", address)):
            times = self._recent(key)
            if len(times) >= self.failures:
                wait = max(wait, times[0] + self.window_s - now)
        return wait

    def failed(self, *, account: str, address: str) -> None:
        now = self.clock()
        for key in (("account", account), ("address", address)):
            times = self._recent(key)
            times.append(now)
            self._seen[key] = times

    def succeeded(self, *, account: str) -> None:
        self._seen.pop(("account", account), None)
