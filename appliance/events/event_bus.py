"""Fans call events out to every connected monitor without ever waiting for one.

`publish` is called on the call's own thread, right after the record is on
disk. It takes one short lock, numbers the event, keeps it for replay and
appends it to each subscriber's bounded queue; it never does I/O and never
waits. A subscriber whose queue is full (a monitor that stopped reading) is
dropped on the spot and told so through its `wake` callback, so the server
can close its connection.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Any, Callable

from .messages import CallEvent, jsonable, wire_line
from .replay_buffer import ReplayBuffer

log = logging.getLogger("appliance.events")

DEFAULT_CLIENT_QUEUE = 2000


class Subscription:
    """One monitor's view of the bus: the replay it joined with, then live events."""

    def __init__(self, bus: "EventBus", wake: Callable[[], None], maxsize: int, replay: list[CallEvent]):
        self._bus = bus
        self._wake = wake
        self.maxsize = maxsize
        self.replay = replay
        self._queue: deque[CallEvent] = deque()
        self.overflowed = False
        self.closed = False

    def _offer(self, event: CallEvent) -> bool:
        """Called under the bus lock. False when this subscriber must be dropped."""
        if len(self._queue) >= self.maxsize:
            self.overflowed = True
            self._queue.clear()
            return False
        self._queue.append(event)
        return True

    def wake(self) -> None:
        try:
            self._wake()
        except Exception:  # the server's loop is gone; nothing to tell
            pass

    def drain(self) -> list[CallEvent]:
        """The live events queued since the last drain (called from the server's loop)."""
        with self._bus._lock:
            events = list(self._queue)
            self._queue.clear()
        return events

    def close(self) -> None:
        self._bus.unsubscribe(self)


class EventBus:
    def __init__(self, *, replay: ReplayBuffer | None = None, clock: Callable[[], float] = time.time,
                 client_queue: int = DEFAULT_CLIENT_QUEUE):
        self._lock = threading.Lock()
        self._seq = 0
        self._replay = replay or ReplayBuffer()
        self._subscribers: list[Subscription] = []
        self._clock = clock
        self.client_queue = client_queue
        self.dropped = 0          # subscribers dropped for not keeping up

    def publish(self, kind: str, call_id: str | None, fields: dict[str, Any]) -> CallEvent:
        event_fields = jsonable(fields)
        to_wake: list[Subscription] = []
        with self._lock:
            self._seq += 1
            event = CallEvent(kind=kind, call_id=call_id, fields=event_fields, seq=self._seq, ts=self._clock())
            self._replay.add(event)
            for subscriber in list(self._subscribers):
                if not subscriber._offer(event):
                    self._subscribers.remove(subscriber)
                    subscriber.closed = True
                    self.dropped += 1
                    log.warning("a monitor stopped reading call events; dropped it (it can reconnect)")
                to_wake.append(subscriber)
        for subscriber in to_wake:
            subscriber.wake()
        return event

    def subscribe(self, wake: Callable[[], None], *, maxsize: int | None = None) -> Subscription:
        """A new subscriber: its replay is exactly what came before its first live event."""
        with self._lock:
            subscription = Subscription(self, wake, maxsize or self.client_queue, self._replay.events())
            self._subscribers.append(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            if subscription in self._subscribers:
                self._subscribers.remove(subscription)
            subscription.closed = True

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subscribers)

    @property
    def last_seq(self) -> int:
        with self._lock:
            return self._seq

    def calls_in_progress(self) -> list[str]:
        with self._lock:
            return self._replay.calls_in_progress()

    @staticmethod
    def line(event: CallEvent) -> bytes:
        return wire_line(event.to_wire())
