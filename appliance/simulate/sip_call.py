"""Scenario files played as real phone calls over SIP on loopback.

The appliance's own phone service (`PhoneService`) answers on a loopback port,
in this process; the caller is a caller agent process (`sip_caller_agent.py`)
that places a SIP call with the scenario's caller ID. The simulated caller is
the spoken simulator's: after each agent turn (the service's `turn` event,
once the reply has played) and once the caller has heard the agent stop
talking, it picks its line from the script, the caller's voice speaks it at
8 kHz (with the line's noise or lost packets: the G.711 itself is the call's
codec, so a `clean` line cannot be had here), and the agent sends it as RTP. The service's engine for the call
is the scenario's (`set_up_scenario`: its clinic, frozen clock and database),
so afterwards the same checks run as in `play_spoken`.

    line = SipLine(flow, runtime, max_calls=4)
    line.start()                                   # once per run
    result = await play_over_sip(path, flow, runtime, line=line)
    print(result.verdict.line())
    line.stop()

With `desk_uri` the line puts a caller who asks for a person through warmly (`[sip] transfer = "warm"`) to that
URI (the demo's front desk, `demo_desk.py`); `play_over_sip(..., on_joined=...)` is then told, with the caller's
agent, once the desk is joined with the caller. Otherwise transfers have nowhere to go (`transfer_uri` "").

Calls may run at once (up to `max_calls`); calls with the same caller ID are
placed one after the other, since the caller ID is how an incoming call finds
its scenario.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

from ..engine.flow import Flow
from ..voice import PHONE_RATE, CallEvent
from .caller import SimulatedCaller
from .caller_speech import CallerSetup, CallerVoice
from .line_conditions import line_condition
from .runner import set_up_scenario
from .scenario import Scenario
from .spoken_call import (CALL_LIMIT_S, SpokenResult, caller_move, caller_phrases, crashed, judge_spoken,
                          source_scenario, spoken_result)
from .sip_caller_client import CallerAgent, CallerAgentError

log = logging.getLogger("appliance.sip")

CALLER_QUIET_MS = 400       # the caller's agent counts the receptionist done after this much quiet
AGENT_TALK_LIMIT_S = 30.0   # longest the caller waits for the receptionist to stop talking
AFTER_HANGUP_S = 20.0       # how long the service may take to report a call over once the line is down


class LineNotOverSip(ValueError):
    pass


def check_sip_line(caller: CallerSetup) -> None:
    """A SIP call is G.711 end to end: a full-band `clean` line cannot be played over it."""
    if not line_condition(caller.line).band_limited:
        raise LineNotOverSip(f"the {caller.line!r} line cannot be played over SIP: a SIP call is G.711 itself "
                             "(8 kHz, µ-law); use g711, noisy or lossy, or --spoken for a clean line")


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ExpectedCall:
    """A scenario waiting for its call to reach the service; then that call's events, on the caller's loop."""

    def __init__(self, scenario: Scenario, clinic: Any, db_path: Path, key: str,
                 on_event: Callable[[CallEvent], None] | None, publisher: Any = None):
        self.scenario, self.clinic, self.db_path, self.key = scenario, clinic, db_path, key
        self.on_event = on_event
        self.publisher = publisher
        self.loop = asyncio.get_running_loop()
        self.events: asyncio.Queue = asyncio.Queue()
        self.claimed = asyncio.Event()
        self.call_id: str | None = None
        self.setup: Any = None

    def claim(self, call_id: str, early: list) -> None:          # any thread
        self.loop.call_soon_threadsafe(self._claimed, call_id, early)

    def deliver(self, event: CallEvent) -> None:                  # any thread
        self.loop.call_soon_threadsafe(self._take, event)

    def _claimed(self, call_id: str, early: list) -> None:
        self.call_id = call_id
        self.claimed.set()
        for event in early:
            self._take(event)

    def _take(self, event: CallEvent) -> None:
        if self.on_event is not None and event.kind not in ("call_started", "call_finished"):
            try:
                self.on_event(event)
            except Exception:
                log.exception("the on_event handler failed")
        self.events.put_nowait(event)


class SipLine:
    """The phone service on a loopback port with an engine factory that hands each call its scenario's engine."""

    def __init__(self, flow: Flow, runtime: Any, *, max_calls: int = 4, settings: Any = None, desk_uri: str = ""):
        self.flow = flow
        self.desk_uri = desk_uri
        self.runtime = runtime
        self.max_calls = max_calls
        self.settings = settings or runtime.settings
        self.service: Any = None
        self._lock = threading.Lock()
        self._waiting: dict[str, ExpectedCall] = {}     # caller ID -> the scenario its next call belongs to
        self._calls: dict[str, ExpectedCall] = {}       # service call id -> scenario
        self._early: dict[str, list] = {}               # events of calls not claimed yet

    @property
    def rate(self) -> int:
        return self.settings.voice.sample_rate

    @property
    def uri(self) -> str:
        return f"sip:receptionist@127.0.0.1:{self.service.port}"

    def start(self) -> SipLine:
        """Blocking: start the service (models warm, SIP listening)."""
        from ..sip.service import PhoneService

        sip = self.settings.sip.model_copy(update={
            "mode": "peer", "bind_address": "127.0.0.1", "port": free_udp_port(), "transports": ("udp",),
            "rtp_port": 10000 + 2 * (free_udp_port() % 5000), "max_calls": self.max_calls, "record_calls": False,
            "allowed_peers": ("127.0.0.1/32",), "transfer_uri": self.desk_uri,
            "transfer": "warm" if self.desk_uri else "blind"})
        settings = self.settings.model_copy(update={"sip": sip})
        self.service = PhoneService(settings, runtime=self.runtime, engine_factory=self._engine_for,
                                    on_event=self._route, serve_monitor=False)
        self.service.start()
        return self

    def stop(self) -> None:
        if self.service is not None:
            self.service.stop()
            self.service = None

    def __enter__(self) -> SipLine:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------ which call is which scenario's

    async def expect(self, scenario: Scenario, clinic: Any, db_path: Path,
                     on_event: Callable[[CallEvent], None] | None = None, publisher: Any = None) -> ExpectedCall:
        """Wait until no other call with this caller ID is on its way, then expect this one."""
        key = service_caller_id(scenario.caller_id)
        while True:
            with self._lock:
                if key not in self._waiting:
                    expected = ExpectedCall(scenario, clinic, db_path, key, on_event, publisher)
                    self._waiting[key] = expected
                    return expected
            await asyncio.sleep(0.05)

    def release(self, expected: ExpectedCall) -> None:
        with self._lock:
            if self._waiting.get(expected.key) is expected:
                del self._waiting[expected.key]
            if expected.call_id is not None:
                self._calls.pop(expected.call_id, None)

    def _engine_for(self, info: Any) -> Any:
        """The service's engine factory (on the call's engine thread): the scenario's engine, on its database."""
        with self._lock:
            expected = self._waiting.pop(info.caller_id, None)
        if expected is None:
            raise LookupError(f"no scenario is waiting for a call from {info.caller_id or 'a withheld number'}")
        expected.setup = set_up_scenario(expected.scenario, expected.clinic, self.flow, db_path=expected.db_path,
                                         classifier=self.runtime.classifier)
        if expected.publisher is not None:   # monitors see this call live (the engine's records become events)
            expected.publisher.watch(expected.setup.engine)
        with self._lock:
            self._calls[info.call_id] = expected
            expected.claim(info.call_id, self._early.pop(info.call_id, []))
        return expected.setup.engine

    def _route(self, call_id: str, event: CallEvent) -> None:
        """The service's on_event (its calls' loop): to the scenario the call belongs to."""
        with self._lock:
            expected = self._calls.get(call_id)
            if expected is None:
                if event.kind == "call_finished":
                    self._early.pop(call_id, None)
                else:
                    self._early.setdefault(call_id, []).append(event)
                return
        expected.deliver(event)


def service_caller_id(caller_id: str) -> str:
    """The caller ID as the service will read it from the From header (see phone_call.caller_number)."""
    from ..sip.phone_call import caller_number

    user = sip_user(caller_id)
    return caller_number(f"<sip:{user}@127.0.0.1>") if user else ""


def sip_user(caller_id: str) -> str:
    return "".join(ch for ch in caller_id if ch.isdigit() or ch == "+")


async def play_over_sip(source: str | Path | tuple[Scenario, Any], flow: Flow, runtime: Any, *,
                        line: SipLine, db_path: str | Path | None = None,
                        on_event: Callable[[CallEvent], None] | None = None,
                        on_said: Callable[[str], None] | None = None, label: str | None = None,
                        record: str | Path | None = None, publisher: Any = None,
                        limit_s: float = CALL_LIMIT_S, caller: CallerSetup = CallerSetup(),
                        on_joined: Callable[[CallerAgent], Awaitable[None]] | None = None) -> SpokenResult:
    """Play one scenario as a SIP call to `line` by `caller`; never raises for a broken scenario or call (it
    fails instead; a `clean` line raises LineNotOverSip before any call).

    `record`: a stereo WAV of the call as the caller heard it (caller left, receptionist right);
    `publisher`: shows the call in `appliance monitor` (see events.serve_for_demo);
    `on_joined(caller's agent)`: run once a warm transfer has joined the caller with the front desk (the call
    stays up until a side hangs up, so this is what ends it)."""
    check_sip_line(caller)
    path, loaded, invalid = source_scenario(source, label)
    if invalid is not None:
        return invalid
    scenario, clinic = loaded
    with tempfile.TemporaryDirectory(prefix="sip-scenario-") as scratch:
        database = Path(db_path) if db_path is not None else Path(scratch) / "scenario.db"
        try:
            return await _play(path, scenario, clinic, flow, runtime, line, database, on_event, on_said, record,
                               publisher, limit_s, caller, on_joined)
        except Exception as exc:  # one broken call is that scenario's failure
            return crashed(path, scenario, exc)


async def _play(path: Path, scenario: Scenario, clinic: Any, flow: Flow, runtime: Any, line: SipLine,
                database: Path, on_event, on_said, record, publisher, limit_s: float, caller: CallerSetup,
                on_joined) -> SpokenResult:
    started = time.perf_counter()
    voice = await asyncio.to_thread(caller.voice_for, runtime, PHONE_RATE, scenario.name, codec=False)
    await asyncio.to_thread(_warm, scenario, clinic, flow, runtime, voice, line.rate)
    warm_s = time.perf_counter() - started
    expected = await line.expect(scenario, clinic, database, on_event, publisher)
    agent = CallerAgent(record=record, rate=PHONE_RATE, quiet_ms=CALLER_QUIET_MS)
    try:
        await agent.start()
        background = voice.background()
        if background:
            await agent.background(background, PHONE_RATE)
        await agent.call(line.uri, caller_id=sip_user(scenario.caller_id))
        summary, said = await asyncio.wait_for(_converse(expected, agent, voice, scenario, on_said, on_joined),
                                             limit_s)
    finally:
        line.release(expected)
        await agent.close()
    if summary is None:
        raise CallerAgentError("the phone service reported no conversation for the call")
    verdict, call_record = await asyncio.to_thread(_judge, path, expected, flow, summary)
    return spoken_result(verdict, call_record, summary, said, warm_s=warm_s, voice=voice.voice_name)


def _warm(scenario: Scenario, clinic: Any, flow: Flow, runtime: Any, voice: CallerVoice, rate: int) -> None:
    """Blocking: the scenario's greeting and fillers for the service, the caller's lines for the caller."""
    from ..voice import clinic_lines_for

    scratch = set_up_scenario(scenario, clinic, flow)      # an in-memory copy, for the greeting's wording only
    runtime.warm_clinic(clinic_lines_for(flow, scratch.store, scratch.clock), rate, flow)
    voice.prepare(caller_phrases(scenario))


async def _converse(expected: ExpectedCall, agent: CallerAgent, voice: CallerVoice, scenario: Scenario,
                    on_said: Callable[[str], None] | None, on_joined=None) -> tuple[Any, list[str]]:
    """Answer each agent turn from the script until the service reports the call over: (CallSummary, lines said)."""
    joined: list[asyncio.Task] = []
    try:
        return await _answer_turns(expected, agent, voice, scenario, on_said, on_joined, joined)
    finally:
        for task in joined:
            task.cancel()


async def _answer_turns(expected: ExpectedCall, agent: CallerAgent, voice: CallerVoice, scenario: Scenario,
                        on_said: Callable[[str], None] | None, on_joined, joined: list[asyncio.Task]
                        ) -> tuple[Any, list[str]]:
    caller = SimulatedCaller.of(scenario)
    said: list[str] = []
    while True:
        try:
            event = await asyncio.wait_for(expected.events.get(), AFTER_HANGUP_S if agent.ended.is_set() else None)
        except asyncio.TimeoutError:
            raise CallerAgentError("the line went down but the phone service never reported the call over") from None
        if event.kind == "call_finished":
            return event.data.get("summary"), said
        if (event.kind == "desk_leg" and event.data.get("connected") and on_joined is not None
                and not agent.ended.is_set()):
            joined.append(asyncio.ensure_future(on_joined(agent)))
            continue
        if event.kind != "turn" or event.timing is None or agent.ended.is_set():
            continue
        move = caller_move(caller, event.timing)
        if move is None or move.over:
            continue
        if move.hang_up:
            await agent.hangup()
            continue
        try:  # a caller answers once the receptionist has finished, not over its last syllable
            await agent.until_quiet(timeout=AGENT_TALK_LIMIT_S)
        except asyncio.TimeoutError:
            log.warning("%s: the receptionist kept talking for %.0f s; answering anyway", scenario.name,
                        AGENT_TALK_LIMIT_S)
        said.append(move.say)
        if on_said is not None:
            on_said(move.say)
        await agent.say(await voice.next_audio(move.say), PHONE_RATE, wait=False)


def _judge(path: Path, expected: ExpectedCall, flow: Flow, summary: Any) -> tuple[Any, dict]:
    """The checks, on a fresh connection to the scenario's database (the call's own closed with its thread)."""
    from ..store.clinic_store import ClinicStore
    from ..store.database import open_database
    from ..store.records import CallRecorder

    setup = expected.setup
    db = open_database(expected.db_path)
    try:
        store = ClinicStore(db, now=setup.clock.now)
        return judge_spoken(path, expected.scenario, expected.clinic, flow, store, CallRecorder(db), setup.before,
                            setup.engine.ctx.call_id, summary)
    finally:
        db.conn.close()
