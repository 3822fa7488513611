"""The front desk's phone for `appliance demo --sip`: a second SIP party, so a warm transfer can be watched.

A caller agent process answers as the desk on its own loopback port. The demo's phone line puts a caller
who asks for a person through to it warmly (`SipLine(desk_uri=...)`): the desk's phone rings, the desk
picks up and hears the brief, and is joined with the caller; then the desk says a short hello and,
a moment later, the caller hangs up, which ends the call `transferred`.

    desk = DemoDesk(runtime, say=print)
    with SipLine(flow, runtime, desk_uri=desk.uri) as line:
        asyncio.run(desk.around(play_over_sip(..., line=line, on_joined=desk.caller_joined)))
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Awaitable, Callable, TypeVar

import numpy as np

from ..voice import PHONE_RATE
from .sip_call import free_udp_port
from .sip_caller_client import CallerAgent

log = logging.getLogger("appliance.sip")

DESK_LINE = "Hello, front desk here. How can I help?"
CALLER_STAYS_S = 3.0      # the caller hangs up this long after the desk has spoken (time to watch it joined)
DESK_QUIET_MS = 600

T = TypeVar("T")


class DemoDesk:
    def __init__(self, runtime: Any, *, say: Callable[[str], None]):
        self.runtime = runtime
        self.say = say                    # one line of the demo's output
        port = free_udp_port()          # known before the line starts, which needs the desk's URI
        self.agent = CallerAgent(rate=PHONE_RATE, quiet_ms=DESK_QUIET_MS, sip_port=port)
        self.uri = f"sip:desk@127.0.0.1:{port}"
        self._line: bytes = b""

    async def around(self, call: Awaitable[T]) -> T:
        """`call` (the demo call) with the desk's phone up, answering, for as long as it runs."""
        watching = None
        try:
            await self.agent.start()
            await self.agent.desk("answer")
            watching = asyncio.create_task(self._watch())
            self._line = await asyncio.to_thread(self._desk_line)
        except BaseException:
            getattr(call, "close", lambda: None)()   # a coroutine never started: no "never awaited" warning
            await self.agent.close()
            raise
        try:
            return await call
        finally:
            if watching is not None:
                watching.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watching
            await self.agent.close()

    async def _watch(self) -> None:
        """What happens at the desk's phone, as it happens."""
        async for event in self.agent:
            kind = event.get("event")
            if kind == "incoming":
                self.say(f"the front desk's phone rings ({self.uri})")
            elif kind == "answered":
                self.say("the front desk picks up: the receptionist briefs the desk while the caller is on hold")
            elif kind == "ended":
                self.say("the front desk's phone is hung up")

    async def caller_joined(self, caller: CallerAgent) -> None:
        """The desk is joined with the caller (play_over_sip's on_joined): the desk speaks, then the caller
        hangs up."""
        self.say(f'front desk: "{DESK_LINE}"')
        await self.agent.say(self._line, PHONE_RATE)
        with contextlib.suppress(asyncio.TimeoutError):
            await caller.until_quiet(timeout=10)
        await asyncio.sleep(CALLER_STAYS_S)
        self.say("the caller hangs up")
        await caller.hangup()

    def _desk_line(self) -> bytes:
        """The desk's words in the receptionist's Piper voice (a person's voice is not to hand), else a tone."""
        cache = getattr(self.runtime, "speech_cache", None)
        if cache is not None:
            try:
                cache.warm([DESK_LINE], PHONE_RATE)
                pcm = cache.get(DESK_LINE, PHONE_RATE)
                if pcm:
                    return pcm
            except Exception as exc:
                log.warning("the demo desk's line could not be spoken (%s); the desk answers with a tone",
                            type(exc).__name__)
        t = np.arange(int(1.5 * PHONE_RATE)) / PHONE_RATE
        return (0.4 * 32767 * np.sin(2 * np.pi * 440 * t)).astype(np.int16).tobytes()
