"""systemd's watchdog is told all is well only while the SIP thread and the calls' event loop both answer."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import Future
from types import SimpleNamespace

from appliance.sip.service import PhoneService, keep_watch


class Endpoint:
    """The SIP thread: answers posted jobs, unless it is stuck."""

    def __init__(self, stuck: bool = False):
        self.stuck = stuck

    def post(self, fn, *args):
        future: Future = Future()
        if not self.stuck:
            future.set_result(fn(*args))
        return future


def running_loop() -> asyncio.AbstractEventLoop:
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    while not loop.is_running():
        time.sleep(0.01)
    return loop


def test_the_heartbeat_names_the_part_that_does_not_answer():
    loop = running_loop()
    service = SimpleNamespace(endpoint=Endpoint(), loop=loop)
    assert PhoneService.heartbeat(service, timeout=0.5) == []
    service.endpoint.stuck = True
    assert PhoneService.heartbeat(service, timeout=0.3) == ["sip"]
    service.endpoint.stuck = False
    loop.call_soon_threadsafe(time.sleep, 1.5)          # a call's code blocks the event loop
    assert PhoneService.heartbeat(service, timeout=0.3) == ["calls"]
    loop.call_soon_threadsafe(loop.stop)


def test_the_watchdog_is_pinged_only_while_every_part_answers():
    answers = [[], [], ["calls"], ["calls"], ["sip"], []]
    pings, stop = [], threading.Event()

    class Service:
        def heartbeat(self):
            answer = answers.pop(0) if answers else []
            if not answers:
                stop.set()
            return answer

        def maintain(self):
            pass

    keep_watch(Service(), stop, 0.05, pings.append)
    assert pings == ["WATCHDOG=1"] * 3                  # the three heartbeats that every part answered
