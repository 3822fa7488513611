"""The monitor's end of the socket: hello, replay, live events; staff commands and their results.

    client = await MonitorClient.connect(path)       # raises OSError when nothing serves there
    client = await MonitorClient.connect_tls(host, port, context)   # a service on another machine (monitor_tls.py)
    await client.run(on_message)                     # until the service goes away
    result = await client.send(command)              # from another task, while run() reads
"""

from __future__ import annotations

import asyncio
import getpass
import itertools
import ssl
from pathlib import Path
from typing import Any, Awaitable, Callable

from .messages import BadMessage, CallEvent, CommandResult, StaffCommand, read_line, wire_line

_MAX_LINE = 4 * 1024 * 1024
_ids = itertools.count(1)


def os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:
        return "unknown"


class MonitorClient:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer
        self.hello: dict[str, Any] = {}
        self._pending: dict[str, asyncio.Future] = {}
        self.closed = False

    @classmethod
    async def connect(cls, path: str | Path, *, timeout: float = 2.0) -> "MonitorClient":
        reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(str(path), limit=_MAX_LINE), timeout)
        return cls(reader, writer)

    @classmethod
    async def connect_tls(cls, host: str, port: int, context: ssl.SSLContext, *,
                          timeout: float = 5.0) -> "MonitorClient":
        """Over TLS, showing this desk's certificate; raises OSError (ssl.SSLError too) when refused."""
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, ssl=context, limit=_MAX_LINE, ssl_handshake_timeout=timeout), timeout)
        return cls(reader, writer)

    async def run(self, on_message: Callable[[str, Any], Awaitable[None] | None]) -> None:
        """Read until the server closes: on_message("hello", dict), ("event", CallEvent), ("replay_done", dict)."""
        try:
            while True:
                line = await self.reader.readline()
                if not line:
                    return
                try:
                    message = read_line(line)
                    kind = message["type"]
                    if kind == "command_result":
                        result = CommandResult.from_wire(message)
                        future = self._pending.pop(result.id, None)
                        if future is not None and not future.done():
                            future.set_result(result)
                        continue
                    payload: Any = CallEvent.from_wire(message) if kind == "event" else message
                    if kind == "hello":
                        self.hello = message
                except BadMessage:
                    continue
                outcome = on_message(kind, payload)
                if asyncio.iscoroutine(outcome):
                    await outcome
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            return
        finally:
            self.closed = True
            for future in self._pending.values():
                if not future.done():
                    future.set_result(CommandResult(False, "the service went away before answering"))
            self._pending.clear()

    async def send(self, command: StaffCommand, *, timeout: float = 10.0) -> CommandResult:
        """Send a staff command and wait for the service's answer (run() must be reading)."""
        if self.closed:
            return CommandResult(False, "not connected to the service", command.id)
        command_id = command.id or f"c{next(_ids)}"
        wire = command.to_wire()
        wire["id"] = command_id
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self._pending[command_id] = future
        try:
            self.writer.write(wire_line(wire))
            await self.writer.drain()
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            return CommandResult(False, f"the service did not answer within {timeout:.0f} s", command_id)
        except ConnectionError:
            return CommandResult(False, "the connection to the service was lost", command_id)
        finally:
            self._pending.pop(command_id, None)

    async def close(self) -> None:
        self.closed = True
        try:
            self.writer.close()
            await self.writer.wait_closed()
        except Exception:
            pass
