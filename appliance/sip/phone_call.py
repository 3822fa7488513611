"""One SIP call, pjsua2's side: call state, media, keypad and transfer events.

`PhoneCall` lives on the SIP thread. Its callbacks only read what pjsua2
offers and hand it to the call's asyncio side (`CallSession`, through
`call_soon_threadsafe`); the session asks for SIP actions (answer, BYE,
REFER) by posting the methods below back to the SIP thread.

    call = make_phone_call(account, prm.callId, loop=loop, rate=16000)
    call.session = session                     # gets media_ready / disconnected / key / transfer_status
    endpoint.post(call.answer_with, 200)
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .dialog_release import release_dialog
from .sip_text import dialog_tag
from .media import OutgoingAudio, create_call_port, retire_port

log = logging.getLogger("appliance.sip")


class CallHandle:
    """What the asyncio side holds instead of the pj.Call (plain Python, no pjsua2 object).

    A pj.Call must be destroyed on the SIP thread right after DISCONNECTED (pjsua reuses call ids, and
    deleting a stale Call object later hangs up whichever call has its id now), so only the service's
    registry holds it. The methods below run on the SIP thread (post them) and find the call there.
    """

    def __init__(self, label: str, rate: int, registry: dict):
        self.label = label
        self.outgoing = OutgoingAudio(rate)
        self.session: Any = None
        self.on_audio = _ignore
        self.disconnected = False
        self._registry = registry

    def _call(self) -> Any:
        return self._registry.get(self.label)

    def answer_with(self, code: int, reason: str = "") -> None:
        call = self._call()
        if call is not None:
            call.answer_with(code, reason)

    def hang_up(self, code: int = 0) -> None:
        call = self._call()
        if call is not None:
            call.hang_up(code)

    def drop_unacknowledged(self) -> None:
        call = self._call()
        if call is not None:
            call.drop_unacknowledged()

    def transfer_to(self, uri: str) -> None:
        self._need().transfer_to(uri)

    def _need(self) -> Any:
        call = self._call()
        if call is None:
            raise RuntimeError("the call is over")
        return call

    def release(self) -> None:
        self.session = None
        self.on_audio = _ignore

    def audio_in(self, pcm: bytes) -> None:   # on the event loop: what the call's audio port received
        self.on_audio(pcm)


def _call_class():
    import pjsua2 as pj

    class PhoneCall(pj.Call):
        def __init__(self, account: Any, call_id: int, *, loop: asyncio.AbstractEventLoop, rate: int, label: str,
                     registry: dict, on_gone: Any = None):
            super().__init__(account, call_id)
            self.loop = loop
            self.rate = rate
            self.label = label
            self.handle = CallHandle(label, rate, registry)
            self.outgoing = self.handle.outgoing
            self.port: Any = None               # CallAudioPort, created when media comes up
            self.disconnected = False
            self.on_gone = on_gone              # the service drops its reference (SIP thread, after this callback)
            self._media_told = False
            self.confirmed = False
            self.sip_call_id = ""
            self.remote_tag = ""                # the caller's dialog tag (From), set from the INVITE
            self.local_tag = ""                 # ours (To), from the 200 OK we sent
            self.outbound = False               # placed by the appliance (dial): the front desk's leg

        # ------------------------------------------------------------ callbacks (SIP thread: keep trivial)

        def _tell(self, name: str, *args: Any) -> None:
            session = self.handle.session
            if session is None:
                return
            try:
                self.loop.call_soon_threadsafe(getattr(session, name), *args)
            except RuntimeError:  # the loop is closed: the service is stopping
                pass

        def onCallState(self, prm):
            info = self.getInfo()
            state = info.state
            if state == pj.PJSIP_INV_STATE_EARLY and self.outbound:
                self._tell("sip_ringing", int(info.lastStatusCode))
            elif state == pj.PJSIP_INV_STATE_DISCONNECTED:
                self.disconnected = True
                self.handle.disconnected = True
                self.delete_port()
                self._tell("sip_disconnected", int(info.lastStatusCode))
                if self.on_gone is not None:
                    self.on_gone(self)
            elif state == pj.PJSIP_INV_STATE_CONFIRMED:
                self.confirmed = True
                self._tell("sip_confirmed")
            elif state == pj.PJSIP_INV_STATE_CONNECTING and prm.e.type == pj.PJSIP_EVENT_TSX_STATE and not self.outbound:
                self.sip_call_id = str(info.callIdString)
                self.local_tag = dialog_tag(str(prm.e.body.tsxState.tsx.lastTx.wholeMsg), "To")

        def onCallMediaState(self, prm):
            info = self.getInfo()          # kept alive while its media list is read
            media = info.media
            for index in range(len(media)):
                item = media[index]
                if item.type != pj.PJMEDIA_TYPE_AUDIO or item.status != pj.PJSUA_CALL_MEDIA_ACTIVE:
                    continue
                audio = self.getAudioMedia(item.index)
                if self.port is None:
                    # the port hands frames to the handle, never to this object: a frame still queued on the
                    # event loop must not keep the pj.Call alive there (it would be destroyed on that thread,
                    # perhaps after libDestroy: a pjsua assertion)
                    self.port = create_call_port(f"call-{self.label}", self.rate, self.loop, self.handle.audio_in,
                                                 self.outgoing)
                audio.startTransmit(self.port)
                self.port.startTransmit(audio)
                if not self._media_told:
                    self._media_told = True
                    self._tell("media_ready")
                break

        def onDtmfDigit(self, prm):
            self._tell("key", str(prm.digit))

        def onCallTransferStatus(self, prm):
            prm.cont = True
            self._tell("transfer_status", int(prm.statusCode), bool(prm.finalNotify))

        # ------------------------------------------------------------ actions (posted to the SIP thread)

        def answer_with(self, code: int, reason: str = "") -> None:
            if self.disconnected:
                return
            op = pj.CallOpParam(True)
            op.statusCode = code
            if reason:
                op.reason = reason
            try:
                self.answer(op)
            except pj.Error as exc:     # the caller gave up (CANCEL, timeout) before this answer went out
                log.info("call %s: not answered %d: %s", self.label, code, exc.reason.strip())

        def refuse(self, code: int, headers: dict[str, str]) -> None:
            """A final response `code` with `headers` to an INVITE not answered yet (hang_up cannot carry
            headers there: pjsua drops them when it ends the session from onIncomingCall)."""
            op = pj.CallOpParam(True)
            op.statusCode = code
            for name, value in headers.items():
                header = pj.SipHeader()
                header.hName = name
                header.hValue = value
                op.txOption.headers.append(header)
            self.answer(op)

        def hang_up(self, code: int = 0) -> None:
            """BYE when the call is up, else the final response `code` (e.g. 403, 486)."""
            if self.disconnected:
                return
            op = pj.CallOpParam(True)
            if code:
                op.statusCode = code
            try:
                self.hangup(op)
            except pj.Error as exc:
                log.debug("call %s: hangup: %s", self.label, exc.reason)

        def drop_unacknowledged(self) -> None:
            """Hang up a call whose 200 OK was never ACKed, and have pjsip let it go now (dialog_release.py)."""
            confirmed = self.confirmed
            self.hang_up()
            if not confirmed and not release_dialog(self.sip_call_id, self.local_tag, self.remote_tag):
                log.debug("call %s: pjsip keeps the unacknowledged dialog until its own timeout", self.label)

        def transfer_to(self, uri: str) -> None:
            self.xfer(uri, pj.CallOpParam(True))

        def dial(self, uri: str) -> None:
            """Place this call to `uri` (the front desk): an INVITE from the service's account."""
            self.outbound = True
            self.makeCall(uri, pj.CallOpParam(True))

        def audio(self) -> Any:
            """The call's audio on the conference bridge (pjsua2 AudioMedia)."""
            return self.getAudioMedia(-1)

        def source_host(self) -> str:
            """Where the call's remote contact points (the PBX), host only."""
            return _host_of_uri(str(self.getInfo().remoteContact))

        def delete_port(self) -> None:
            port, self.port = self.port, None
            if port is not None:
                try:
                    retire_port(port)
                except Exception:
                    log.exception("call %s: deleting the audio port failed", self.label)

    return PhoneCall


def _ignore(_pcm: bytes) -> None:
    return None


def _host_of_uri(uri: str) -> str:
    """"<sip:100@10.0.0.5:5060;transport=udp>" -> "10.0.0.5:5060"."""
    text = uri.strip().strip("<>")
    if "<" in text:
        text = text.split("<", 1)[1].split(">", 1)[0]
    for prefix in ("sips:", "sip:"):
        if text.lower().startswith(prefix):
            text = text[len(prefix):]
    return text.split(";", 1)[0].split("@")[-1].split(">", 1)[0]


def user_of_uri(uri: str) -> str:
    """"\"Ann\" <sip:+61412345678@pbx>;tag=1" -> "+61412345678" ("" when there is none)."""
    text = uri
    if "<" in text:
        text = text.split("<", 1)[1].split(">", 1)[0]
    for prefix in ("sips:", "sip:", "tel:"):
        if text.lower().startswith(prefix):
            text = text[len(prefix):]
    text = text.split(";", 1)[0]
    return text.split("@", 1)[0] if "@" in text else text if text.lstrip("+").isdigit() else ""


def caller_number(remote_uri: str) -> str:
    """The caller ID as a phone number, or "" when withheld or not a number ("anonymous", a name)."""
    user = user_of_uri(remote_uri).replace("-", "").replace(" ", "")
    digits = user.lstrip("+")
    return user if digits.isdigit() and 3 <= len(digits) <= 15 else ""


def transfer_uri(configured: str, number: str, host: str) -> str:
    """Where a transfer goes: [sip] transfer_uri, else the clinic's number at the registrar/peer host."""
    if configured:
        return configured if configured.lower().startswith(("sip:", "sips:", "tel:")) else f"sip:{configured}"
    user = "".join(ch for ch in number if ch.isdigit() or ch == "+")
    return f"sip:{user}@{host}"


_CLASS: Any = None


def make_phone_call(account: Any, call_id: int, *, loop: asyncio.AbstractEventLoop, rate: int, label: str,
                    registry: dict, on_gone: Any = None) -> Any:
    global _CLASS
    if _CLASS is None:
        _CLASS = _call_class()
    return _CLASS(account, call_id, loop=loop, rate=rate, label=label, registry=registry, on_gone=on_gone)
