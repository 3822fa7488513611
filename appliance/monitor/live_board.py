"""Every call the service is publishing, folded from its events (tail's `state.py` for calls).

`apply(event)` returns the id of the call it changed, so the app refreshes
only that row (and that transcript, if open). Calls in progress come first,
oldest first; ended calls are kept a little while for an open transcript.
"""

from __future__ import annotations

from collections import OrderedDict

from ..events.messages import CallEvent
from .call_timeline import CallTimeline

KEEP_ENDED = 50


class LiveBoard:
    def __init__(self) -> None:
        self.calls: OrderedDict[str, CallTimeline] = OrderedDict()
        self.server: str | None = None
        self.last_seq = 0
        self._replayed: set[str] | None = None

    def reset(self, server: str | None) -> None:
        """A (re)connection to a different service process: its numbering and calls start afresh."""
        if server != self.server:
            self.calls.clear()
            self.last_seq = 0
        self.server = server

    def begin_replay(self) -> None:
        self._replayed: set[str] | None = set()

    def end_replay(self) -> list[str]:
        """Calls this monitor thought in progress that the replay no longer has: they ended meanwhile."""
        seen, self._replayed = self._replayed or set(), None
        gone = [call.call_id for call in self.in_progress() if call.call_id not in seen]
        for call_id in gone:
            call = self.calls[call_id]
            call.ended = True
            call.extra.append("! ended while this monitor was not connected (see History)")
        return gone

    def apply(self, event: CallEvent) -> str | None:
        replayed = self._replayed
        if replayed is not None and event.call_id is not None:
            replayed.add(event.call_id)
        if event.seq and event.seq <= self.last_seq:
            return None   # already seen (a replay after reconnecting to the same service)
        self.last_seq = max(self.last_seq, event.seq)
        if event.call_id is None:
            return None
        call = self.calls.get(event.call_id)
        if call is None:
            if event.kind in ("turn_timing", "call_ended"):
                return None   # the tail of a call this monitor never saw begin
            call = self.calls[event.call_id] = CallTimeline(call_id=event.call_id)
            if event.ts:
                call.first_seen = event.ts
        call.apply(event)
        self._forget_old()
        return event.call_id

    def _forget_old(self) -> None:
        ended = [call_id for call_id, call in self.calls.items() if call.ended]
        for call_id in ended[:-KEEP_ENDED] if len(ended) > KEEP_ENDED else []:
            del self.calls[call_id]

    def in_progress(self) -> list[CallTimeline]:
        return [call for call in self.calls.values() if not call.ended]

    def get(self, call_id: str) -> CallTimeline | None:
        return self.calls.get(call_id)
