"""Run by test_media_ports.py in its own process (pjsua2 allows one endpoint per process).

Audio ports fed by pjsip's clock thread every 20 ms are made and retired
over and over on this thread, as a busy phone line makes and ends calls.
Prints one JSON line with what it saw, and exits 0 only if it got to the end.
"""

from __future__ import annotations

import asyncio
import faulthandler
import json
import sys
import time

import pjsua2 as pj

from appliance.sip.media import OutgoingAudio, create_call_port, retire_port

RATE = 16000


def main(rounds: int) -> int:
    faulthandler.enable()
    ep = pj.Endpoint()
    ep.libCreate()
    cfg = pj.EpConfig()
    cfg.uaConfig.threadCnt = 0
    cfg.uaConfig.mainThreadOnly = True
    cfg.logConfig.level = 0
    cfg.logConfig.consoleLevel = 0
    cfg.medConfig.clockRate = RATE
    ep.libInit(cfg)
    ep.audDevManager().setNullDev()
    ep.libStart()
    loop = asyncio.new_event_loop()
    frames: list[bytes] = []

    def pump(seconds: float) -> None:
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            ep.libHandleEvents(5)
            loop.run_until_complete(asyncio.sleep(0))   # the frames handed over with call_soon_threadsafe

    def port(name: str, heard=frames.append):
        outgoing = OutgoingAudio(RATE)
        outgoing.push(bytes(outgoing.frame) * 200)
        return create_call_port(name, RATE, loop, heard, outgoing), outgoing

    peer, _ = port("peer", heard=lambda pcm: None)   # the other end: it sends to and takes from each call's port
    call, outgoing = port("call")
    call.startTransmit(peer)
    peer.startTransmit(call)
    pump(0.3)
    heard_live, played_live = len(frames), outgoing.played_frames
    retire_port(call)
    del call
    pump(0.1)                              # a frame already on its way may still land
    heard_before, played_before = len(frames), outgoing.played_frames
    pump(0.3)
    report = {"heard_live": heard_live, "played_live": played_live,
              "heard_after": len(frames) - heard_before, "played_after": outgoing.played_frames - played_before}
    for i in range(rounds):
        call, _ = port(f"call-{i}")
        call.startTransmit(peer)
        peer.startTransmit(call)
        pump(0.002 * (i % 10))
        retire_port(call)
        del call
    report["rounds"] = rounds
    retire_port(peer)
    ep.libDestroy()
    loop.close()
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 300))
