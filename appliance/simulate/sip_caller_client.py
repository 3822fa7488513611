"""Drive a caller agent process (`appliance/simulate/sip_caller_agent.py`) from asyncio.

    async with CallerAgent(record=Path("call.wav")) as caller:
        await caller.call("sip:receptionist@127.0.0.1:5070", caller_id="+61400000001")
        await caller.until_quiet()                 # the greeting has been spoken
        await caller.say(pcm, 8000)                # returns once the line has been sent
        await caller.hangup()

The same agent answers as the front desk (a second party for warm transfers, listen-in and take-over):

    async with CallerAgent() as desk:
        uri = await desk.desk("answer")            # or "reject" (with code=486), or "ring" (never answered)
        await desk.answered.wait()                 # the appliance called and the desk picked up

Every event the agent reports is also put on `caller.events` (an asyncio.Queue
of dicts), or read with `async for event in caller:`.

Over TLS with SRTP (the URI names the transport; `caller.media` is the agent's "media" event, with
`"srtp": true` when the audio is encrypted):

    tls = CallerTls(ca=Path("ca.crt"), cert=Path("caller.crt"), key=Path("caller.key"))
    async with CallerAgent(transport="tls", tls=tls, srtp="mandatory") as caller:
        await caller.call("sip:receptionist@127.0.0.1:5061;transport=tls")
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("appliance.sip")

START_TIMEOUT_S = 15.0
ANSWER_TIMEOUT_S = 15.0
QUIT_TIMEOUT_S = 8.0


class CallerAgentError(RuntimeError):
    pass


@dataclass(frozen=True)
class CallerTls:
    """The caller's TLS files (PEM): the CA the far end's certificate must chain to, and the caller's own
    certificate and key for a far end that asks for one (all optional)."""
    ca: Path | None = None
    cert: Path | None = None
    key: Path | None = None

    def args(self) -> list[str]:
        pairs = (("--tls-ca", self.ca), ("--tls-cert", self.cert), ("--tls-key", self.key))
        return [part for flag, path in pairs if path is not None for part in (flag, str(path))]


class CallerAgent:
    def __init__(self, *, record: str | Path | None = None, rate: int = 8000, quiet_ms: int | None = None,
                 bind: str = "127.0.0.1", log_level: int = 1, python: str = sys.executable,
                 transport: str = "udp", tls: CallerTls | None = None, srtp: str = "off", sip_port: int = 0):
        self.record = Path(record) if record else None
        self.rate = rate
        self.quiet_ms = quiet_ms
        self.bind = bind
        self.log_level = log_level
        self.python = python
        self.transport = transport
        self.tls = tls
        self.srtp = srtp
        self.sip_port = sip_port                    # 0: any free port
        self.media: dict | None = None              # the "media" event: codec, srtp
        self.port: int | None = None                # the agent's own SIP port
        self.events: asyncio.Queue = asyncio.Queue()
        self.history: list[dict] = []
        self.answered = asyncio.Event()
        self.ended = asyncio.Event()
        self.quiet = asyncio.Event()                # the far end is not talking
        self.quiet.set()
        self.end: dict | None = None                # the "ended" event
        self.transferred_to: str | None = None
        self.speaking = False
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task | None = None
        self._stderr_task: asyncio.Task | None = None
        self._ready: asyncio.Future | None = None
        self._said: dict[int, asyncio.Future] = {}
        self._waiters: list[tuple[Any, asyncio.Future]] = []
        self._ids = itertools.count(1)
        self._tmp = tempfile.TemporaryDirectory(prefix="caller-agent-")
        self.stderr_tail: list[str] = []

    # ------------------------------------------------------------------ process

    async def start(self) -> CallerAgent:
        args = [self.python, "-m", "appliance.simulate.sip_caller_agent", "--rate", str(self.rate),
                "--bind", self.bind, "--log-level", str(self.log_level), "--port", str(self.sip_port)]
        if self.record is not None:
            args += ["--record", str(self.record)]
        if self.quiet_ms is not None:
            args += ["--quiet-ms", str(self.quiet_ms)]
        args += ["--transport", self.transport, "--srtp", self.srtp, *(self.tls.args() if self.tls else [])]
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._process = await asyncio.create_subprocess_exec(
            *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=env)
        self._reader = asyncio.create_task(self._read_events())
        self._stderr_task = asyncio.create_task(self._read_stderr())
        try:
            ready = await asyncio.wait_for(asyncio.shield(self._ready), START_TIMEOUT_S)
        except (asyncio.TimeoutError, CallerAgentError):
            await self.close()
            raise CallerAgentError(f"the caller agent did not start: {' | '.join(self.stderr_tail[-5:])}") from None
        self.port = ready["port"]
        return self

    async def close(self) -> int | None:
        """Quit the agent (hanging up any call) and wait for the process; kills it if it will not go."""
        process = self._process
        if process is None:
            return None
        if process.returncode is None:
            with contextlib.suppress(Exception):
                await self._send({"cmd": "quit"})
                process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), QUIT_TIMEOUT_S)
            except asyncio.TimeoutError:
                log.warning("caller agent %s did not quit; killing it", process.pid)
                process.kill()
                await process.wait()
        for task in (self._reader, self._stderr_task):
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await asyncio.wait_for(task, 2.0)
        self._tmp.cleanup()
        return process.returncode

    async def __aenter__(self) -> CallerAgent:
        return await self.start()

    async def __aexit__(self, *exc) -> None:
        await self.close()

    @property
    def returncode(self) -> int | None:
        return self._process.returncode if self._process else None

    # ------------------------------------------------------------------ commands

    async def call(self, uri: str, caller_id: str = "", *, timeout: float = ANSWER_TIMEOUT_S) -> None:
        """Place the call; returns once it is answered (raises CallerAgentError if it ends or times out first)."""
        self.answered.clear()
        self.ended.clear()
        self.end = None
        await self._send({"cmd": "call", "uri": uri, "caller_id": caller_id})
        answered = asyncio.create_task(self.answered.wait())
        ended = asyncio.create_task(self.ended.wait())
        try:
            done, _ = await asyncio.wait({answered, ended}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            answered.cancel()
            ended.cancel()
        if not self.answered.is_set():
            reason = self.end or "no answer in time"
            raise CallerAgentError(f"call to {uri} not answered: {reason}")

    async def desk(self, answer: str = "answer", *, code: int = 486, user: str = "desk") -> str:
        """Be the front desk from now on: calls that come in are answered (`answer`), refused with `code`
        ("reject"), or left ringing ("ring"). Returns the URI to call the desk at."""
        self.answered.clear()
        self.ended.clear()
        self.end = None
        ready = asyncio.create_task(self.wait_for_event(lambda e: e["event"] == "desk_ready", timeout=10))
        await asyncio.sleep(0)
        await self._send({"cmd": "desk", "answer": answer, "code": code, "user": user})
        return (await ready)["uri"]

    async def say(self, pcm: bytes | str | Path, rate: int | None = None, *, wait: bool = True) -> dict | None:
        """Speak 16-bit mono PCM (bytes or a raw file) into the call; waits for the "said" event unless wait=False."""
        line_id = next(self._ids)
        if isinstance(pcm, (bytes, bytearray)):
            path = Path(self._tmp.name) / f"line-{line_id}.raw"
            path.write_bytes(bytes(pcm))
        else:
            path = Path(pcm)
        done = asyncio.get_running_loop().create_future()
        self._said[line_id] = done
        await self._send({"cmd": "say", "pcm": str(path), "rate": rate or self.rate, "id": line_id})
        if not wait:
            return None
        return await done

    async def background(self, pcm: bytes, rate: int | None = None) -> None:
        """What the phone sends, looped, while the caller says nothing (the room's noise) instead of silence."""
        path = Path(self._tmp.name) / "background.raw"
        path.write_bytes(bytes(pcm))
        await self._send({"cmd": "background", "pcm": str(path), "rate": rate or self.rate})

    async def dtmf(self, digits: str) -> None:
        await self._send({"cmd": "dtmf", "digits": digits})

    async def hangup(self, *, timeout: float = 5.0) -> dict | None:
        if self.ended.is_set():
            return self.end
        await self._send({"cmd": "hangup"})
        return await self.wait_ended(timeout)

    async def wait_ended(self, timeout: float | None = None) -> dict | None:
        await asyncio.wait_for(self.ended.wait(), timeout)
        return self.end

    async def until_quiet(self, *, timeout: float | None = None) -> None:
        """Wait until the far end is not talking (returns at once when it is not)."""
        await asyncio.wait_for(self.quiet.wait(), timeout)

    async def until_speaking(self, *, timeout: float | None = None) -> None:
        """Wait until the far end is talking (returns at once when it is)."""
        if not self.speaking:
            await self.wait_for_event(lambda e: e["event"] == "audio" and e.get("speaking"), timeout=timeout)

    async def wait_for_event(self, match, *, timeout: float | None = None) -> dict:
        """The next event (from now on) for which `match(event)` is true."""
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append((match, waiter))
        try:
            return await asyncio.wait_for(waiter, timeout)
        finally:
            if (match, waiter) in self._waiters:
                self._waiters.remove((match, waiter))

    def __aiter__(self):
        return self

    async def __anext__(self) -> dict:
        event = await self.events.get()
        if event.get("event") == "closed":
            raise StopAsyncIteration
        return event

    # ------------------------------------------------------------------ plumbing

    async def _send(self, command: dict) -> None:
        process = self._process
        if process is None or process.returncode is not None:
            raise CallerAgentError("the caller agent is not running")
        process.stdin.write((json.dumps(command) + "\n").encode())
        await process.stdin.drain()

    async def _read_events(self) -> None:
        try:
            async for raw in self._process.stdout:
                try:
                    event = json.loads(raw)
                except json.JSONDecodeError:
                    log.debug("caller agent said: %s", raw.decode(errors="replace").rstrip())
                    continue
                self._note(event)
        finally:
            for future in [*self._said.values(), *(waiter for _, waiter in self._waiters)]:
                if not future.done():
                    future.set_exception(CallerAgentError("the caller agent exited"))
            if self._ready is not None and not self._ready.done():
                self._ready.set_exception(CallerAgentError("the caller agent exited before it was ready"))
            self.ended.set()
            self.quiet.set()
            self.events.put_nowait({"event": "closed"})

    def _note(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        self.history.append(event)
        if kind == "ready" and self._ready is not None and not self._ready.done():
            self._ready.set_result(event)
        elif kind == "answered":
            self.answered.set()
        elif kind == "media":
            self.media = event
        elif kind == "ended":
            self.end = event
            self.speaking = False
            self.quiet.set()
            self.ended.set()
        elif kind == "audio":
            self.speaking = bool(event.get("speaking"))
            (self.quiet.clear if self.speaking else self.quiet.set)()
        elif kind == "transferred":
            self.transferred_to = event.get("to")
        elif kind == "said":
            future = self._said.pop(event.get("id"), None)
            if future is not None and not future.done():
                future.set_result(event)
        elif kind == "error":
            log.warning("caller agent: %s", event.get("message"))
        for match, waiter in list(self._waiters):
            if not waiter.done() and match(event):
                waiter.set_result(event)
        self.events.put_nowait(event)

    async def _read_stderr(self) -> None:
        async for raw in self._process.stderr:
            line = raw.decode(errors="replace").rstrip()
            if line:
                self.stderr_tail = (self.stderr_tail + [line])[-50:]
                log.debug("caller agent: %s", line)
