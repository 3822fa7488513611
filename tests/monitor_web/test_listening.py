"""The browser monitor listens on the configured addresses only, over TLS only, and says plainly when it cannot."""

from __future__ import annotations

import asyncio
import socket
import ssl

import pytest
from aiohttp import web

from appliance.monitor_web.web_server import WebServerError, start_listening, tls_context
from certificates import TestCa


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def test_only_the_listed_address_answers_and_only_with_tls(tmp_path):
    issued = TestCa(tmp_path).issue("monitor-web")
    port = free_port()

    async def scenario():
        async def hello(request: web.Request) -> web.Response:
            return web.Response(text="hello")

        app = web.Application()
        app.add_routes([web.get("/", hello)])
        runner = await start_listening(app, [("127.0.0.1", port)], tls_context(issued.cert, issued.key))
        try:
            loop = asyncio.get_running_loop()
            elsewhere = await loop.run_in_executor(None, reachable, "127.0.0.2", port)   # another local address
            here = await loop.run_in_executor(None, reachable, "127.0.0.1", port)
            plain = await loop.run_in_executor(None, plain_http, port)
            return elsewhere, here, plain
        finally:
            await runner.cleanup()

    elsewhere, here, plain = asyncio.run(scenario())
    assert here and not elsewhere
    assert not plain.startswith(b"HTTP/1.1 200")           # no page without TLS


def plain_http(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=2) as raw:
        raw.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        try:
            return raw.recv(100)
        except OSError:
            return b""


def test_an_address_that_is_not_this_machines_is_named(tmp_path):
    issued = TestCa(tmp_path).issue("monitor-web")

    async def scenario():
        await start_listening(web.Application(), [("192.0.2.1", 8443)], tls_context(issued.cert, issued.key))

    with pytest.raises(WebServerError, match=r"\[monitor_web\] listen 192.0.2.1:8443: cannot listen there"):
        asyncio.run(scenario())


def test_missing_or_mismatched_certificate_files_are_named_with_the_fix(tmp_path):
    ca = TestCa(tmp_path)
    one, other = ca.issue("one"), ca.issue("other")
    with pytest.raises(WebServerError, match=r"certificate .*missing.crt: no such file .*--monitor-web"):
        tls_context(tmp_path / "missing.crt", one.key)
    with pytest.raises(WebServerError, match="cannot be used together"):
        tls_context(one.cert, other.key)
    context = tls_context(one.cert, one.key)
    assert context.minimum_version == ssl.TLSVersion.TLSv1_2
