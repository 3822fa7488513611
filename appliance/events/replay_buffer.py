"""The recent events a monitor is given when it connects: every call in progress, so far.

Bounded three ways: at most `max_calls` calls in progress (the least recently
active is forgotten first), at most `per_call` events per call (its
`call_started` is always kept, then the newest), and `loose` events that
belong to no call. A call's events are dropped when it ends; the database has
it from then on.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass, field

from .messages import CallEvent


@dataclass
class _CallEvents:
    start: CallEvent | None = None
    rest: deque = field(default_factory=deque)


class ReplayBuffer:
    def __init__(self, *, max_calls: int = 64, per_call: int = 2000, loose: int = 200, remember_ended: int = 256):
        self.max_calls = max_calls
        self.per_call = per_call
        self._calls: OrderedDict[str, _CallEvents] = OrderedDict()
        self._loose: deque[CallEvent] = deque(maxlen=loose)
        self._ended: OrderedDict[str, None] = OrderedDict()
        self._remember_ended = remember_ended

    def add(self, event: CallEvent) -> None:
        call_id = event.call_id
        if call_id is None:
            self._loose.append(event)
            return
        if event.kind == "call_ended":
            self._calls.pop(call_id, None)
            self._ended[call_id] = None
            while len(self._ended) > self._remember_ended:
                self._ended.popitem(last=False)
            return
        if call_id in self._ended:   # a late timing for a finished call: the database has it
            return
        events = self._calls.get(call_id)
        if events is None:
            events = self._calls[call_id] = _CallEvents(rest=deque(maxlen=max(1, self.per_call - 1)))
            while len(self._calls) > self.max_calls:
                self._calls.popitem(last=False)
        else:
            self._calls.move_to_end(call_id)
        if event.kind == "call_started" and events.start is None:
            events.start = event
        else:
            events.rest.append(event)

    def events(self) -> list[CallEvent]:
        """Everything to replay, in publishing order."""
        out: list[CallEvent] = list(self._loose)
        for events in self._calls.values():
            if events.start is not None:
                out.append(events.start)
            out.extend(events.rest)
        out.sort(key=lambda event: event.seq)
        return out

    def calls_in_progress(self) -> list[str]:
        return list(self._calls)
