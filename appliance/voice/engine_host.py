"""One thread per call for the engine and its call record.

A SQLite connection belongs to the thread that opened it, and a turn may wait
on the LLM for most of a second, which must not stall the event loop that
paces every call's audio. So each call's engine, store and recorder are built
and used on one thread of their own, and the pipeline awaits them:

    host = EngineHost(name="call-1")
    engine = await host.call(build_engine)     # opens the database on the host thread
    result = await host.call(engine.turn, "what are your hours?")
    host.close()
"""

from __future__ import annotations

import asyncio
import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable

_STOP = object()


class EngineHostClosed(RuntimeError):
    """Work handed to a call's engine after the call ended."""


class EngineHost:
    def __init__(self, name: str = "engine"):
        self._work: queue.Queue = queue.Queue()
        # once closed, work handed in fails at once rather than waiting for a thread that has gone: a decode still
        # running when the call ends asks the engine to read its words, from a worker no one else can free
        self._closing = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=f"engine-{name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            item = self._work.get()
            if item is _STOP:
                with self._closing:
                    self._closed = True
                while not self._work.empty():
                    left = self._work.get_nowait()
                    if left is not _STOP and left[0].set_running_or_notify_cancel():
                        left[0].set_exception(EngineHostClosed("the call's engine has closed"))
                return
            future, fn, args, kwargs = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # handed to the awaiting side
                future.set_exception(exc)

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        with self._closing:
            if self._closed:
                future.set_exception(EngineHostClosed("the call's engine has closed"))
            else:
                self._work.put((future, fn, args, kwargs))
        return future

    async def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return await asyncio.wrap_future(self.submit(fn, *args, **kwargs))

    def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Blocking form, for code outside the event loop."""
        return self.submit(fn, *args, **kwargs).result()

    def close(self) -> None:
        self._work.put(_STOP)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)
