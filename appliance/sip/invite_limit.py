"""How many new calls one source address may start ([sip] invite_burst, invite_rate_per_min).

A token bucket per address: `burst` INVITEs at once, then one more every 60 / `per_min` seconds. An INVITE
past it is refused with 503 and a Retry-After of the seconds until the next token, before anything is
written or spoken. Only new calls count (pjsip absorbs retransmissions and re-INVITEs before this).

    limiter = InviteLimiter(burst=10, per_min=20)
    wait = limiter.admit("192.168.1.10")       # None: go ahead; else seconds until the next INVITE is taken
    limiter.refused_in_a_row("192.168.1.10")   # for the journal: one line per flood, not one per INVITE

A flood from forged addresses cannot grow the table without bound: it keeps the `max_sources` addresses
heard from most recently.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

MAX_SOURCES = 4096


@dataclass
class _Bucket:
    tokens: float
    at: float
    refused: int = 0          # INVITEs refused since the last one taken


class InviteLimiter:
    def __init__(self, *, burst: int, per_min: float, clock: Callable[[], float] = time.monotonic,
                 max_sources: int = MAX_SOURCES):
        self.burst = float(burst)
        self.per_s = per_min / 60.0
        self.clock = clock
        self.max_sources = max_sources
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def admit(self, source: str) -> float | None:
        """Take a token for `source`: None when there was one, else the seconds until there is."""
        now = self.clock()
        bucket = self._buckets.pop(source, None)
        if bucket is None:
            bucket = _Bucket(self.burst, now)
        else:
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.per_s)
            bucket.at = now
        self._buckets[source] = bucket               # newest last
        while len(self._buckets) > self.max_sources:
            self._buckets.popitem(last=False)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            bucket.refused = 0
            return None
        bucket.refused += 1
        return (1.0 - bucket.tokens) / self.per_s

    def refused_in_a_row(self, source: str) -> int:
        """INVITEs from `source` refused since the last one it was allowed."""
        bucket = self._buckets.get(source)
        return bucket.refused if bucket is not None else 0
