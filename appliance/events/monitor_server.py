"""The local Unix socket the monitors connect to.

It runs its own asyncio loop on a daemon thread, so publishing from a call
(any thread, any loop) only touches the bus. Each monitor gets a hello, the
replay of the calls in progress, `replay_done`, then live events as they are
published. A monitor that stops reading is dropped by the bus once its queue
is full; one that dies is noticed on its next write or read. Neither is ever
waited for by a call.

Staff commands come back on the same connection. The server replaces the
claimed user with the OS user of the connecting process (SO_PEERCRED) when it
can, hands the command to the registered handler on a single command thread,
records it with who did it, and answers with a `command_result`. A command that
names a staff account (`staff`: the browser monitor's signed-in person) acts as
that account only when it comes from the service's own user, which the web
monitor runs as; from anyone else it is refused, and recorded as refused.

Only the front desk may connect (`socket_file.peer_allowed`: root, the
service's user, or a member of `appliance-staff`): anyone else is told so in
one `refused` message and disconnected before any call data is sent.

With [monitor] listen the same monitor protocol is also served over TLS on a
TCP address, for monitors on other machines (monitor_tls.py): the TLS handshake
itself refuses a monitor without a certificate the configured CA signed. A
staff action from there is recorded as the certificate's name (the desk), with
the OS user that monitor named as the claimed user, `via = "remote"`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import logging
import ssl
import threading
import uuid
from pathlib import Path
from typing import Any

from .event_bus import EventBus, Subscription
from .messages import PROTOCOL, BadMessage, CommandResult, StaffCommand, read_line, wire_line
from .socket_file import STAFF_GROUP, BoundSocket, bind_private_socket, peer_allowed, peer_may_name_staff, peer_user
from .monitor_tls import certificate_name
from .staff_action_log import VIA_REMOTE, VIA_SERVICE, VIA_WEB, StaffActionLog
from .staff_commands import CommandHandler

log = logging.getLogger("appliance.events")

_MAX_LINE = 64 * 1024


class MonitorServer:
    def __init__(self, bus: EventBus, path: str | Path, *, handler: CommandHandler | None = None,
                 action_log: StaffActionLog | None = None, database: str | Path | None = None,
                 group: str | None = STAFF_GROUP, tls: tuple[str, int, ssl.SSLContext] | None = None):
        """`tls`: (host, port, server context) to serve remote monitors on too; port 0 picks a free one, which
        `tls_address` says once started."""
        self.bus = bus
        self.tls = tls
        self.tls_address: tuple[str, int] | None = None
        self.path = Path(path)
        self.handler = handler
        self.action_log = action_log
        self.database = str(database) if database is not None else None
        self.group = group
        self.server_id = uuid.uuid4().hex[:12]
        self._bound: BoundSocket | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping: asyncio.Event | None = None
        self._started = threading.Event()
        self._commands = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="monitor-commands")
        self.clients = 0

    # ------------------------------------------------------------ life

    def start(self) -> "MonitorServer":
        """Bind the socket (raises MonitorSocketError naming the path) and serve on a daemon thread."""
        self._bound = bind_private_socket(self.path, group=self.group)
        self._thread = threading.Thread(target=self._run, name="monitor-socket", daemon=True)
        self._thread.start()
        self._started.wait(5)
        return self

    def set_command_handler(self, handler: CommandHandler | None) -> None:
        self.handler = handler

    def close(self) -> None:
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None:
            try:
                loop.call_soon_threadsafe(stopping.set)
            except RuntimeError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=3)
            self._thread = None
        if self._bound is not None:
            self._bound.remove()
            self._bound = None
        self._commands.shutdown(wait=False, cancel_futures=True)
        if self.action_log is not None:
            self.action_log.close()

    def __enter__(self) -> "MonitorServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except Exception:
            log.exception("monitor socket server stopped")
        finally:
            self._started.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        tasks: set[asyncio.Task] = set()

        async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            tasks.add(task)
            try:
                await self._client(reader, writer)
            finally:
                tasks.discard(task)

        server = await asyncio.start_unix_server(on_client, sock=self._bound.sock, limit=_MAX_LINE)
        remote = None
        if self.tls is not None:
            host, port, context = self.tls
            try:
                remote = await asyncio.start_server(on_client, host, port, ssl=context, limit=_MAX_LINE,
                                                    ssl_handshake_timeout=10)
                self.tls_address = remote.sockets[0].getsockname()[:2]
            except OSError as exc:
                log.error("monitor over TLS: cannot listen on %s:%s ([monitor] listen): %s", host, port,
                          exc.strerror or exc)
        self._started.set()
        async with server:
            await self._stopping.wait()
            server.close()
            if remote is not None:
                remote.close()
            for task in list(tasks):
                task.cancel()
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)

    # ------------------------------------------------------------ one monitor

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        ready = asyncio.Event()
        sock = writer.get_extra_info("socket")
        if writer.get_extra_info("ssl_object") is not None:
            # the handshake checked the certificate against client_ca (CERT_REQUIRED): the desk is its name
            desk = certificate_name(writer.get_extra_info("peercert")) or "unnamed certificate"
            log.info("monitor over TLS: %s connected from %s", desk, writer.get_extra_info("peername"))
            verified_user, may_name_staff, remote = desk, False, True
        elif not peer_allowed(sock, self.group):
            log.warning("monitor socket: refused a process of user %s (not in group %s)", peer_user(sock) or "?",
                        self.group)
            try:
                writer.write(wire_line({"type": "refused", "message": f"only members of {self.group} may watch "
                                                                      "calls and act on them"}))
                await writer.drain()
            finally:
                writer.close()
            return
        else:
            verified_user, may_name_staff, remote = peer_user(sock), peer_may_name_staff(sock), False
        holder: dict[str, Subscription] = {}

        def on_loop() -> None:
            subscription = holder.get("sub")
            if subscription is not None and subscription.overflowed:
                writer.transport.abort()    # it stopped reading: drop it, never wait for it
            ready.set()

        def wake() -> None:
            loop.call_soon_threadsafe(on_loop)

        subscription = holder["sub"] = self.bus.subscribe(wake)
        self.clients += 1
        commands = asyncio.create_task(self._read_commands(reader, writer, verified_user, may_name_staff, remote))
        try:
            replay = subscription.replay
            writer.write(wire_line({"type": "hello", "protocol": PROTOCOL, "server": self.server_id,
                                    "database": None if remote else self.database, "replay": len(replay)}))
            for event in replay:
                writer.write(wire_line(event.to_wire()))
            writer.write(wire_line({"type": "replay_done", "seq": replay[-1].seq if replay else 0}))
            await writer.drain()
            while not commands.done():
                waiting = asyncio.create_task(ready.wait())
                await asyncio.wait({waiting, commands}, return_when=asyncio.FIRST_COMPLETED)
                waiting.cancel()
                ready.clear()
                if subscription.overflowed or subscription.closed:
                    break
                events = subscription.drain()
                if events:
                    writer.write(b"".join(wire_line(event.to_wire()) for event in events))
                    await writer.drain()
        except (ConnectionError, BrokenPipeError, asyncio.IncompleteReadError):
            pass
        finally:
            subscription.close()
            self.clients -= 1
            commands.cancel()
            try:
                writer.close()
            except Exception:
                pass

    async def _read_commands(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                             verified_user: str | None, may_name_staff: bool = False, remote: bool = False) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                line = await reader.readline()
            except (ConnectionError, ValueError):   # ValueError: a line longer than the limit
                return
            if not line:
                return
            try:
                message = read_line(line)
                if message["type"] != "command":
                    continue
                command = StaffCommand.from_wire(message)
            except BadMessage as exc:
                writer.write(wire_line(CommandResult(False, f"not done: {exc}", str(_safe_id(line))).to_wire()))
                continue
            result = await loop.run_in_executor(self._commands, self._perform, command, verified_user, may_name_staff,
                                                remote)
            try:
                writer.write(wire_line(result.to_wire()))
                await writer.drain()
            except ConnectionError:
                return

    def _perform(self, command: StaffCommand, verified_user: str | None, may_name_staff: bool = False,
                 remote: bool = False) -> CommandResult:
        """On the command thread: run the handler as the verified user (or the staff account the web monitor
        names; over TLS, the desk's certificate), record what happened."""
        os_user = verified_user or command.user or "unknown"
        user, via, claimed = os_user, VIA_REMOTE if remote else VIA_SERVICE, None
        if command.staff and may_name_staff:
            user, via, claimed = command.staff, VIA_WEB, os_user
        acting = dataclasses.replace(command, user=user)
        handler = self.handler
        if command.staff and not may_name_staff:
            log.warning("monitor socket: user %s named a staff account; only the web monitor may", os_user)
            result = CommandResult(False, "only the browser monitor may act for a signed-in staff account: "
                                          "nothing was done", command.id)
            claimed = command.staff
        elif handler is None:
            result = CommandResult(False, "the service is not taking staff actions right now", command.id)
        else:
            try:
                result = handler(acting)
                result = dataclasses.replace(result, id=command.id)
            except Exception as exc:
                log.exception("staff action %s failed", command.action)
                result = CommandResult(False, f"{command.describe()} failed: {type(exc).__name__}", command.id)
        if self.action_log is not None:
            try:
                self.action_log.record(command, result, user=user, via=via, claimed_user=claimed)
            except Exception as exc:
                log.error("staff action %s not recorded: %s", command.action, exc)
                result = dataclasses.replace(result, message=result.message + " (not recorded: " + str(exc) + ")")
        return result


def _safe_id(line: bytes) -> str:
    try:
        message = read_line(line)
        return str(message.get("id") or "")
    except BadMessage:
        return ""
