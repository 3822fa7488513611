"""The appliance's own call to the front desk's phone, asyncio side.

The PhoneCall (phone_call.py, placed by `PhoneService.dial`) tells this object what happens, as it tells a
CallSession; this one rings, waits for an answer, plays audio to the desk and hangs up.

    leg = DeskLeg(service, label=f"{call_id}-desk", uri="sip:100@pbx")
    answer = await leg.ring(25.0, give_up=caller_gone)     # "answered", "no answer", "rejected 486", ...
    await leg.say(speech, give_up=caller_gone)              # False when the desk hung up meanwhile
    await leg.hang_up()
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from .waits import wait_first

log = logging.getLogger("appliance.sip")

ANSWERED = "answered"
NO_ANSWER = "no answer"
SAY_MARGIN_S = 0.3       # after the last frame has left: the desk's jitter buffer plays it out


class DeskLeg:
    def __init__(self, service: Any, *, label: str, uri: str):
        self.service = service
        self.label = label
        self.uri = uri
        self.handle: Any = None
        self.started = time.monotonic()
        self.answered = asyncio.Event()       # the desk picked up (ACK sent)
        self.media = asyncio.Event()
        self.gone = asyncio.Event()
        self.code = 0                         # the final SIP status when it ended

    # ------------------------------------------------------------ told by the SIP thread (on the loop)

    def sip_ringing(self, code: int) -> None:
        log.debug("desk leg %s: %d", self.label, code)

    def sip_confirmed(self) -> None:
        self.answered.set()

    def media_ready(self) -> None:
        self.media.set()

    def sip_disconnected(self, code: int) -> None:
        self.code = code
        self.gone.set()

    def key(self, _digit: str) -> None:
        pass

    def transfer_status(self, _code: int, _final: bool) -> None:
        pass

    # ------------------------------------------------------------ acting

    @property
    def up(self) -> bool:
        return self.answered.is_set() and self.media.is_set() and not self.gone.is_set()

    async def ring(self, timeout: float, *, give_up: asyncio.Event | None = None) -> str:
        """Call the desk and wait up to `timeout` for it to pick up (or for `give_up`): "answered", "no answer",
        "rejected <code>", "caller hung up", or "failed (<why>)". Anything but an answer leaves the leg hung up."""
        self.started = time.monotonic()
        try:
            self.handle = await self.service.dial(self.label, self.uri, self)
        except Exception as exc:
            log.warning("desk leg %s: the front desk could not be called (%s)", self.label, _reason(exc))
            self.gone.set()
            return f"failed ({_reason(exc)})"
        waits = [self._picked_up(), self.gone.wait()] + ([give_up.wait()] if give_up is not None else [])
        await wait_first(*waits, timeout=timeout)
        if self.up:
            return ANSWERED
        if self.gone.is_set():
            return f"rejected {self.code}" if self.code >= 300 else f"ended {self.code}"
        await self.hang_up()
        return "caller hung up" if give_up is not None and give_up.is_set() else NO_ANSWER

    async def _picked_up(self) -> None:
        await self.answered.wait()
        await self.media.wait()

    @property
    def waited_s(self) -> float:
        return time.monotonic() - self.started

    async def say(self, speech: Any, *, give_up: asyncio.Event | None = None, limit_s: float = 90.0) -> bool:
        """Play `speech` to the desk to its end, each part as soon as it is made (`speech.parts`: PCM, until
        `speech.finished`); False when the desk hung up first, or `give_up` was set."""
        if self.handle is None or not self.up:
            return False
        outgoing = self.handle.outgoing
        until = time.monotonic() + limit_s

        def stop() -> bool:
            return self.gone.is_set() or (give_up is not None and give_up.is_set()) or time.monotonic() > until

        while not stop():
            while speech.parts:
                outgoing.push(speech.parts.popleft())
            if speech.finished.is_set() and not speech.parts:
                outgoing.flush()
                if not outgoing.pending:
                    break
            await asyncio.sleep(0.05)
        if stop():
            outgoing.clear()
            return False
        await wait_first(self.gone.wait(), timeout=SAY_MARGIN_S)
        return not self.gone.is_set()

    async def hang_up(self) -> None:
        """BYE, or CANCEL while it still rings; the leg is let go of either way."""
        handle = self.handle
        if handle is not None and not self.gone.is_set():
            try:
                await asyncio.wrap_future(self.service.endpoint.post(handle.hang_up))
            except Exception as exc:
                log.debug("desk leg %s: hang-up: %s", self.label, _reason(exc))
            await wait_first(self.gone.wait(), timeout=5.0)
        self.release()

    def release(self) -> None:
        if self.handle is not None and self.gone.is_set():
            self.handle.release()


def _reason(exc: BaseException) -> str:
    return str(getattr(exc, "reason", "") or exc or type(exc).__name__).strip()
