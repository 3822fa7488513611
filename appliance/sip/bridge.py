"""The caller's call and the front desk's, wired together on pjsua's conference bridge (SIP thread only).

Each call has a slot on the bridge, and so has each call's audio port (`media.py`: the receptionist's voice
and ears). A call's own wiring is port <-> call (`phone_call.onCallMediaState`); these add the desk:

    listen:  caller ──► desk, receptionist ──► desk     the desk hears both sides; what it says goes nowhere
    join:    caller ◄─► desk                            a warm transfer or a take-over; the receptionist's ears
                                                        hear neither (its voice is silent by then)

Post them with the service's registry of calls (`PhoneService.bridge`).
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("appliance.sip")

MODES = ("listen", "join")


def wire(registry: dict, mode: str, caller_label: str, desk_label: str) -> None:
    import pjsua2 as pj

    caller, desk = registry.get(caller_label), registry.get(desk_label)
    if caller is None or desk is None or caller.disconnected or desk.disconnected:
        raise RuntimeError("a leg of the call has ended")
    try:
        to_caller, to_desk = caller.audio(), desk.audio()
    except pj.Error as exc:
        raise RuntimeError(f"no audio on a leg of the call ({exc.reason.strip()})") from None
    to_caller.startTransmit(to_desk)
    if mode == "listen":
        if caller.port is not None:
            caller.port.startTransmit(to_desk)
        return
    if mode != "join":
        raise ValueError(f"bridge mode {mode!r}: known are {', '.join(MODES)}")
    to_desk.startTransmit(to_caller)
    for source, sink in ((caller.port, to_desk), (to_caller, caller.port), (to_desk, desk.port)):
        _stop(pj, source, sink)


def _stop(pj: Any, source: Any, sink: Any) -> None:
    """One connection off the bridge; one that was never made is no error."""
    if source is None or sink is None:
        return
    try:
        source.stopTransmit(sink)
    except pj.Error as exc:
        log.debug("bridge: %s", exc.reason.strip())
