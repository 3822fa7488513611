"""`appliance monitor --serve`: the monitor in a browser, behind a sign-in, over HTTPS.

textual-serve runs the monitor (the same Textual app as `appliance monitor`) as one process per browser
session and carries its screen over a websocket; this aiohttp application puts a sign-in in front of it:

    GET  /sign-in, POST /sign-in   the form; a right name and password start a session (a cookie)
    POST /sign-out                 ends it
    GET  /                         the monitor page (textual-serve's terminal), for a signed-in session
    GET  /ws                       the session's monitor process (`session_app.py`, acting as that account)
    GET  /static/...               textual-serve's script and styles

Nothing else is served. A session ends as `web_sessions.py` says (idle, too long, signed out, account removed
or password changed); its websocket is then closed (code 4001, within `session_check_s`) and its monitor process
told to quit. Failed sign-ins are
limited per account and per address (`sign_in_guard.py`). Requests that come from another site (an `Origin`
that is not this server) are refused, and the cookie is never sent cross-site (SameSite=Strict).
"""

from __future__ import annotations

import asyncio
import logging
import shlex
import ssl
import sys
import time
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

import jinja2
import textual_serve
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from ..settings import MonitorWebSettings
from .session_app import STAFF_ENV
from .sign_in_guard import SignInGuard
from .staff_accounts import AccountError, StaffAccounts
from .web_sessions import WebSession, WebSessions

log = logging.getLogger("appliance.monitor_web")

COOKIE = "appliance_monitor"
SESSION = web.RequestKey("session", WebSession)
TITLE = "Front desk monitor"
STATIC = Path(textual_serve.__file__).parent / "static"
TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader("appliance.monitor_web", "templates"),
                               autoescape=True)
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",     # no-referrer would make the browser send "Origin: null" on our own forms
    "Strict-Transport-Security": "max-age=31536000",
}
SESSION_CHECK_S = 1.0     # how often an open monitor looks whether its session has ended
QUIT_WAIT_S = 5.0         # how long a monitor process has to quit when its session ends


class WebServerError(RuntimeError):
    """The browser monitor cannot start; the message names the setting or file and the fix."""


def session_command(*, db_path: Path | None, db_given: bool, socket_path: Path, flow_file: Path | None) -> str:
    """The shell command textual-serve starts for each session (the staff account goes in its environment).
    `db_path` None: the shared PostgreSQL store the settings name (its address never on a command line)."""
    where = ["--db", str(db_path)] if db_path is not None else ["--shared-store"]
    parts = [sys.executable, "-m", "appliance.monitor_web.session_app", *where, "--socket", str(socket_path)]
    if db_given:
        parts.append("--db-given")
    if flow_file is not None:
        parts += ["--flow", str(flow_file)]
    return shlex.join(parts)


class _SessionAppService(AppService):
    """textual-serve's process for one session, told which staff account it acts for."""

    def __init__(self, *args, staff: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.staff = staff

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width=width, height=height)
        environment[STAFF_ENV] = self.staff
        return environment

    async def stop(self) -> None:
        """Tell the monitor to quit, and see that it did (textual-serve does not wait for the process)."""
        await super().stop()
        process = self._process
        if process is None or process.returncode is not None:
            return
        try:
            await asyncio.wait_for(process.wait(), QUIT_WAIT_S)
        except asyncio.TimeoutError:
            log.warning("monitor web: %s's monitor process did not quit; killing it", self.staff)
            process.kill()
            await process.wait()


class MonitorWebApp:
    def __init__(self, settings: MonitorWebSettings, accounts: StaffAccounts, command: str, *,
                 clock: Callable[[], float] = time.monotonic, session_check_s: float = SESSION_CHECK_S):
        self.settings = settings
        self.accounts = accounts
        self.command = command
        self.sessions = WebSessions(accounts, idle_s=settings.session_idle_minutes * 60,
                                    max_s=settings.session_hours * 3600, clock=clock)
        self.guard = SignInGuard(failures=settings.sign_in_failures,
                                 window_s=settings.sign_in_window_minutes * 60, clock=clock)
        self.session_check_s = session_check_s
        self.downloads = DownloadManager()
        self.open_monitors = 0
        # one sign-in checked at a time: many at once must not all slip past the failure count before it grows
        self._checking = asyncio.Lock()

    def application(self) -> web.Application:
        app = web.Application(middlewares=[self._headers, self._same_origin, self._signed_in])
        app.add_routes([
            web.get("/sign-in", self.sign_in_form),
            web.post("/sign-in", self.sign_in),
            web.post("/sign-out", self.sign_out),
            web.get("/", self.monitor_page),
            web.get("/ws", self.monitor_socket),
            web.static("/static", STATIC),
        ])
        return app

    # ------------------------------------------------------------ middleware

    @web.middleware
    async def _headers(self, request: web.Request, handler) -> web.StreamResponse:
        try:
            response = await handler(request)
        except web.HTTPException as exc:
            response = exc
            for name, value in SECURITY_HEADERS.items():
                response.headers.setdefault(name, value)
            raise
        if not response.prepared:
            for name, value in SECURITY_HEADERS.items():
                response.headers.setdefault(name, value)
        return response

    @web.middleware
    async def _same_origin(self, request: web.Request, handler) -> web.StreamResponse:
        """A form post or a websocket from another site's page is refused (the browser always says where from)."""
        if request.method == "POST" or request.path == "/ws":
            origin = request.headers.get("Origin")
            if origin is not None and urlsplit(origin).netloc != request.host:
                log.warning("monitor web: refused a %s %s from another site (%s)", request.method, request.path,
                            origin[:100])
                raise web.HTTPForbidden(text="refused: this request came from another site's page")
        return await handler(request)

    @web.middleware
    async def _signed_in(self, request: web.Request, handler) -> web.StreamResponse:
        if request.path in ("/", "/ws"):
            session = self.sessions.find(request.cookies.get(COOKIE))
            if session is None:
                if request.path == "/ws":
                    raise web.HTTPUnauthorized(text="sign in first")
                raise web.HTTPSeeOther("/sign-in")
            request[SESSION] = session
        return await handler(request)

    # ------------------------------------------------------------ signing in and out

    def _form(self, *, message: str = "", name: str = "", status: int = 200) -> web.Response:
        html = TEMPLATES.get_template("sign_in.html").render(title=TITLE, message=message, name=name)
        return web.Response(text=html, content_type="text/html", status=status)

    async def sign_in_form(self, request: web.Request) -> web.Response:
        if self.sessions.find(request.cookies.get(COOKIE)) is not None:
            raise web.HTTPSeeOther("/")
        return self._form()

    async def sign_in(self, request: web.Request) -> web.Response:
        form = await request.post()
        name = str(form.get("name") or "").strip().lower()[:64]
        password = str(form.get("password") or "")
        address = request.remote or "?"
        async with self._checking:
            return await self._check_sign_in(name, password, address)

    async def _check_sign_in(self, name: str, password: str, address: str) -> web.Response:
        wait = self.guard.wait_s(account=name, address=address)
        if wait > 0:
            log.warning("monitor web: sign-in for %r from %s refused: too many failures (%.0f s to wait)",
                        name, address, wait)
            minutes = max(1, round(wait / 60))
            return self._form(status=429, name=name, message=(
                "Too many failed sign-ins for this account or from this computer. "
                f"Try again in {minutes} minute{'s' if minutes != 1 else ''}, or ask the IT admin."))
        try:
            account = await asyncio.get_running_loop().run_in_executor(None, self.accounts.check, name, password)
        except AccountError as exc:
            log.error("monitor web: %s", exc)
            return self._form(status=503, name=name, message="The staff accounts cannot be read: ask the IT admin.")
        if account is None:
            self.guard.failed(account=name, address=address)
            log.warning("monitor web: failed sign-in for %r from %s", name, address)
            return self._form(status=401, name=name, message="That name and password do not match an account.")
        self.guard.succeeded(account=name)
        session = self.sessions.start(account.name)
        log.info("monitor web: %s signed in from %s", account.name, address)
        response = web.Response(status=303, headers={"Location": "/"})
        response.set_cookie(COOKIE, session.token, secure=True, httponly=True, samesite="Strict", path="/")
        return response

    async def sign_out(self, request: web.Request) -> web.Response:
        session = self.sessions.find(request.cookies.get(COOKIE))
        if session is not None:
            log.info("monitor web: %s signed out", session.staff)
        self.sessions.end(request.cookies.get(COOKIE))
        response = web.Response(status=303, headers={"Location": "/sign-in"})
        response.del_cookie(COOKIE, path="/")
        return response

    # ------------------------------------------------------------ the monitor

    async def monitor_page(self, request: web.Request) -> web.Response:
        session = request[SESSION]
        self.sessions.touch(session)
        font_size = request.query.get("fontsize", "16")
        html = TEMPLATES.get_template("monitor.html").render(
            title=TITLE, staff=session.staff, websocket_url=f"wss://{request.host}/ws",
            font_size=int(font_size) if font_size.isdigit() and 8 <= int(font_size) <= 40 else 16)
        return web.Response(text=html, content_type="text/html")

    async def monitor_socket(self, request: web.Request) -> web.WebSocketResponse:
        """The session's monitor process, its screen to the browser and the person's keys to it."""
        session = request[SESSION]
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        service = _SessionAppService(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                                     close=websocket.close, download_manager=self.downloads, staff=session.staff)
        self.open_monitors += 1
        try:
            await service.start(_size(request, "width", 80), _size(request, "height", 24))
            while True:
                try:
                    message = await websocket.receive(timeout=self.session_check_s)
                except asyncio.TimeoutError:
                    message = None
                why = self.sessions.ended(session)
                if why:
                    log.info("monitor web: %s's session ended: %s", session.staff, why)
                    self.sessions.end(session.token)
                    await websocket.close(code=4001, message=why.encode("utf-8")[:120])
                    break
                if message is None:
                    continue
                if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                    break
                if message.type != WSMsgType.TEXT:
                    continue
                envelope = message.json()
                kind = envelope[0] if isinstance(envelope, list) and envelope else None
                if kind == "stdin":
                    self.sessions.touch(session)      # a key or a click: the person is there
                    await service.send_bytes(str(envelope[1]).encode("utf-8"))
                elif kind == "resize":
                    await service.set_terminal_size(int(envelope[1]["width"]), int(envelope[1]["height"]))
                elif kind == "ping":
                    await websocket.send_json(["pong", envelope[1]])
                elif kind == "blur":
                    await service.blur()
                elif kind == "focus":
                    await service.focus()
        finally:
            self.open_monitors -= 1
            await service.stop()
        return websocket


def _size(request: web.Request, name: str, default: int) -> int:
    value = request.query.get(name, "")
    return int(value) if value.isdigit() and 10 <= int(value) <= 1000 else default


def tls_context(certificate: Path, key: Path) -> ssl.SSLContext:
    """The server's TLS (1.2 or later) from PEM files; WebServerError naming the file and the fix."""
    for what, path in (("certificate", certificate), ("key", key)):
        if not path.is_file():
            raise WebServerError(f"[monitor_web] {what} {path}: no such file (sudo installer/install.sh "
                                 "--monitor-web makes a self-signed one; or set certificate and key)")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(certificate, key)
    except PermissionError:
        raise WebServerError(f"[monitor_web] key {key}: cannot be read by this user (it belongs to the appliance "
                             "user: run as it, e.g. the appliance-monitor-web service)") from None
    except (ssl.SSLError, OSError) as exc:
        raise WebServerError(f"[monitor_web] certificate {certificate} and key {key} cannot be used together: "
                             f"{exc}") from None
    return context


async def start_listening(app: web.Application, addresses: list[tuple[str, int]],
                          context: ssl.SSLContext) -> web.AppRunner:
    """Listen on exactly these addresses (WebServerError naming the one that cannot be used)."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    for host, port in addresses:
        site = web.TCPSite(runner, host, port, ssl_context=context, reuse_address=True)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise WebServerError(f"[monitor_web] listen {_address(host, port)}: cannot listen there: "
                                 f"{exc.strerror or exc} (is it an address of this machine, and the port free?)") from None
    return runner


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def serve(settings: MonitorWebSettings, *, accounts: StaffAccounts, certificate: Path, key: Path, command: str,
          ready: Callable[[list[str]], None] | None = None) -> None:
    """Serve until SIGTERM or Ctrl-C."""
    import signal

    context = tls_context(certificate, key)
    try:
        if not accounts.accounts():
            log.warning("monitor web: no staff accounts in %s yet: add one with `appliance staff add NAME`",
                        accounts.path)
    except AccountError as exc:
        raise WebServerError(str(exc)) from None
    monitor = MonitorWebApp(settings, accounts, command)

    async def run() -> None:
        runner = await start_listening(monitor.application(), settings.addresses, context)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, stop.set)
        urls = [f"https://{_address(host, port)}/" for host, port in settings.addresses]
        if ready is not None:
            ready(urls)
        try:
            await stop.wait()
        finally:
            await runner.cleanup()

    asyncio.run(run())
