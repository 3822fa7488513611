"""One call's asyncio side: ring, answer, run the VoiceCall, hang up or transfer, tidy up.

Created by the PhoneService on the event loop for each INVITE it accepts. The
SIP thread tells it what happens (`media_ready`, `sip_disconnected`, `key`,
`transfer_status`); it asks the SIP thread for actions through
`endpoint.post`. The call record is the engine's: a caller who hangs up at any
point gets the record closed with its outcome.

The conversation (and with it the call record, the monitor's view and any
callback under the caller's number) starts only once the caller's ACK has
confirmed the call: an INVITE from a forged address is answered to that
address, so its sender never sees the 200 and never ACKs. Such a call is
hung up after ACK_TIMEOUT_S with nothing written.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any, Callable

from ..engine.types import CallInfo
from ..voice import AgentSpeechFrame, CallEvent, CallTape
from .front_desk import FrontDesk
from .keypad import KeypadCollector
from .phone_call import transfer_uri
from .transport import SipTransport
from .waits import wait_first

log = logging.getLogger("appliance.sip")

RING_S = 0.4                 # rings before answering (and time to build the engine)
MEDIA_TIMEOUT_S = 10.0
ACK_TIMEOUT_S = 3.0          # a 200 OK never acknowledged: released (pjsip has resent it at 0.5 and 1.5 s by then)
TRANSFER_TIMEOUT_S = 8.0     # no answer to the REFER at all: failed
TRANSFER_ACCEPTED_S = 15.0   # REFER accepted (202) but no final NOTIFY: taken as done
BYE_WAIT_S = 5.0
SHUTDOWN_LINE = ("I'm sorry, the phone system has to restart now. If we have your number, the team will call you "
                 "back; or please call again in a few minutes. Goodbye.")


class CallSession:
    def __init__(self, service: Any, phone_call: Any, *, call_id: str, caller_id: str, peer_host: str):
        self.service = service
        self.phone_call = phone_call
        self.call_id = call_id
        self.caller_id = caller_id
        self.peer_host = peer_host
        self.rate = service.rate
        self.tape = CallTape(self.rate) if service.settings.sip.record_calls else None
        # the call's port plays what the transport's output queues
        self.transport = SipTransport(self.rate, tape=self.tape, outgoing=phone_call.outgoing)
        phone_call.on_audio = self.transport.feed
        self.keypad = KeypadCollector(self._keys, self._keypad_reads)
        self.voice_call: Any = None
        self.engine: Any = None
        self.host: Any = None
        self.outcome: str | None = None
        self.summary: Any = None
        self.media = asyncio.Event()
        self.confirmed = asyncio.Event()     # the caller's ACK arrived
        self.gone = asyncio.Event()          # the SIP dialog is over (BYE, CANCEL, error)
        self._unacknowledged = False
        self._transfer: asyncio.Future | None = None
        self._transfer_accepted = False
        self._ending = False
        self.desk = FrontDesk(self)             # warm transfer, listen-in, take-over

    # ------------------------------------------------------------ told by the SIP thread (on the loop)

    @property
    def live(self) -> bool:
        """The receptionist is still talking with the caller."""
        return self.voice_call is not None and not self.gone.is_set() and not self._ending

    def media_ready(self) -> None:
        self.media.set()

    def sip_confirmed(self) -> None:
        self.confirmed.set()

    def sip_disconnected(self, code: int) -> None:
        if self.gone.is_set():
            return
        self.gone.set()
        self.transport.line_dropped()
        if self._transfer is not None and not self._transfer.done():
            self._transfer.set_result(self._transfer_accepted)
        if self.voice_call is not None and not self.voice_call.conversation.finished.is_set():
            asyncio.get_running_loop().create_task(self._caller_left())

    def key(self, digit: str) -> None:
        self.service.emit(self.call_id, CallEvent("key", data={"digit": digit}))
        if self.voice_call is not None and not self.gone.is_set():
            self.keypad.press(digit)

    def transfer_status(self, code: int, final: bool) -> None:
        if self._transfer is None or self._transfer.done():
            return
        if 200 <= code < 300 and not final:
            self._transfer_accepted = True
            return
        if final or code >= 300:
            self._transfer.set_result(200 <= code < 300)

    # ------------------------------------------------------------ the call

    async def run(self) -> None:
        started = time.monotonic()
        try:
            await self._post(self.phone_call.answer_with, 180)
            from ..voice import EngineHost

            self.host = EngineHost(self.call_id)
            info = CallInfo(caller_id=self.caller_id, call_id=self.call_id)
            self.engine = await self.host.call(self.service.engine_factory, info)
            await self._wait_or_gone(asyncio.sleep(max(0.0, RING_S - (time.monotonic() - started))))
            if self.gone.is_set():
                log.info("call %s: the caller hung up while it rang", self.call_id)
                return
            await self._post(self.phone_call.answer_with, 200)
            await self._wait_or_gone(self.confirmed.wait(), ACK_TIMEOUT_S)
            if self.gone.is_set():
                return
            if not self.confirmed.is_set():
                log.warning("call %s: answered but not acknowledged in %.0f s (no ACK): released, nothing written",
                            self.call_id, ACK_TIMEOUT_S)
                self._unacknowledged = True
                return
            self.service.emit(self.call_id, CallEvent("call_started", data={"caller_id": self.caller_id}))
            await self._wait_or_gone(self.media.wait(), MEDIA_TIMEOUT_S)
            if self.gone.is_set():
                return
            if not self.media.is_set():
                log.warning("call %s: no audio was negotiated in %.0f s; hanging up", self.call_id, MEDIA_TIMEOUT_S)
                return
            await self._converse()
        except Exception:
            log.exception("call %s: the call failed", self.call_id)
        finally:
            await self._tidy_up()

    async def _converse(self) -> None:
        from ..voice import VoiceCall

        self.voice_call = VoiceCall(
            self.service.runtime, transport=self.transport, host=self.host, engine=self.engine, rate=self.rate,
            call_info=CallInfo(caller_id=self.caller_id, call_id=self.call_id),
            on_event=self._voice_event, on_transfer=self._on_transfer,
            call_id=self.call_id)
        self.service.register_controls(self)
        self.summary = await self.voice_call.run()
        self.outcome = self.summary.outcome

    def _voice_event(self, event: CallEvent) -> None:
        if event.kind == "heard":   # for the journal: how much was heard, never what
            words = len(event.text.split())
            log.info("call %s: caller turn heard (%d word%s%s)", self.call_id, words, "" if words == 1 else "s",
                     ", STT failed" if event.data.get("stt_failed") else "")
        self.service.emit(self.call_id, event)

    async def _caller_left(self) -> None:
        """The caller hung up mid-call: close the record now and stop the pipeline at once."""
        await self._stop_call()

    async def _stop_call(self, *, drop_audio: bool = False, cut: tuple | None = None) -> None:
        """Close the call's record (outcome included; `cut`: why the service or staff ended it), then stop its
        pipeline."""
        call = self.voice_call
        await call.hang_up(cut)
        try:
            await asyncio.wait_for(call.conversation.finished.wait(), 5.0)
        except asyncio.TimeoutError:
            pass
        if drop_audio:
            self.transport.outgoing.clear()
        await call.worker.cancel()

    async def _tidy_up(self) -> None:
        self.keypad.close()
        self.service.release_controls(self)
        await self.desk.settled()
        if self.desk.joined:                   # the caller talks with the desk now: until one of them hangs up
            await self.desk.stay_joined()
        if self.voice_call is None and self.engine is not None and self.host is not None:
            await self._close_unstarted()
        if self._unacknowledged:
            await self._post(self.phone_call.drop_unacknowledged)   # no one is listening: free at once
        elif not self.gone.is_set():
            await self.transport.drained()      # the goodbye has played to the end
            await self._post(self.phone_call.hang_up)
            await self._wait_or_gone(asyncio.sleep(BYE_WAIT_S))
        await self.desk.close()
        if self.host is not None:
            await self._unheard_bookings()
            self.host.close()
        if self.tape is not None:
            self._write_recording()
        self.service.emit(self.call_id, CallEvent("call_finished", data={"outcome": self.outcome,
                                                                          "summary": self.summary}))
        if self.outcome is None:
            log.info("call %s ended before any conversation", self.call_id)
        else:
            log.info("call %s ended: outcome %s", self.call_id, self.outcome)
        self.release_call()

    def release_call(self) -> None:
        """Let go of the call (the pj.Call itself is only ever held by the service, on the SIP thread)."""
        call, self.phone_call = self.phone_call, None
        if call is not None:
            call.release()

    async def _unheard_bookings(self) -> None:
        """A booking the caller did not hear confirmed (they hung up during it): staff are asked to confirm it."""
        from ..store.recovery import ask_staff_to_confirm

        db = getattr(getattr(self.engine, "store", None), "db", None)
        if db is None or self.voice_call is None:
            return
        call_id = getattr(getattr(self.engine, "ctx", None), "call_id", None) or self.call_id
        try:
            if await self.host.call(ask_staff_to_confirm, db, call_id, self.caller_id):
                log.info("call %s: a booking was not heard confirmed: callback request raised", self.call_id)
        except Exception as exc:
            log.error("call %s: unheard bookings not checked (%s)", self.call_id, type(exc).__name__)

    async def _close_unstarted(self) -> None:
        """The engine was built but no conversation ran (hang-up while ringing, no media): nothing to record
        unless the engine already started the call."""
        try:
            started = await self.host.call(lambda: self.engine.ctx is not None)
            if started:
                self.outcome = await self.host.call(self.engine.hangup)
        except Exception as exc:
            log.error("call %s: could not close the call record (%s)", self.call_id, type(exc).__name__)

    # ------------------------------------------------------------ transfer, staff actions, shutdown

    async def _on_transfer(self, number: str) -> bool:
        """The engine's transfer: warm (front_desk.py) or blind, a REFER to the front desk; False lets the
        engine's fallback run."""
        if self.gone.is_set():
            return False
        sip = self.service.settings.sip
        if sip.transfer == "warm":
            return await self.desk.warm_transfer(number)
        host = self.service.transfer_host(self)
        if not sip.transfer_uri and not number:
            log.warning("call %s: no transfer target ([sip] transfer_uri or the clinic's transfer_number)",
                        self.call_id)
            return False
        await self.transport.drained()
        uri = transfer_uri(sip.transfer_uri, number, host)
        self._transfer = asyncio.get_running_loop().create_future()
        self._transfer_accepted = False
        self.service.emit(self.call_id, CallEvent("transfer", data={"attempt": True}))
        try:
            await self._post(self.phone_call.transfer_to, uri)
        except Exception as exc:
            log.warning("call %s: the transfer could not be sent (%s)", self.call_id, _reason(exc))
            return False
        try:
            ok = await asyncio.wait_for(asyncio.shield(self._transfer), TRANSFER_TIMEOUT_S)
        except asyncio.TimeoutError:
            if not self._transfer_accepted:
                ok = False
            else:
                try:
                    ok = await asyncio.wait_for(asyncio.shield(self._transfer), TRANSFER_ACCEPTED_S)
                except asyncio.TimeoutError:
                    ok = True
        log.info("call %s: transfer %s", self.call_id, "done" if ok else "failed")
        self.service.emit(self.call_id, CallEvent("transfer", data={"ok": ok}))
        return ok

    async def staff_transfer(self, user: str | None = None) -> None:
        """The front desk (OS user `user`) took the call from the monitor: transfer now, recorded as
        transferred_by_staff, by them."""
        if self.voice_call is None or self.gone.is_set() or self._ending:
            return
        number = getattr(self.engine.profile, "transfer_number", "") or ""
        if await self._on_transfer(number):
            await self.host.call(self.engine.staff_took_call, user)
            await self._end_now()

    async def staff_listen(self, user: str | None = None) -> None:
        """The front desk (OS user `user`) listens in from the monitor: its phone rings and hears the call."""
        await self.desk.listen_in(user)

    async def staff_take_over(self, user: str | None = None) -> None:
        """The front desk (OS user `user`) takes the call over from the monitor: recorded `taken_over`."""
        await self.desk.take_over(user)

    async def end_conversation(self) -> None:
        """The receptionist stops at once (what it was saying is dropped); the phone line stays up."""
        await self._end_now()

    async def staff_end(self, user: str | None = None) -> None:
        """The front desk (OS user `user`) ended the call from the monitor: ended_by_staff, by them."""
        if self.voice_call is not None and not self._ending:
            await self._end_now(cut=("ended_by_staff", "ended from the monitor", user))

    async def _end_now(self, cut: tuple | None = None) -> None:
        self._ending = True
        await self._stop_call(drop_audio=True, cut=cut)

    async def shut_down(self) -> None:
        """The service is stopping: say a short goodbye, close the record, hang up."""
        joined = self.desk.joined               # the caller talks with the desk: hung up with it, no goodbye
        if self.desk.leg is not None:
            await self.desk.close()
        if joined or self.voice_call is None or self.gone.is_set() or self._ending:
            return
        self._ending = True
        try:
            await self.transport.say(AgentSpeechFrame(text=SHUTDOWN_LINE, kind="fallback"))
            spoken = time.monotonic()
            await asyncio.sleep(0.3)
            while (self.transport.outgoing.pending or time.monotonic() - spoken < 1.0) \
                    and time.monotonic() - spoken < 8.0 and not self.gone.is_set():
                await asyncio.sleep(0.05)
        except Exception:
            log.exception("call %s: the shutdown goodbye failed", self.call_id)
        await self._stop_call(cut=("shutdown", "the service was stopped during the call", None))

    # ------------------------------------------------------------ helpers

    async def _keys(self, text: str) -> None:
        if self.voice_call is not None and not self.gone.is_set():
            self.service.emit(self.call_id, CallEvent("keypad", text=text))
            await self.transport.caller_keys(text)

    def _keypad_reads(self) -> str:
        """What keypad digits mean for the question just asked (`keypad` in questions.yaml)."""
        question = getattr(getattr(self.voice_call, "listener", None), "question", None)
        return question.keypad if question is not None else "words"

    async def _post(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.wrap_future(self.service.endpoint.post(fn, *args))

    async def _wait_or_gone(self, awaitable, timeout: float | None = None) -> None:
        await wait_first(awaitable, self.gone.wait(), timeout=timeout)

    def _write_recording(self) -> None:
        folder: Path = self.service.settings.recordings_dir
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            path = self.tape.write_wav(folder / f"{self.call_id}.wav")
            log.info("call %s: recording written to %s", self.call_id, path)
        except OSError as exc:
            log.error("call %s: the recording could not be written to %s (%s)", self.call_id, folder, exc.strerror)


def _reason(exc: BaseException) -> str:
    return str(getattr(exc, "reason", "") or type(exc).__name__).strip()
