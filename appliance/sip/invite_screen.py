"""Which INVITEs get a call and its media, decided before pjsua makes either.

pjsua gives every INVITE it hands to the account a media transport (two sockets), and pjsip's select
ioqueue has 64 handles, each kept half a second after its socket closes: a hundred INVITEs a second refused
only once they reached the account aborted the process (an assertion in pj_ioqueue_register_sock2, found by
bench/faults.py). So each INVITE is screened in Endpoint.onSelectAccount, before any of that:

- from an allowed peer and within its address's bucket (invite_limit.py): on to the account;
- from anyone else, or over the bucket: refused by the account (403, or 503 with Retry-After) while the
  refusals budget lasts (REFUSALS_BURST, then REFUSALS_PER_MIN); past it, pjsua answers 480 itself,
  statelessly, with no call and no media.

    screen = InviteScreen(PeerFilter(...), InviteLimiter(...))
    screen.admit(source, sip_call_id)        # onSelectAccount; False: let pjsua answer 480
    screen.refusal(sip_call_id)              # onIncomingCall: Refusal(403) / Refusal(503, retry_after) / None
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

from .invite_limit import InviteLimiter
from .peers import PeerFilter, host_of

REFUSALS_BURST = 10
REFUSALS_PER_MIN = 300          # five refusals a second with their own answer, over all addresses
MAX_PENDING = 256               # refusals decided but not yet answered (bounded whatever happens)


@dataclass(frozen=True)
class Refusal:
    code: int                   # 403 (not an allowed peer) or 503 (over the rate limit)
    retry_after: int = 0        # seconds, with 503


class InviteScreen:
    def __init__(self, peers: PeerFilter, limiter: InviteLimiter, refusals: InviteLimiter | None = None):
        self.peers = peers
        self.limiter = limiter
        self.refusals = refusals or InviteLimiter(burst=REFUSALS_BURST, per_min=REFUSALS_PER_MIN)
        self.dropped = 0        # answered 480 by pjsua, past the refusals budget
        self._pending: OrderedDict[str, Refusal] = OrderedDict()

    def admit(self, source: str, sip_call_id: str) -> bool:
        """Whether this INVITE goes on to the account (False: pjsua answers 480, nothing is made)."""
        wait = self.limiter.admit(host_of(source))
        if wait is None and self.peers.allows(source):
            return True
        if self.refusals.admit("") is not None:
            self.dropped += 1
            return False
        self._pending[sip_call_id] = Refusal(503, max(1, math.ceil(wait))) if wait is not None else Refusal(403)
        while len(self._pending) > MAX_PENDING:
            self._pending.popitem(last=False)
        return True

    def refusal(self, sip_call_id: str) -> Refusal | None:
        """What the account answers this INVITE instead of taking the call (None: take it)."""
        return self._pending.pop(sip_call_id, None)

    def refused_in_a_row(self, source: str) -> int:
        return self.limiter.refused_in_a_row(host_of(source))
