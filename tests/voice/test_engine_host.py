"""A call's engine thread after the call has ended."""

from __future__ import annotations

import threading
import time

import pytest

from appliance.voice.engine_host import EngineHost, EngineHostClosed


def test_work_handed_in_after_the_call_ends_fails_at_once():
    host = EngineHost(name="ended")
    assert host.run(lambda: 42) == 42
    host.close()
    started = time.monotonic()
    with pytest.raises(EngineHostClosed):
        host.run(lambda: 1)       # a decode still running asks the engine to read its words
    assert time.monotonic() - started < 1.0


def test_work_queued_behind_the_close_fails_rather_than_waiting_for_ever():
    host = EngineHost(name="closing")
    busy = threading.Event()
    host.submit(busy.wait, 5)                     # the engine is busy when the call ends
    closing = threading.Thread(target=host.close)
    closing.start()
    time.sleep(0.1)
    late = host.submit(lambda: 1)                 # handed in after the close, before the engine got to it
    busy.set()
    with pytest.raises(EngineHostClosed):
        late.result(timeout=5)
    closing.join(timeout=5)
