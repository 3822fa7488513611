"""The engine's record sink that is also the monitors' event source.

`CallEventPublisher` wraps a `CallRecorder` and has its writing methods, so
`Engine(recorder=CallEventPublisher(CallRecorder(db), bus))` works unchanged.
Each batch is written to the database first (one transaction, as before);
only when that has succeeded is each entry published as an event. If the
write fails nothing is published, and the engine retries the batch next turn.
Publishing never raises into the call and never waits for a monitor.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable

from .catch_up import record_entries
from .event_bus import EventBus

log = logging.getLogger("appliance.events")


class CallEventPublisher:
    WRITERS = ("call_started", "turn", "transition", "tool_call", "turn_timing", "reply_heard", "call_ended")

    def __init__(self, recorder: Any, bus: EventBus | None, *, on_close: Callable[[], None] | None = None):
        self.recorder = recorder
        self.bus = bus
        self._on_close = on_close

    # ------------------------------------------------------------ the recorder's writing API

    def write_batch(self, entries: list[tuple[str, dict[str, Any]]]) -> None:
        if self.recorder is not None:
            self.recorder.write_batch(entries)   # raises: nothing published, the engine keeps the batch
        for name, fields in entries:
            self._publish(name, fields)

    def commit_with(self, work: Callable[[], Any], entries: Callable[[Any], list[tuple[str, dict[str, Any]]]]) -> Any:
        """A clinic write and its record in one transaction (CallRecorder.commit_with); published once committed."""
        made: list[tuple[str, dict[str, Any]]] = []

        def keep(result: Any) -> list[tuple[str, dict[str, Any]]]:
            made[:] = entries(result)
            return made

        result = self.recorder.commit_with(work, keep)
        for name, fields in made:
            if name == "turn" and fields.get("agent_text") is None:
                continue        # the provisional turn: the monitor gets the turn once, when its reply is known
            self._publish(name, fields)
        return result

    def reply_heard(self, **fields: Any) -> None:
        if self.recorder is not None:
            self.recorder.reply_heard(**fields)

    def call_started(self, **fields: Any) -> None:
        self._write_one("call_started", fields)

    def turn(self, **fields: Any) -> None:
        self._write_one("turn", fields)

    def transition(self, **fields: Any) -> None:
        self._write_one("transition", fields)

    def tool_call(self, **fields: Any) -> None:
        self._write_one("tool_call", fields)

    def turn_timing(self, **fields: Any) -> None:
        """The voice layer fills a turn's timings after the reply was spoken: recorded, then published."""
        self._write_one("turn_timing", fields)

    def call_ended(self, **fields: Any) -> None:
        self._write_one("call_ended", fields)

    def __getattr__(self, name: str) -> Any:
        # reading (call_record, calls, db) goes to the recorder
        recorder = self.__dict__.get("recorder")
        if recorder is None:
            raise AttributeError(name)
        return getattr(recorder, name)

    # ------------------------------------------------------------ events that are not records

    def publish(self, kind: str, call_id: str | None = None, **fields: Any) -> None:
        """An event the records do not hold (the voice layer's `escalation`, `latency`, `tool_started`, ...)."""
        self._publish(kind, {"call_id": call_id, **fields})

    def watch(self, engine: Any) -> None:
        """Publish a call whose engine was built with a plain recorder: take its place and catch up from the record."""
        if engine.recorder is self:
            return
        self.recorder = engine.recorder
        engine.recorder = self
        ctx = getattr(engine, "ctx", None)
        if ctx is None or self.recorder is None:
            return
        for name, fields in record_entries(self.recorder.call_record(ctx.call_id)):
            self._publish(name, fields)

    def close(self, *, linger: float = 0.0) -> None:
        """Stop serving monitors, if this publisher started the server (after `linger` seconds)."""
        if self._on_close is not None:
            if linger > 0:
                time.sleep(linger)
            on_close, self._on_close = self._on_close, None
            on_close()

    # ------------------------------------------------------------ plumbing

    def _write_one(self, name: str, fields: dict[str, Any]) -> None:
        if self.recorder is not None:
            getattr(self.recorder, name)(**fields)
        self._publish(name, fields)

    def _publish(self, kind: str, fields: dict[str, Any]) -> None:
        if self.bus is None:
            return
        try:
            self.bus.publish(kind, fields.get("call_id"), fields)
        except Exception as exc:  # a monitor problem never reaches the call
            log.error("call event %s not published: %s", kind, type(exc).__name__)
