"""The process's one pjsua2 Endpoint, owned by one thread of its own.

pjsua2 runs with `threadCnt=0` and `mainThreadOnly=True`: every SIP callback
(incoming call, call state, DTMF, registration) runs on the thread that pumps
`libHandleEvents`, and every pjsua2 call the service makes is posted to that
thread (`post`). Only the media clock thread calls into Python elsewhere
(`media.CallAudioPort`), and it only hands frames over.

    endpoint = SipEndpoint(settings.sip, clock_rate=16000)
    endpoint.start(setup=lambda ep: make_accounts(ep))   # returns once the transports listen
    endpoint.post(call.answer, prm).result()
    endpoint.stop(teardown=lambda ep: hang_up_and_delete_ports())   # then libDestroy, on the same thread

Teardown order (all on the SIP thread): the calls are hung up and pumped until
DISCONNECTED (bounded), their AudioMediaPorts deleted, the accounts shut down,
every Python reference to a pj object dropped and a garbage collection run,
then `libDestroy`. A pj.Call, AudioMediaPort or Account wrapper that outlived
libDestroy, or died on another thread, would run its C++ destructor against a
destroyed (or unregistered) pjsua: an assertion or a segfault at exit. So no
pj object may be reachable from the event loop (handles, futures, exception
tracebacks) — `post` strips the frames of the exceptions it hands over.
"""

from __future__ import annotations

import logging
import queue
import threading
import traceback
from concurrent.futures import Future
from typing import Any, Callable

from ..settings import SipSettings

log = logging.getLogger("appliance.sip")

PUMP_MS = 10
FRAME_MS = 20


class SipStartError(RuntimeError):
    """The SIP endpoint could not start; the message names the setting to fix."""


class SipEndpoint:
    def __init__(self, sip: SipSettings, *, clock_rate: int, max_calls: int | None = None, pj_log_level: int = 1):
        self.sip = sip
        self.clock_rate = clock_rate
        # room for the caller who is told the lines are busy, and for calls answered but not yet ACKed; pjsua
        # gives no more than PJSUA_MAX_CALLS (4 in the wheel, fixed when it was built) whatever is asked
        self.max_calls = max_calls or max(sip.max_calls + 2, WHEEL_CALL_SLOTS)
        self.call_slots = self.max_calls        # what pjsua granted, once started
        self.pj_log_level = pj_log_level
        self.ep: Any = None
        self.ports: dict[str, int] = {}        # transport name -> bound port
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._start_error: BaseException | None = None
        self._setup: Callable[[Any], None] | None = None
        self._teardown: Callable[[Any], None] | None = None
        self._log_writer: Any = None
        self.housekeeping: Callable[[], None] | None = None    # run on the SIP thread about once a second
        # SIP thread, for each new incoming request (pj.SipRxData), before pjsua makes a call or its media:
        # False has pjsua answer 480 at once (invite_screen.py)
        self.screen_incoming: Callable[[Any], bool] | None = None

    # ------------------------------------------------------------ public

    def start(self, setup: Callable[[Any], None], *, cleanup: Callable[[Any], None] | None = None,
              timeout: float = 15.0) -> None:
        """Create the library, the transports and (through `setup`, on the SIP thread) the accounts.

        When starting fails, `cleanup` runs on the SIP thread before libDestroy (what `setup` made)."""
        self._setup = setup
        self._teardown = cleanup
        self._thread = threading.Thread(target=self._run, name="sip-endpoint", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise SipStartError("the SIP endpoint did not start in time")
        if self._start_error is not None:
            raise self._start_error

    @property
    def port(self) -> int:
        return next(iter(self.ports.values()), self.sip.port)

    def post(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
        """Run `fn` on the SIP thread; the future holds its result."""
        future: Future = Future()
        if self._stopped.is_set():
            future.set_exception(RuntimeError("the SIP endpoint has stopped"))
            return future
        self._jobs.put((future, fn, args, kwargs))
        return future

    def on_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def stop(self, teardown: Callable[[Any], None] | None = None, *, timeout: float = 15.0) -> None:
        """Run `teardown` on the SIP thread (hang up, delete ports, shut accounts down), then libDestroy."""
        if self._thread is None or self._stopped.is_set():
            return
        self._teardown = teardown
        self._stopping.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.error("the SIP endpoint did not stop in %.0f s", timeout)

    # ------------------------------------------------------------ the SIP thread

    def _run(self) -> None:
        try:
            self._create()
            if self._setup is not None:
                self._setup(self.ep)
        except BaseException as exc:  # handed to start()
            self._start_error = exc if isinstance(exc, SipStartError) else SipStartError(_describe(exc))
            _clear_frames(exc)
            del exc
            if self.ep is not None and self._teardown is not None:
                try:
                    self._teardown(self.ep)
                except Exception:
                    log.exception("SIP cleanup after a failed start failed")
            self._destroy()
            self._stopped.set()
            self._ready.set()
            return
        self._ready.set()
        import time

        next_housekeeping = time.monotonic() + 1.0
        try:
            while not self._stopping.is_set():
                self.ep.libHandleEvents(PUMP_MS)
                self._drain()
                if self.housekeeping is not None and time.monotonic() >= next_housekeeping:
                    next_housekeeping = time.monotonic() + 1.0
                    self.housekeeping()
        except Exception:
            log.exception("the SIP event loop failed")
        finally:
            try:
                if self._teardown is not None:
                    self._teardown(self.ep)
            except Exception:
                log.exception("SIP teardown failed")
            self._drain()
            self._destroy()
            self._stopped.set()
            self._fail_pending()

    def _drain(self) -> None:
        while True:
            try:
                future, fn, args, kwargs = self._jobs.get_nowait()
            except queue.Empty:
                return
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:
                # the future is read on the event loop: its traceback must not keep this thread's pj objects alive
                _clear_frames(exc)
                future.set_exception(exc)
            del future, fn, args, kwargs

    def _fail_pending(self) -> None:
        while True:
            try:
                future, *_ = self._jobs.get_nowait()
            except queue.Empty:
                return
            if future.set_running_or_notify_cancel():
                future.set_exception(RuntimeError("the SIP endpoint has stopped"))

    def pump(self, seconds: float) -> None:
        """Handle SIP events for a while (on the SIP thread: lets BYEs and 200s go out during teardown)."""
        import time

        until = time.monotonic() + seconds
        while time.monotonic() < until:
            self.ep.libHandleEvents(PUMP_MS)
            self._drain()

    def _create(self) -> None:
        import pjsua2 as pj

        sip = self.sip
        quiet_pjlib(self.pj_log_level)        # else libCreate prints pjlib's start-up lines at level 4-5
        ep = self.ep = _make_endpoint_class()()
        ep.screen = lambda rdata: self.screen_incoming is None or self.screen_incoming(rdata)
        ep.libCreate()
        cfg = pj.EpConfig()
        cfg.uaConfig.threadCnt = 0
        cfg.uaConfig.mainThreadOnly = True
        cfg.uaConfig.maxCalls = self.max_calls
        cfg.uaConfig.userAgent = "clinic-receptionist-appliance"
        cfg.logConfig.level = self.pj_log_level
        cfg.logConfig.consoleLevel = self.pj_log_level
        self._log_writer = _JournalLogWriter()
        cfg.logConfig.writer = self._log_writer
        cfg.logConfig.decor = 0
        med = cfg.medConfig
        med.clockRate = self.clock_rate
        med.sndClockRate = self.clock_rate
        med.channelCount = 1
        med.audioFramePtime = FRAME_MS
        med.ptime = FRAME_MS
        med.noVad = True
        med.ecTailLen = 0
        ep.libInit(cfg)
        self.call_slots = granted_call_slots(self.max_calls)
        if sip.max_calls + 1 > self.call_slots:
            log.warning("[sip] max_calls = %d, but this pjsua2 build handles %d calls at once, the busy line's "
                        "included: set max_calls to %d or less", sip.max_calls, self.call_slots,
                        self.call_slots - 1)
        for name in sip.transports:
            kind = _transport_kind(pj, name, sip.bind_address)
            tcfg = pj.TransportConfig()
            tcfg.port = sip.tls_port if name == "tls" else sip.port
            if sip.bind_address not in ("0.0.0.0", "::"):
                tcfg.boundAddress = sip.bind_address
            if name == "tls":
                tls_config(pj, tcfg.tlsConfig, sip)
            try:
                tid = ep.transportCreate(kind, tcfg)
            except pj.Error as exc:
                if name == "tls":
                    raise SipStartError(f"[sip] cannot open TLS on {sip.bind_address}:{tcfg.port} "
                                        f"({exc.reason.strip()}): check tls_cert_file, tls_key_file and "
                                        "tls_ca_file (PEM, the key unencrypted and matching the certificate) "
                                        "and that tls_port is free") from None
                raise SipStartError(f"[sip] cannot listen on {sip.bind_address}:{sip.port}/{name} "
                                    f"({exc.reason.strip()}): is another SIP service running? "
                                    "Change [sip] port or bind_address") from None
            info = ep.transportGetInfo(tid)
            self.ports[name] = int(str(info.localName).rsplit(":", 1)[-1])
        ep.libStart()
        ep.audDevManager().setNullDev()
        self._codec_priorities(ep)
        log.info("SIP listening on %s %s", sip.bind_address,
                 ", ".join(f"{name} port {port}" for name, port in self.ports.items()))

    def _codec_priorities(self, ep: Any) -> None:
        wanted = list(self.sip.codecs)
        for codec in ep.codecEnum2():
            name = codec.codecId.split("/", 1)[0]
            priority = 255 - wanted.index(name) if name in wanted else 0
            ep.codecSetPriority(codec.codecId, priority)

    def _destroy(self) -> None:
        """libDestroy on the SIP thread, once every pj wrapper the service made is gone (collected here)."""
        if self.ep is None:
            return
        import gc

        self._setup = self._teardown = None
        self.housekeeping = None
        gc.collect()          # pj wrappers in reference cycles die here, on this thread, before libDestroy
        try:
            self.ep.libDestroy()
        except Exception:
            log.exception("libDestroy failed")
        self.ep = None        # the Endpoint wrapper itself, on this thread too
        self._log_writer = None


WHEEL_CALL_SLOTS = 4


def granted_call_slots(asked: int) -> int:
    """How many calls pjsua will hold at once (after libInit): `asked`, cut to the build's PJSUA_MAX_CALLS.
    pjsua2 wraps no getter; the wheel's extension module exports pjsua's `pjsua_call_get_max_count`."""
    import ctypes

    try:
        from pjsua2 import _pjsua2

        return int(ctypes.CDLL(_pjsua2.__file__).pjsua_call_get_max_count())
    except (ImportError, OSError, AttributeError):
        return asked


def quiet_pjlib(level: int) -> bool:
    """Set pjlib's log level before `libCreate` (True when it could be set).

    pjsua2 applies `EpConfig.logConfig` only in `libInit`, but `libCreate` (pj_init, pjsua_create) already logs
    at pjlib's default level 5 ("os_core_unix.c !pjlib 2.15.1 for POSIX initialized", "Creating endpoint
    instance...", to stdout) and pjsua2 wraps no level setter. The wheel's extension module exports pjlib's
    `pj_log_set_level`, a plain global setter that is safe to call before pj_init."""
    import ctypes

    try:
        from pjsua2 import _pjsua2

        ctypes.CDLL(_pjsua2.__file__).pj_log_set_level(ctypes.c_int(max(0, int(level))))
        return True
    except (ImportError, OSError, AttributeError) as exc:   # another build: the lines are printed, nothing worse
        log.debug("cannot set pjlib's log level before libCreate: %s", exc)
        return False


def _clear_frames(exc: BaseException) -> None:
    """Drop the local variables of an exception's frames (pj objects among them), keeping the traceback's lines."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if exc.__traceback__ is not None:
            traceback.clear_frames(exc.__traceback__)
        exc = exc.__cause__ or exc.__context__


def _transport_kind(pj: Any, name: str, bind_address: str) -> int:
    v6 = ":" in bind_address
    return getattr(pj, f"PJSIP_TRANSPORT_{name.upper()}{'6' if v6 else ''}")


def tls_config(pj: Any, tls: Any, sip: SipSettings) -> None:
    """The TLS transport's certificate, key and CA ([sip] tls_*), TLS 1.2 or newer; with tls_verify_peer, a
    peer without a certificate the CA vouches for is refused, both ways (the PBX calling in, and the
    registrar or transfer target the appliance connects to)."""
    for key in ("tls_cert_file", "tls_key_file", "tls_ca_file"):
        path = getattr(sip, key)
        if path is None:
            continue
        try:
            with open(path, "rb"):
                pass
        except OSError as exc:
            raise SipStartError(f"[sip] {key}: {path} cannot be read ({exc.strerror})") from None
    tls.certFile = str(sip.tls_cert_file)
    tls.privKeyFile = str(sip.tls_key_file)
    if sip.tls_ca_file is not None:
        tls.CaListFile = str(sip.tls_ca_file)
    tls.proto = pj.PJ_SSL_SOCK_PROTO_TLS1_2 | pj.PJ_SSL_SOCK_PROTO_TLS1_3
    tls.verifyServer = sip.tls_verify_peer
    tls.verifyClient = sip.tls_verify_peer
    tls.requireClientCert = sip.tls_verify_peer


def _describe(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None) or getattr(exc, "info", None)
    if callable(reason):
        reason = reason()
    return f"the SIP endpoint could not start: {str(reason or exc).strip()}"


def _make_writer_class():
    import pjsua2 as pj

    class Writer(pj.LogWriter):
        """pjsip's own log lines, at warning level or worse, into the journal (no SIP messages: level <= 2)."""

        def write(self, entry):
            # the first line only: pjsip follows some errors with the whole packet, caller's number included
            text = str(entry.msg).strip().split("\n", 1)[0].strip()
            if text:
                (log.error if entry.level <= 1 else log.warning)("pjsip: %s", text)

    return Writer


REFUSAL_HINTS = {
    406: "the call did not come over TLS, which [sip] srtp = \"mandatory\" with TLS requires",
    488: "its audio offer does not meet [sip] srtp or codecs (plain RTP to srtp = \"mandatory\"?)",
    486: "every call slot is in use",
}
SILENT_REFUSALS = (480,)        # invite_screen.py's, logged there, a line per flood rather than per INVITE


def _make_endpoint_class():
    import pjsua2 as pj

    from .peers import host_of

    class Endpoint(pj.Endpoint):
        """pjsua2's Endpoint, screening new requests before pjsua acts on them (`screen`), and telling the
        journal what pjsip refuses on its own (by address only: the INVITE's caller ID is not logged)."""

        screen: Callable[[Any], bool] | None = None
        refused: dict[int, int] | None = None       # refusals by code, so a flood is a line per 100, not each

        def onSelectAccount(self, prm):
            if self.screen is not None and not self.screen(prm.rdata):
                prm.accountIndex = -1           # PJSUA_INVALID_ID: pjsua answers 480 statelessly

        def onRejectedIncomingCall(self, prm):
            code = int(prm.statusCode)
            if code in SILENT_REFUSALS:
                return
            if self.refused is None:
                self.refused = {}
            count = self.refused[code] = self.refused.get(code, 0) + 1
            if count == 1 or count % 100 == 0:
                hint = REFUSAL_HINTS.get(code, str(prm.reason).strip())
                log.warning("refused a call from %s: %d (%s)%s", host_of(str(prm.rdata.srcAddress)), code, hint,
                            f"; {count} refused with {code} so far" if count > 1 else "")

        def onTransportState(self, prm):
            tls = prm.tlsInfo
            if tls.isEmpty() or not tls.verifyStatus:
                return
            problems = "; ".join(str(m) for m in tls.verifyMsgs) or f"status {tls.verifyStatus}"
            log.warning("TLS peer %s: its certificate was not accepted (%s)", host_of(str(tls.remoteAddr)),
                        problems)

    return Endpoint


class _JournalLogWriter:
    def __new__(cls):
        return _make_writer_class()()
