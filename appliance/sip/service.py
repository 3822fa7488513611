"""`appliance run`: the SIP service that answers the clinic's calls.

How the pieces fit:

    PhoneService.start()
      ├─ VoiceRuntime (models, once) ── warms the greeting, fillers, the busy and shutdown lines
      ├─ serve_monitors(db)           ── the monitor socket; staff transfer / end per call
      ├─ ServiceMetrics (metrics.py)  ── Prometheus /metrics on [metrics] listen (fed by emit(), no patient data)
      ├─ "sip-calls" thread           ── one asyncio loop running every call's CallSession + VoiceCall
      └─ SipEndpoint (endpoint.py)    ── one pj.Endpoint on its own "sip-endpoint" thread (libHandleEvents)
            └─ account.py             ── peer mode (local account) or register mode (digest auth)

    INVITE ─► Endpoint.onSelectAccount (SIP thread) ─► invite_screen.py: over the address's bucket (invite_limit.py)
                                                     or not in allowed_peers (peers.py) ─► refused below, or 480
                                                     at once past the refusals budget (no call, no media)
           ─► account.onIncomingCall (SIP thread) ─► refused: 503 Retry-After (rate limit) or 403 (peer)
                                                  ─► max_calls reached ─► busy line + callback request (or 486)
                                                  ─► PhoneCall (phone_call.py) + CallSession (call_session.py)
    CallSession: 180, engine_factory(call_info) on the call's EngineHost thread, 200, ACK (none in
        ACK_TIMEOUT_S: hung up, nothing written: the INVITE's caller ID is only believed once the dialog is
        confirmed), media up ─►
        VoiceCall(SipTransport) ── media.py's CallAudioPort moves 20 ms frames between the bridge and the
        transport (call_soon_threadsafe in, a deque out); keypad.py turns DTMF into a caller turn;
        the engine's transfer ─► REFER (xfer), or warm (front_desk.py: hold audio, dial() the desk, the brief,
        bridge() the two calls); the goodbye drains ─► BYE; caller BYE ─► record closed at once.
    stop() (SIGTERM): goodbye to calls in progress, pipelines down, then pjsua2 (ports, accounts, libDestroy).

Nothing lost across a crash: start() first recovers the database (store/recovery.py: the fallback journal
replayed, calls a dead process left open closed as `interrupted`, their callers' callbacks raised); a call's
writes the database refuses go to the fallback journal (store/fallback_journal.py), which `maintain()`
replays every few seconds. systemd's watchdog is pinged only while the SIP thread and the calls' event
loop both answer a heartbeat (`heartbeat()`).

In-process use (simulations bring their own engine):

    service = PhoneService(settings, runtime=None, engine_factory=None, on_event=None)
    service.start()            # returns once listening; service.port is the SIP port
    ...
    service.stop()

`engine_factory(call_info: CallInfo) -> Engine` runs on the call's engine thread (SQLite
connections belong to it); the default opens [paths] database / clinic / flow like the
microphone demo, with the recorder published to the monitor. `on_event(call_id, CallEvent)`
sees every call's events (heard, turn, keypad, transfer, call_started, call_finished ...),
on the calls' event loop: keep it quick.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable

from ..engine.types import CallInfo
from ..settings import Settings
from ..store.backend import INTEGRITY_ERRORS, database_present, dialect_of, is_postgres
from .account import SipConfigError, log_registration, registrar_host
from .registration_status import write_registration_status
from .endpoint import SipEndpoint, SipStartError
from .invite_limit import InviteLimiter
from .invite_screen import InviteScreen
from .metrics import ServiceMetrics
from .peers import PeerFilter, host_of
from .sip_text import dialog_tag, header_value

log = logging.getLogger("appliance.sip")

BUSY_LINE = ("Thank you for calling. All our lines are busy right now. We have your number and will call you "
             "back shortly. Goodbye.")
BUSY_NO_CALLBACK_LINE = "Thank you for calling. All our lines are busy right now. Please call again shortly. Goodbye."
CALLBACK_DEDUP = timedelta(hours=1)   # a busy caller who tries again within this gets no second callback row
STOP_TIMEOUT_S = 15.0
TEARDOWN_CALLS_S = 3.0       # at most this long for hung-up calls to reach DISCONNECTED before libDestroy
HEARTBEAT_S = 2.0            # a part that does not answer a heartbeat in this long is stuck: no watchdog ping
REPLAY_EVERY_S = 5.0         # how often waiting fallback-journal entries are offered to the database again

EngineFactory = Callable[[CallInfo], Any]
ServiceEventSink = Callable[[str, Any], None]


class PhoneService:
    def __init__(self, settings: Settings, runtime: Any = None, engine_factory: EngineFactory | None = None,
                 on_event: ServiceEventSink | None = None, *, serve_monitor: bool = True):
        self.settings = settings
        self.runtime = runtime
        self._database: str | Path | None = None
        self.engine_factory: EngineFactory = engine_factory or self._default_engine
        self._custom_factory = engine_factory is not None
        self.on_event = on_event
        self.serve_monitor = serve_monitor
        self.rate = settings.voice.sample_rate
        self.port: int | None = None
        self.screen = InviteScreen(PeerFilter(settings.sip.allowed_peers),
                                   InviteLimiter(burst=settings.sip.invite_burst,
                                                 per_min=settings.sip.invite_rate_per_min))
        self.endpoint = SipEndpoint(settings.sip, clock_rate=self.rate)
        self.endpoint.screen_incoming = self._screen
        # served from start() when [metrics] listen is set; kept either way (cheap, and tests read it directly)
        self.metrics = ServiceMetrics(calls_in_progress=lambda: len(self.sessions),
                                      registers=settings.sip.mode == "register")
        self.loop: asyncio.AbstractEventLoop | None = None
        self.feed: Any = None
        self.journal: Any = None                     # the fallback journal, for the default engine's calls
        self.recovery: Any = None                    # what start() found to recover (store/recovery.py)
        self.sessions: dict[str, Any] = {}          # call_id -> CallSession (event loop)
        self._tasks: set[asyncio.Task] = set()
        self._starting: set[str] = set()            # accepted on the SIP thread, session not made yet
        self._phone_calls: dict[str, Any] = {}      # label -> PhoneCall, kept alive until disconnected (SIP thread)
        self._disconnected: list[str] = []          # labels of calls to let go of (_gone)
        self._account: Any = None
        self._flow: Any = None
        self._clinic: Any = None
        self._loop_thread: threading.Thread | None = None
        self.hold_pcm = b""                         # what a caller on hold hears (hold_audio.py), made in start()
        self._stopping = False
        self._stopped = threading.Event()
        self._lock = threading.Lock()

    # ------------------------------------------------------------ start and stop

    def start(self) -> None:
        """Serve the metrics, load the models, warm the greeting, serve the monitor, listen for SIP; returns once
        listening."""
        sip = self.settings.sip
        if sip.mode == "register":
            from .account import read_password

            read_password(sip.password_file)        # refuse to start with the fix named, before loading anything
        self._serve_metrics()
        try:
            self._start_answering()
        except BaseException:
            self.metrics.close()
            raise
        self.port = self.endpoint.port
        log.info("answering calls on port %s (%s mode, at most %d at once)", self.port, sip.mode, sip.max_calls)

    def _start_answering(self) -> None:
        """Everything start() does after the metrics (which it stops again when this fails)."""
        from ..voice import VoiceRuntime

        if self.runtime is None:
            self.runtime = VoiceRuntime.shared(self.settings)
        self._report_models()
        db_path = self.database
        clinic_lines = None
        if not self._custom_factory:        # an engine factory brings its own database (simulations)
            clinic_lines = self._prepare_clinic()
            self._open_journal()
            self.maintain(recover=True)
        self._warm(clinic_lines)
        if self.serve_monitor and database_present(db_path):
            self._serve_monitor(db_path)
        self._start_loop()
        try:
            self.endpoint.start(self._setup_accounts, cleanup=self._drop_account)
        except Exception:
            self._stop_loop()
            if self.feed is not None:
                self.feed.close()
            raise

    def stop(self) -> None:
        """Goodbye to the calls in progress, pipelines down, then pjsua2; safe to call twice."""
        with self._lock:
            if self._stopping:
                return
            self._stopping = True
        log.info("stopping: %d call(s) in progress", len(self.sessions))
        if self.loop is not None and self.loop.is_running():
            future = asyncio.run_coroutine_threadsafe(self._end_calls(), self.loop)
            try:
                future.result(STOP_TIMEOUT_S)
            except Exception as exc:
                log.warning("not every call ended cleanly (%s)", type(exc).__name__)
        self.endpoint.stop(self._teardown)
        self._stop_loop()
        if self.feed is not None:
            self.feed.close()
            self.feed = None
        self.metrics.close()
        self._stopped.set()
        log.info("stopped")

    def wait(self, timeout: float | None = None) -> bool:
        return self._stopped.wait(timeout)

    # ------------------------------------------------------------ setting up

    @property
    def database(self) -> str | Path:
        """The clinic database: the SQLite file, or the shared PostgreSQL store's address ([data] database)."""
        if self._database is None:
            self._database = self.settings.database_target()
        return self._database

    def _prepare_clinic(self) -> list[str]:
        """The default engine's clinic, flow and database (built from the clinic file when missing; the shared
        store loaded from it when it holds no clinic yet); the lines to warm (`voice.clinic_lines_for`)."""
        from ..clinic import load_clinic_file
        from ..engine.clock import ClinicClock
        from ..engine.flow import load_flow
        from ..store.clinic_store import ClinicStore
        from ..store.database import build_database, open_database
        from ..voice import clinic_lines_for

        paths = self.settings.paths
        self._flow = load_flow(paths.flow)
        db_path = self.database
        if is_postgres(db_path):
            if not _holds_clinic(db_path):
                self._clinic = load_clinic_file(paths.clinic)
                try:
                    build_database(self._clinic, db_path)
                    log.info("loaded the clinic into the shared store from %s", paths.clinic)
                except (ValueError, *INTEGRITY_ERRORS):
                    if not _holds_clinic(db_path):      # else another box loaded it at the same moment
                        raise
        elif not Path(db_path).exists():
            db_path = Path(db_path)
            self._clinic = load_clinic_file(paths.clinic)
            db_path.parent.mkdir(parents=True, exist_ok=True)
            build_database(self._clinic, db_path)
            log.info("built the clinic database %s from %s", db_path, paths.clinic)
        db = open_database(db_path)
        try:
            store = ClinicStore(db)
            clock = ClinicClock(store.profile().timezone)
            return clinic_lines_for(self._flow, store, clock)
        finally:
            db.conn.close()

    def _open_journal(self) -> None:
        from ..store.fallback_journal import FallbackJournal, JournalError

        try:
            self.journal = FallbackJournal.at(self.settings.paths.data_dir)
        except JournalError as exc:
            log.error("%s: refused writes will be lost", exc)

    def maintain(self, *, recover: bool = False) -> None:
        """Offer the fallback journal to the database again; at start-up (`recover`) also close the calls a dead
        process left open (store/recovery.py). Never raises: a database that still refuses is tried later."""
        from ..store.database import open_database
        from ..store.recovery import recover as recover_calls

        db_path = self.database
        if self._custom_factory or db_path is None or not (is_postgres(db_path) or Path(db_path).exists()):
            return
        if not recover and (self.journal is None or not self.journal.pending()):
            return
        try:
            db = open_database(db_path)
        except Exception as exc:
            log.error("the database cannot be opened for recovery (%s)", exc)
            return
        try:
            if recover:
                self.recovery = recover_calls(db, journal=self.journal)
                log.info("%s", self.recovery.line())
            elif self.journal.replay(db):
                log.info("fallback journal replayed; %d entr(ies) still waiting", len(self.journal.pending()))
        except Exception as exc:
            log.error("recovery not finished (%s: %s); trying again later", type(exc).__name__, exc)
        finally:
            db.conn.close()

    def heartbeat(self, timeout: float = HEARTBEAT_S) -> list[str]:
        """The parts that did not answer within `timeout`: "sip" (the endpoint's thread pumping pjsip) and
        "calls" (the event loop that runs every call). Empty when all is well."""
        stuck = []
        try:
            self.endpoint.post(lambda: None).result(timeout)
        except Exception:
            stuck.append("sip")
        loop = self.loop
        try:
            if loop is None or not loop.is_running():
                raise RuntimeError("not running")
            asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result(timeout)
        except Exception:
            stuck.append("calls")
        return stuck

    def _warm(self, clinic_lines: list[str] | None) -> None:
        from ..voice import VoiceRuntime
        from .call_session import SHUTDOWN_LINE
        from .front_desk import JOINING_LINE
        from .hold_audio import hold_sound

        runtime: VoiceRuntime = self.runtime
        started = time.perf_counter()
        runtime.warm_clinic(clinic_lines or [], self.rate, self._flow)
        runtime.speech_cache.warm([BUSY_LINE, BUSY_NO_CALLBACK_LINE, SHUTDOWN_LINE, JOINING_LINE], self.rate)
        self.hold_pcm = hold_sound(self.settings.sip.hold_audio, self.rate)
        log.info("greeting and fixed lines ready in %.1f s", time.perf_counter() - started)

    def _serve_metrics(self) -> None:
        """Prometheus metrics on [metrics] listen. A port that cannot be bound is logged, not fatal: the phone
        line matters more than its figures (`appliance doctor` names what holds the port)."""
        address = self.settings.metrics.address
        if address is None:
            return
        try:
            self.metrics.serve(address)
        except OSError as exc:
            log.error("metrics not served: [metrics] listen %s cannot be bound (%s)", self.settings.metrics.listen,
                      exc.strerror or exc)
            return
        log.info("metrics served on http://%s/metrics", self.settings.metrics.listen)

    def _report_models(self) -> None:
        report = getattr(self.runtime, "report", None)
        loaded = list(getattr(report, "models", {}) or {})
        unavailable = ["llm"] if getattr(report, "llm_problem", None) else []
        self.metrics.models_loaded(loaded, unavailable)

    def _serve_monitor(self, db_path: str | Path) -> None:
        """The monitor socket (and, with [monitor] listen, the same over TLS for other machines' monitors); on the
        shared store the calendar feeds go to this box's data folder."""
        import os

        from ..events import serving
        from ..events.monitor_tls import server_context
        from ..events.socket_file import SOCKET_ENV, MonitorSocketError
        from ..settings import split_listen

        settings = self.settings
        socket_path = None if os.environ.get(SOCKET_ENV) else settings.paths.data_dir / "monitor.sock"
        calendars = settings.paths.data_dir / "calendars" if is_postgres(db_path) else None
        tls = None
        if settings.monitor.listen:
            try:
                host, port = split_listen(settings.monitor.listen)
                tls = (host, port, server_context(settings.monitor.certificate, settings.monitor.key,
                                                  settings.monitor.client_ca))
            except MonitorSocketError as exc:      # the local monitors still see calls
                log.error("monitors on other machines will not see calls: %s", exc)
        try:
            self.feed = serving.serve_monitors(db_path, socket_path=socket_path, calendars=calendars, tls=tls)
        except MonitorSocketError as exc:
            log.warning("the monitor will not see calls: %s", exc)

    def _default_engine(self, call_info: CallInfo) -> Any:
        """Open the database on this call's thread and build its engine (recorder published to the monitor)."""
        from ..engine.clock import ClinicClock
        from ..engine.engine import Engine
        from ..store.clinic_store import ClinicStore
        from ..store.database import open_database
        from ..store.fallback_journal import JournalingStore
        from ..store.records import CallRecorder

        db = open_database(self.database)
        store = ClinicStore(db)
        clock = ClinicClock(store.profile().timezone)
        recorder = CallRecorder(db, journal=self.journal)
        return Engine(flow=self._flow, store=store, clock=clock, recorder=self.publisher_for(recorder),
                      classifier=self.runtime.classifier,
                      fallback=JournalingStore(store, self.journal) if self.journal is not None else None)

    def publisher_for(self, recorder: Any) -> Any:
        """`recorder`, published to the monitor when the monitor socket is served (for engine factories)."""
        return self.feed.publisher_for(recorder) if self.feed is not None else recorder

    def _start_loop(self) -> None:
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self.loop = loop
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()

        self._loop_thread = threading.Thread(target=run, name="sip-calls", daemon=True)
        self._loop_thread.start()
        ready.wait()

    def _stop_loop(self) -> None:
        if self.loop is None or self._loop_thread is None:
            return
        loop = self.loop

        async def cancel_rest() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            asyncio.run_coroutine_threadsafe(cancel_rest(), loop).result(5)
        except Exception:
            pass
        loop.call_soon_threadsafe(loop.stop)
        self._loop_thread.join(5)

    def _setup_accounts(self, ep: Any) -> None:
        """On the SIP thread: the account that answers (and registers, in register mode)."""
        from .account import account_config, make_account

        sip = self.settings.sip
        local = sip.bind_address if sip.bind_address not in ("0.0.0.0", "::") else "127.0.0.1"
        if ":" in local:
            local = f"[{local}]"
        try:
            cfg = account_config(sip, local_host=local, port=self.endpoint.port)
        except SipConfigError as exc:
            raise SipStartError(str(exc)) from None
        account = make_account(self._incoming, self._registration if sip.mode == "register" else None)
        account.create(cfg, True)
        self._account = account
        if sip.mode == "register":
            log.info("registering as extension %s at %s", sip.user, registrar_host(sip))

    def _teardown(self, ep: Any) -> None:
        """On the SIP thread, before libDestroy: hang up, wait for DISCONNECTED, delete every port, shut the
        account down, and drop every reference to a pj object (see endpoint.py: nothing pj may outlive this)."""
        try:
            ep.hangupAllCalls()
        except Exception:
            log.exception("hanging up the remaining calls failed")
        self.endpoint.pump(0.1)                      # the BYEs go out
        # libDestroy with a call still DISCONNECTING (BYE unanswered) is a classic crash: give the calls time to
        # end; the registry loses each call when it reaches DISCONNECTED (_gone)
        until = time.monotonic() + TEARDOWN_CALLS_S
        while self._phone_calls and time.monotonic() < until:
            self.endpoint.pump(0.05)
        if self._phone_calls:
            log.warning("%d call(s) had not ended after %.0f s; stopping anyway", len(self._phone_calls),
                        TEARDOWN_CALLS_S)
        for session in list(self.sessions.values()):
            session.release_call()
        calls = list(self._phone_calls.values())
        self._phone_calls.clear()
        while calls:                                 # the pj.Call wrappers die here, on the SIP thread
            call = calls.pop()
            call.delete_port()
            call.on_gone = None
            del call
        if self._account is not None:
            self._drop_account(ep, unregister_s=0.2 if self.settings.sip.mode == "peer" else 1.0)
        import gc

        gc.collect()

    def _drop_account(self, ep: Any, unregister_s: float = 0.0) -> None:
        """On the SIP thread: shut the account down and let go of it (also when starting failed)."""
        account, self._account = self._account, None
        if account is None:
            return
        try:
            account.shutdown()
        except Exception:
            log.exception("shutting the SIP account down failed")
        if unregister_s:
            self.endpoint.pump(unregister_s)          # the un-REGISTER goes out
        del account

    # ------------------------------------------------------------ incoming calls (SIP thread)

    def _registration(self, code: int, reason: str, expiration: int) -> None:
        """On the SIP thread: log the registration and leave it where `appliance doctor` looks."""
        log_registration(code, reason, expiration)
        self.metrics.registration(code, expiration)
        write_registration_status(self.settings.paths.data_dir, code=code, reason=reason, expiration=expiration,
                                  registrar=self.settings.sip.registrar)

    def _incoming(self, account: Any, prm: Any) -> None:
        from ..engine.clock import random_ids
        from .phone_call import caller_number, make_phone_call

        source = str(prm.rdata.srcAddress)
        call_id = random_ids("call")
        call = make_phone_call(account, prm.callId, loop=self.loop, rate=self.rate, label=call_id,
                               registry=self._phone_calls, on_gone=self._gone)
        self._phone_calls[call_id] = call
        invite = str(prm.rdata.wholeMsg)
        call.remote_tag = dialog_tag(invite, "From")
        refusal = self.screen.refusal(header_value(invite, "Call-ID"))
        if refusal is not None and refusal.code == 503:
            refused = self.screen.refused_in_a_row(source)
            if refused == 1 or refused % 100 == 0:
                log.warning("rate limit: %d new call(s) in a row from %s refused (503; [sip] invite_burst, "
                            "invite_rate_per_min)", refused, host_of(source))
            call.refuse(503, {"Retry-After": str(refusal.retry_after)})
            return
        if refusal is not None:
            log.warning("refused a call from %s: not in [sip] allowed_peers (403)", host_of(source))
            call.hang_up(403)
            return
        if self._stopping:
            call.hang_up(503)
            return
        remote = str(call.getInfo().remoteUri)
        number = caller_number(remote)
        if len(self.sessions) + self._pending_sessions() >= self.settings.sip.max_calls:
            self._busy(call, call_id, number)
            return
        handle = call.handle
        log.info("call %s from %s: answering", call_id, host_of(source))
        self._starting.add(call_id)
        self.loop.call_soon_threadsafe(self._begin, handle, call_id, number, source)

    def _screen(self, rdata: Any) -> bool:
        """SIP thread, before pjsua makes a call for a new request: see invite_screen.py."""
        self._forget_disconnected()
        message = str(rdata.wholeMsg)
        if not message.startswith("INVITE "):
            return True
        if self.screen.admit(str(rdata.srcAddress), header_value(message, "Call-ID")):
            return True
        dropped = self.screen.dropped
        if dropped == 1 or dropped % 500 == 0:
            log.warning("INVITE flood: %d new call(s) refused with 480 before any call was made (over the rate "
                        "limit or not an allowed peer, faster than %d refusals a second)", dropped,
                        self.screen.refusals.per_s)
        return False

    def _pending_sessions(self) -> int:
        return len(self._starting)

    def _gone(self, call: Any) -> None:
        """SIP thread, in DISCONNECTED: the registry lets go of the call once this callback has returned, at
        the next posted job or before pjsua makes its next call, whichever comes first: pjsua reuses call ids,
        and a stale pj.Call's destructor hangs up whichever call has its id by then (seen under a flood, where
        the next INVITE came within the same libHandleEvents)."""
        self._disconnected.append(call.label)
        self.endpoint.post(self._forget_disconnected)

    def _forget_disconnected(self) -> None:
        """SIP thread, outside any call's callback: the pj.Calls of disconnected calls are destroyed here
        (returns None: no future holds a call)."""
        while self._disconnected:
            self._phone_calls.pop(self._disconnected.pop(), None)

    def _begin(self, call: Any, call_id: str, number: str, source: str) -> None:
        from .call_session import CallSession

        self._starting.discard(call_id)
        session = CallSession(self, call, call_id=call_id, caller_id=number, peer_host=source)
        call.session = session
        if call.disconnected:
            session.sip_disconnected(0)
        self.sessions[call_id] = session
        task = self.loop.create_task(self._run_session(session))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run_session(self, session: Any) -> None:
        try:
            await session.run()
        finally:
            self.sessions.pop(session.call_id, None)

    # ------------------------------------------------------------ all lines busy

    def _busy(self, call: Any, call_id: str, number: str) -> None:
        """One caller too many: a short spoken message and a callback request, or 486 when that cannot be done."""
        self.metrics.busy_rejection()
        cache = self.runtime.speech_cache
        pcm, fallback = cache.get(BUSY_LINE, self.rate), cache.get(BUSY_NO_CALLBACK_LINE, self.rate)
        if self.settings.sip.when_busy == "reject":
            log.info("call %s: all lines busy: 486 (when_busy = \"reject\": the proxy tries another box)", call_id)
            call.hang_up(486)
            return
        if not number or pcm is None or fallback is None or self.database is None:
            log.info("call %s: all lines busy, no number to call back: 486", call_id)
            call.hang_up(486)
            return
        log.info("call %s: all lines busy: answering with the busy message", call_id)
        handle = call.handle
        self.loop.call_soon_threadsafe(
            lambda: self.loop.create_task(self._busy_call(handle, call_id, number, pcm, fallback)))

    async def _busy_call(self, call: Any, call_id: str, number: str, pcm: bytes, fallback: bytes) -> None:
        """Answer; once the caller's ACK confirms the call (and so the number), the callback request, then the
        message and BYE."""
        from .call_session import ACK_TIMEOUT_S

        line = _BusyLine()
        call.session = line
        await asyncio.wrap_future(self.endpoint.post(call.answer_with, 200))
        if not await line.wait_confirmed(ACK_TIMEOUT_S):
            log.warning("call %s: answered but not acknowledged in %.0f s (no ACK): released, nothing written",
                        call_id, ACK_TIMEOUT_S)
            await asyncio.wrap_future(self.endpoint.post(call.drop_unacknowledged))
            call.release()
            return
        try:
            request = await asyncio.to_thread(self._callback_request, call_id, number)
            log.info("call %s: all lines busy: callback request %s", call_id, request)
        except Exception as exc:
            log.warning("call %s: the callback request could not be written (%s): asked to call again", call_id,
                        type(exc).__name__)
            pcm = fallback
        try:
            await asyncio.wait_for(line.media.wait(), 5.0)
        except asyncio.TimeoutError:
            pass
        call.outgoing.push(pcm)
        call.outgoing.flush()
        until = time.monotonic() + len(pcm) / 2 / self.rate + 3.0
        while call.outgoing.pending and not line.gone.is_set() and time.monotonic() < until:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        await asyncio.wrap_future(self.endpoint.post(call.hang_up))
        call.release()
        self.emit(call_id, _event("call_finished", outcome="busy"))

    def _callback_request(self, call_id: str, number: str) -> str:
        from ..store.clinic_store import ClinicStore
        from ..store.database import open_database

        from ..store.fallback_journal import JournalingStore
        from ..store.write_budget import is_refusal

        db = open_database(self.database)
        dialect_of(db.conn).set_lock_wait(db.conn, 1500)   # the busy caller waits for this before hearing anything
        try:
            store = ClinicStore(db)
            try:
                return store.add_callback_request(call_id=None, patient_id=None, name=None, phone=number,
                                                  reason="all lines busy", unless_open_within=CALLBACK_DEDUP)
            except Exception as exc:
                if self.journal is None or not is_refusal(exc):
                    raise
                return JournalingStore(store, self.journal).add_callback_request(
                    call_id=None, patient_id=None, name=None, phone=number, reason="all lines busy")
        finally:
            db.conn.close()

    # ------------------------------------------------------------ for sessions

    def emit(self, call_id: str, event: Any) -> None:
        """Every call's events pass here: into the metrics, then to `on_event`."""
        try:
            self.metrics.call_event(event)
        except Exception:
            log.exception("call %s: the metrics missed an event", call_id)
        if self.on_event is None:
            return
        try:
            self.on_event(call_id, event)
        except Exception:
            log.exception("call %s: the on_event handler failed", call_id)

    def transfer_host(self, session: Any) -> str:
        """Where a transfer to a number goes: the registrar in register mode, else the calling peer."""
        if self.settings.sip.mode == "register":
            return registrar_host(self.settings.sip)
        return session.peer_host

    async def dial(self, label: str, uri: str, session: Any) -> Any:
        """Call `uri` (the front desk) from the service's account; the new call's handle, its events going to
        `session` (a DeskLeg). Raises when pjsua refuses to place it."""
        return await asyncio.wrap_future(self.endpoint.post(self._dial, label, uri, session))

    def _dial(self, label: str, uri: str, session: Any) -> Any:
        """On the SIP thread: the outgoing PhoneCall, kept in the registry like an incoming one."""
        import pjsua2 as pj

        from .phone_call import make_phone_call

        if self._account is None or self._stopping:
            raise RuntimeError("the phone line is not up")
        call = make_phone_call(self._account, pj.PJSUA_INVALID_ID, loop=self.loop, rate=self.rate, label=label,
                               registry=self._phone_calls, on_gone=self._gone)
        call.handle.session = session            # before the INVITE: its first answer may come in the next pump
        self._phone_calls[label] = call
        try:
            call.dial(uri)
        except pj.Error as exc:
            self._phone_calls.pop(label, None)
            raise RuntimeError(exc.reason.strip()) from None
        log.info("calling the front desk (%s)", label)
        return call.handle

    async def bridge(self, mode: str, caller_label: str, desk_label: str) -> None:
        """Wire a caller's call and the desk's together on the conference bridge (bridge.py: listen, join)."""
        from .bridge import wire

        await asyncio.wrap_future(self.endpoint.post(wire, self._phone_calls, mode, caller_label, desk_label))

    def register_controls(self, session: Any) -> None:
        if self.feed is None:
            return
        loop = self.loop

        def later(make: Callable[[str], Any]) -> Callable[[str], None]:
            return lambda user: loop.call_soon_threadsafe(lambda: loop.create_task(make(user)))

        self.feed.handler.control_call(session.call_id, transfer_now=later(session.staff_transfer),
                                       end_call=later(session.staff_end), listen_in=later(session.staff_listen),
                                       take_over=later(session.staff_take_over))

    def release_controls(self, session: Any) -> None:
        if self.feed is not None:
            self.feed.handler.release_call(session.call_id)

    async def _end_calls(self) -> None:
        sessions = list(self.sessions.values())
        if sessions:
            await asyncio.gather(*(s.shut_down() for s in sessions), return_exceptions=True)
        tasks = list(self._tasks)
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_TIMEOUT_S - 3)


class _BusyLine:
    """The few events a busy-line call needs from its PhoneCall."""

    def __init__(self):
        self.media = asyncio.Event()
        self.confirmed = asyncio.Event()
        self.gone = asyncio.Event()

    def media_ready(self) -> None:
        self.media.set()

    def sip_disconnected(self, _code: int) -> None:
        self.gone.set()

    def sip_confirmed(self) -> None:
        self.confirmed.set()

    async def wait_confirmed(self, timeout: float) -> bool:
        """True once the caller's ACK has confirmed the call; False when it hung up or never ACKed."""
        from .waits import wait_first

        await wait_first(self.confirmed.wait(), self.gone.wait(), timeout=timeout)
        return self.confirmed.is_set() and not self.gone.is_set()

    def key(self, _digit: str) -> None:
        pass

    def transfer_status(self, _code: int, _final: bool) -> None:
        pass


def _event(kind: str, **data: Any) -> Any:
    from ..voice import CallEvent

    return CallEvent(kind, data=data)


def _holds_clinic(dsn: str) -> bool:
    from ..store.database import open_database

    db = open_database(dsn)
    try:
        return db.execute("SELECT 1 FROM clinic").fetchone() is not None
    finally:
        db.close()


# ---------------------------------------------------------------- `appliance run`

def run_service(settings: Settings) -> int:
    """The command's body: start, tell systemd, serve until SIGTERM/SIGINT, stop in order; the exit status."""
    from ..models import ModelUnavailable
    from ..settings import ConfigError
    from ..store.database import DatabaseFileError
    from ..voice import quiet_pipecat
    from .systemd_notify import notify, watchdog_interval

    quiet_pipecat()
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    service = PhoneService(settings)
    try:
        service.start()
    except (SipStartError, SipConfigError, ModelUnavailable, ConfigError, DatabaseFileError) as exc:
        log.error("%s", exc)        # (a DSN file others may read, a database that cannot be reached or used)
        return 2
    notify(f"READY=1\nSTATUS=answering calls on port {service.port}")
    keep_watch(service, stop, watchdog_interval(), notify)
    notify("STOPPING=1")
    service.stop()
    return 0


def keep_watch(service: Any, stop: threading.Event, interval: float | None, notify: Callable[[str], Any]) -> None:
    """Until `stop`: ping systemd's watchdog every `interval` seconds, but only while the SIP thread and the
    calls' loop both answer a heartbeat (a hung one gets the service restarted); replay the fallback journal
    every REPLAY_EVERY_S."""
    tick = min(interval, REPLAY_EVERY_S) if interval else REPLAY_EVERY_S
    last_ping = last_replay = time.monotonic()
    stuck_before: list[str] = []
    while not stop.wait(tick):
        now = time.monotonic()
        if interval and now - last_ping >= interval - 0.01:
            stuck = service.heartbeat()
            if not stuck:
                notify("WATCHDOG=1")
                last_ping = now
            elif stuck != stuck_before:
                log.error("no answer from %s: not telling the watchdog all is well", " and ".join(stuck))
            stuck_before = stuck
        if now - last_replay >= REPLAY_EVERY_S:
            service.maintain()
            last_replay = now
