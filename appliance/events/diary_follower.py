"""Something to do whenever a call may have changed the diary (the practitioners' calendar feeds).

It follows the bus like a monitor does, on its own thread, so a call never
waits for it: after a tool call or a call's end it runs `on_change`, and once
a minute anyway (a write from elsewhere, a new day). `on_change` decides for
itself whether anything changed.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from .event_bus import EventBus

log = logging.getLogger("appliance.events")

DIARY_EVENT_KINDS = ("tool_call", "call_ended")


class DiaryFollower:
    def __init__(self, bus: EventBus, on_change: Callable[[], Any], *, every_seconds: float = 60.0):
        self.bus = bus
        self.on_change = on_change
        self.every_seconds = every_seconds
        self._woken = threading.Event()
        self._stopping = False
        self._subscription = bus.subscribe(self._woken.set, maxsize=100_000)
        self._thread = threading.Thread(target=self._run, name="diary-follower", daemon=True)

    def start(self) -> "DiaryFollower":
        self._thread.start()
        return self

    def _run(self) -> None:
        first = True
        while not self._stopping:
            woken = first or self._woken.wait(self.every_seconds)
            first = False
            self._woken.clear()
            if self._stopping:
                return
            if self._subscription.closed:      # dropped for not keeping up: join again
                self._subscription = self.bus.subscribe(self._woken.set, maxsize=100_000)
            events = self._subscription.drain()
            if woken and not any(event.kind in DIARY_EVENT_KINDS for event in events) and events:
                continue
            try:
                self.on_change()
            except Exception as exc:
                log.error("after a diary change: %s: %s", type(exc).__name__, exc)

    def close(self) -> None:
        self._stopping = True
        self._woken.set()
        self._thread.join(timeout=3)
        self._subscription.close()
