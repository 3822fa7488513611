"""One call's dealings with the front desk's phone: a warm transfer, a listen-in, a take-over.

The appliance calls the desk itself (`DeskLeg`, to `[sip] transfer_uri` or the clinic's transfer number at the
PBX) and joins the two calls on its conference bridge (`bridge.py`), so it needs nothing of the PBX but an
extension to ring.

    warm transfer (the flow hands the caller to a person, `[sip] transfer = "warm"`):
        "I'll put you through ... please hold" ─► hold audio ─► ring the desk (desk_answer_timeout_s)
          answered ─► the brief (desk_brief.py, Piper) to the desk ─► join ─► True: the receptionist is done
          no answer, rejected ─► False: the engine's failed-transfer path (a callback with the brief as its
                                 message, then "anything else?": the flow's `desk_unanswered`)
    listen-in (staff, `l`): ring the desk ─► caller and receptionist to the desk; the desk's microphone nowhere
    take-over (staff, `t`): ring the desk unless it listens already ─► the record ends `taken_over` ─► the
        receptionist stops ─► "one of our team is joining" to the caller ─► join

Every desk leg is recorded with the call (`Engine.desk_leg`: purpose, where, answered or not, how long the
caller waited, the brief, the staff user). A joined call stays up until one side hangs up; then the other is
hung up (`stay_joined`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from typing import Any

from ..voice import Priority, box_scheduler
from .desk_brief import desk_brief
from .desk_leg import ANSWERED, DeskLeg
from .hold_audio import play_hold
from .phone_call import transfer_uri
from .waits import wait_first

log = logging.getLogger("appliance.sip")

JOINING_LINE = "One of our team is joining the call now."


class BriefSpeech:
    """The brief as it is made: its text, then its audio a phrase at a time (appended on the TTS lane's thread,
    taken on the loop)."""

    def __init__(self) -> None:
        self.text: str | None = None
        self.written = asyncio.Event()        # the text is known
        self.parts: deque[bytes] = deque()
        self.finished = asyncio.Event()       # every part is in `parts`
        self.stop = threading.Event()         # no one will hear the rest: stop making it
        self.making: asyncio.Task | None = None
        self.job: Any = None                  # its job on the box's TTS lane, once the text is known


class FrontDesk:
    def __init__(self, session: Any):
        self.session = session
        self.leg: DeskLeg | None = None
        self.mode: str | None = None          # ringing | listening | joining | joined
        self._busy: asyncio.Future | None = None

    @property
    def joined(self) -> bool:
        return self.mode == "joined" and self.leg is not None and not self.leg.gone.is_set()

    def uri(self, number: str) -> str | None:
        """Where the desk is: [sip] transfer_uri, else the clinic's number at the PBX; None when neither."""
        sip = self.session.service.settings.sip
        if not sip.transfer_uri and not number:
            log.warning("call %s: no front desk to call ([sip] transfer_uri or the clinic's transfer_number)",
                        self.session.call_id)
            return None
        return transfer_uri(sip.transfer_uri, number, self.session.service.transfer_host(self.session))

    # ------------------------------------------------------------ warm transfer

    async def warm_transfer(self, number: str) -> bool:
        """The flow's transfer, warm: True once the caller and the desk are joined; False for the engine's
        fallback (the desk leg is recorded either way)."""
        s = self.session
        if self.mode == "listening":          # the desk has heard the call: join it
            return await self._join_listening(None, purpose="warm_transfer")
        if self.leg is not None or s.gone.is_set():
            return False
        uri = self.uri(number)
        if uri is None:
            return False
        self._busy = asyncio.get_running_loop().create_future()
        try:
            return await self._warm_transfer(uri)
        finally:
            self._settle()

    async def _warm_transfer(self, uri: str) -> bool:
        s = self.session
        await s.transport.drained()           # "... please hold" has played
        started = time.monotonic()
        hold = asyncio.create_task(play_hold(s.phone_call.outgoing, s.service.hold_pcm))
        brief = BriefSpeech()
        brief.making = asyncio.create_task(self._speak_brief(brief))     # made while the desk's phone rings
        leg = self.leg = DeskLeg(s.service, label=f"{s.call_id}-desk", uri=uri)
        self.mode = "ringing"
        answer, hanging_up = "failed", None
        try:
            answer = await leg.ring(s.service.settings.sip.desk_answer_timeout_s, give_up=s.gone)
            if answer == ANSWERED:
                answer = await self._brief_then_join(leg, brief, hold)
            await wait_first(brief.written.wait(), timeout=5.0)   # the text, for the record and the callback
        except Exception as exc:
            log.error("call %s: warm transfer failed (%s)", s.call_id, type(exc).__name__)
            answer = f"failed ({type(exc).__name__})"
        finally:                              # cancelled too (the caller hung up and the pipeline was stopped)
            hold.cancel()
            brief.stop.set()
            if brief.job is not None:
                box_scheduler().cancel(brief.job)   # not started yet: never will be
            if self.mode != "joined":
                s.phone_call.outgoing.clear()
                self.leg, self.mode = None, None
                hanging_up = asyncio.ensure_future(leg.hang_up())
        waited = time.monotonic() - started
        if hanging_up is None:
            log.info("call %s: warm transfer: the front desk answered and is joined after %.1f s", s.call_id, waited)
            await self._record("warm_transfer", leg, connected=True, answer=ANSWERED, waited_s=waited,
                               brief=brief.text)
            return True
        if not s.gone.is_set():               # a caller who left is not kept waiting on the desk's phone
            await hanging_up
        log.info("call %s: warm transfer: %s after %.1f s; back to the caller", s.call_id, answer, waited)
        await self._record("warm_transfer", leg, connected=False, answer=answer, waited_s=waited, brief=brief.text)
        return False

    async def _brief_then_join(self, leg: DeskLeg, brief: BriefSpeech, hold: asyncio.Task) -> str:
        """The desk picked up: the brief, then the two calls joined. ANSWERED when joined, else why not."""
        s = self.session
        if brief.job is not None:             # the desk listens now: the brief is no longer ahead of need
            box_scheduler().promote(brief.job, Priority.TURN_ENDED)
        if not await leg.say(brief, give_up=s.gone):
            return "caller hung up during the brief" if s.gone.is_set() else "desk hung up during the brief"
        hold.cancel()
        s.phone_call.outgoing.clear()
        await s.service.bridge("join", s.call_id, leg.label)
        self.mode = "joined"
        return ANSWERED

    async def _speak_brief(self, brief: BriefSpeech) -> None:
        """The brief's text from the call's summary, then its audio phrase by phrase at the call's rate (Piper, on
        the box's TTS lane) into `brief`. A record that cannot be read gives the brief without details;
        a voice that fails, what it made so far."""
        s = self.session
        loop = asyncio.get_running_loop()
        try:
            recap = await s.host.call(_recap, s.engine)
        except Exception as exc:
            log.error("call %s: the call's summary could not be read for the brief (%s)", s.call_id,
                      type(exc).__name__)
            recap = None
        brief.text = desk_brief(recap)
        brief.written.set()
        synthesizer = s.service.runtime.synthesizer

        def speak() -> None:
            for pcm in synthesizer.sentences(brief.text, s.rate, brief.stop):
                brief.parts.append(pcm)

        # Piper's lane on the box's scheduler, shared with every call's replies: made ahead of need while the
        # desk's phone rings (after the replies callers are waiting for), moved up once the desk answers
        brief.job = box_scheduler().submit("tts", speak, priority=Priority.SPECULATIVE, size=len(brief.text),
                                           label=f"call {s.call_id} desk brief")
        try:
            await asyncio.wrap_future(brief.job.future, loop=loop)
        except Exception as exc:
            log.error("call %s: the brief could not be spoken (%s)", s.call_id, type(exc).__name__)
        finally:
            brief.finished.set()

    # ------------------------------------------------------------ listen-in and take-over (staff)

    async def listen_in(self, user: str | None, *, purpose: str = "listen_in") -> bool:
        """Ring the desk and let it hear the call, muted; True once it listens."""
        s = self.session
        if self.leg is not None or not s.live:
            return self.mode == "listening"
        uri = self.uri(getattr(s.engine.profile, "transfer_number", "") or "")
        if uri is None:
            return False
        leg = self.leg = DeskLeg(s.service, label=f"{s.call_id}-desk", uri=uri)
        self.mode = "ringing"
        answer = await leg.ring(s.service.settings.sip.desk_answer_timeout_s, give_up=s.gone)
        if answer == ANSWERED:
            try:
                await s.service.bridge("listen", s.call_id, leg.label)
            except Exception as exc:
                answer = f"failed ({type(exc).__name__}: {exc})"
        await self._record(purpose, leg, connected=answer == ANSWERED, answer=answer, waited_s=leg.waited_s,
                           by=user)
        if answer != ANSWERED:
            await leg.hang_up()
            self.leg, self.mode = None, None
            log.info("call %s: %s: the front desk %s", s.call_id, purpose.replace("_", "-"), answer)
            return False
        self.mode = "listening"
        log.info("call %s: the front desk listens in (%s)", s.call_id, user or "unknown user")
        asyncio.get_running_loop().create_task(self._watch_listening(leg))
        return True

    async def _watch_listening(self, leg: DeskLeg) -> None:
        """The desk hung up while listening: nothing more to do but let the leg go."""
        await leg.gone.wait()
        if self.leg is leg and self.mode == "listening":
            self.leg, self.mode = None, None
            leg.release()
            log.info("call %s: the front desk stopped listening", self.session.call_id)

    async def take_over(self, user: str | None) -> bool:
        """A person at the desk takes the call: the receptionist stops, the caller is told, the two are joined."""
        s = self.session
        if self.mode in ("joining", "joined") or not s.live:
            return False
        self._busy = asyncio.get_running_loop().create_future()
        try:
            if self.mode is None and not await self.listen_in(user, purpose="take_over"):
                return False
            while self.mode == "ringing":        # a listen-in still ringing: wait for it
                await asyncio.sleep(0.1)
            if self.mode != "listening":
                return False
            return await self._join_listening(user, purpose="take_over")
        finally:
            self._settle()

    async def _join_listening(self, user: str | None, *, purpose: str) -> bool:
        """The desk, listening, joins: the record ends (taken over), the pipeline stops, the caller hears that a
        person joins, and the two are joined."""
        s = self.session
        leg = self.leg
        self.mode = "joining"
        if purpose == "take_over":
            await s.host.call(lambda: s.engine.staff_took_call(user, taken_over=True))
            await s.end_conversation()
        pcm = s.service.runtime.speech_cache.get(JOINING_LINE, s.rate)
        if pcm:
            await s.transport.drained()
            s.phone_call.outgoing.clear()
            s.phone_call.outgoing.push(pcm)
            s.phone_call.outgoing.flush()
            until = time.monotonic() + len(pcm) / 2 / s.rate + 2.0
            while s.phone_call.outgoing.pending and not s.gone.is_set() and time.monotonic() < until:
                await asyncio.sleep(0.05)
        try:
            if leg is None or leg.gone.is_set() or s.gone.is_set():
                raise RuntimeError("a leg hung up")
            await s.service.bridge("join", s.call_id, leg.label)
        except Exception as exc:
            log.warning("call %s: the front desk could not be joined (%s)", s.call_id, exc)
            self.mode = "listening" if leg is not None and not leg.gone.is_set() else None
            return False
        self.mode = "joined"
        log.info("call %s: %s: the front desk is joined with the caller", s.call_id, purpose.replace("_", "-"))
        if purpose == "warm_transfer":
            await self._record(purpose, leg, connected=True, answer="joined from a listen-in", waited_s=0.0)
        return True

    # ------------------------------------------------------------ the end

    async def settled(self) -> None:
        """Until a warm transfer or take-over in progress has joined the call or given up."""
        if self._busy is not None and not self._busy.done():
            await asyncio.shield(self._busy)

    def _settle(self) -> None:
        if self._busy is not None and not self._busy.done():
            self._busy.set_result(None)

    async def stay_joined(self) -> None:
        """A joined call: until the caller or the desk hangs up (the session then hangs up the caller; the desk
        is hung up here)."""
        s = self.session
        if self.leg is None:
            return
        await wait_first(s.gone.wait(), self.leg.gone.wait())
        log.info("call %s: the %s hung up the joined call", s.call_id,
                 "caller" if s.gone.is_set() else "front desk")

    async def close(self) -> None:
        """The call is over: the desk's leg too."""
        leg, self.leg, self.mode = self.leg, None, None
        if leg is not None:
            await leg.hang_up()

    async def _record(self, purpose: str, leg: DeskLeg | None, *, connected: bool, answer: str, waited_s: float,
                      brief: str | None = None, by: str | None = None) -> None:
        s = self.session
        try:
            await s.host.call(lambda: s.engine.desk_leg(purpose=purpose, desk=leg.uri if leg else "",
                                                        connected=connected, answer=answer, waited_s=waited_s,
                                                        brief=brief, by=by))
        except Exception as exc:
            log.error("call %s: the desk leg was not recorded (%s)", s.call_id, type(exc).__name__)
        s.service.emit(s.call_id, _event("desk_leg", purpose=purpose, connected=connected, answer=answer,
                                         waited_s=round(waited_s, 1), by=by, brief=brief))


def _recap(engine: Any) -> Any:
    """The call's summary so far, read on the engine's thread (None without a database record)."""
    from ..call_review import summary_of_call

    db = getattr(getattr(engine, "store", None), "db", None)
    ctx = getattr(engine, "ctx", None)
    if db is None or ctx is None:
        return None
    return summary_of_call(db.conn, ctx.call_id)


def _event(kind: str, **data: Any) -> Any:
    from ..voice import CallEvent

    return CallEvent(kind, data=data)
