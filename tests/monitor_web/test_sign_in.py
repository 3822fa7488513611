"""Signing in to the browser monitor: wrong passwords refused and rate-limited, sessions that end, nothing served
without a session, and each session's monitor process told whom it acts for.

The web application runs on aiohttp's test server (plain HTTP; TLS is the browser test's), on a clock the test
moves. The monitor process is a small stand-in that speaks textual-serve's packets (the real one is in the
browser test).
"""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
import textwrap

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

from appliance.monitor_web.sign_in_guard import SignInGuard
from appliance.monitor_web.web_server import COOKIE, MonitorWebApp

from .conftest import PASSWORD

STAND_IN = textwrap.dedent("""
    import json, os, sys
    log = open(sys.argv[1], "a")
    log.write("staff=" + os.environ.get("APPLIANCE_WEB_STAFF", "") + "\\n"); log.flush()
    sys.stdout.write("__GANGLION__\\n"); sys.stdout.flush()
    while True:
        head = sys.stdin.buffer.read(5)
        if len(head) < 5:
            break
        payload = sys.stdin.buffer.read(int.from_bytes(head[1:], "big"))
        if head[:1] == b"D":
            log.write("keys=" + payload.decode() + "\\n"); log.flush()
        elif json.loads(payload).get("type") == "quit":
            log.write("quit\\n"); log.flush()
            break
""")


@pytest.fixture
def stand_in(tmp_path):
    script = tmp_path / "stand_in.py"
    script.write_text(STAND_IN)
    log = tmp_path / "stand_in.log"
    return shlex.join([sys.executable, str(script), str(log)]), log


def web(web_settings, accounts, clock, command="true") -> MonitorWebApp:
    return MonitorWebApp(web_settings, accounts, command, clock=clock, session_check_s=0.05)


def run(app: MonitorWebApp, scenario):
    async def main():
        async with TestClient(TestServer(app.application()), cookie_jar=aiohttp.DummyCookieJar()) as client:
            return await scenario(client)
    return asyncio.run(main())


async def sign_in(client, name: str, password: str, **headers):
    response = await client.post("/sign-in", data={"name": name, "password": password}, allow_redirects=False,
                                 headers=headers)
    morsel = response.cookies.get(COOKIE)
    return response, (morsel.value if morsel is not None else None), await response.text()


def with_session(token: str | None) -> dict[str, str]:
    return {"Cookie": f"{COOKIE}={token}"} if token else {}


async def page(client, token: str | None, path: str = "/"):
    return await client.get(path, headers=with_session(token), allow_redirects=False)


def test_without_a_session_only_the_sign_in_form_is_served(web_settings, accounts, clock):
    async def scenario(client):
        home = await page(client, None)
        assert home.status == 303 and home.headers["Location"] == "/sign-in"
        assert (await page(client, "made-up-token")).status == 303
        assert (await page(client, None, "/ws")).status == 401
        form = await page(client, None, "/sign-in")
        assert form.status == 200 and 'name="password"' in await form.text()
        assert form.headers["X-Frame-Options"] == "DENY" and form.headers["Cache-Control"] == "no-store"
        assert (await page(client, None, "/static/js/textual.js")).status == 200
        assert (await page(client, None, "/download/x")).status == 404      # textual-serve's other routes: not served

    run(web(web_settings, accounts, clock), scenario)


def test_a_right_password_starts_a_session_in_a_cookie_the_browser_keeps_to_this_site(web_settings, accounts, clock):
    async def scenario(client):
        response, token, _ = await sign_in(client, "alice", PASSWORD)
        assert response.status == 303 and response.headers["Location"] == "/"
        cookie = response.headers["Set-Cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        home = await page(client, token)
        assert home.status == 200
        text = await home.text()
        assert "signed in as <strong>alice</strong>" in text
        assert 'data-session-websocket-url="wss://' in text and "googleapis" not in text   # no outside fetch
        assert (await page(client, token, "/sign-in")).headers["Location"] == "/"

    run(web(web_settings, accounts, clock), scenario)


def test_a_wrong_password_is_refused_and_repeated_failures_lock_sign_in_for_the_window(web_settings, accounts, clock):
    async def scenario(client):
        for _ in range(web_settings.sign_in_failures):
            response, token, text = await sign_in(client, "alice", "not the password")
            assert response.status == 401 and token is None
            assert "do not match an account" in text
        response, token, text = await sign_in(client, "alice", PASSWORD)     # right, but too late
        assert response.status == 429 and token is None
        assert "Too many failed sign-ins" in text and "5 minutes" in text
        clock.advance(web_settings.sign_in_window_minutes * 60 - 1)
        assert (await sign_in(client, "alice", PASSWORD))[0].status == 429
        clock.advance(1)
        response, token, _ = await sign_in(client, "alice", PASSWORD)
        assert response.status == 303 and token

    run(web(web_settings, accounts, clock), scenario)


def test_guessing_many_names_from_one_address_is_limited_too(web_settings, accounts, clock):
    async def scenario(client):
        for name in ("carol", "dave", "erin"):
            assert (await sign_in(client, name, PASSWORD))[0].status == 401
        assert (await sign_in(client, "bob", PASSWORD + " too"))[0].status == 429

    run(web(web_settings, accounts, clock), scenario)


def test_the_guard_counts_accounts_and_addresses_apart(clock):
    guard = SignInGuard(failures=2, window_s=60, clock=clock)
    guard.failed(account="alice", address="10.0.0.5")
    guard.failed(account="alice", address="10.0.0.6")
    assert guard.wait_s(account="alice", address="10.0.0.7") == 60       # alice, from anywhere
    assert guard.wait_s(account="bob", address="10.0.0.5") == 0          # one failure from .5 so far
    guard.failed(account="bob", address="10.0.0.5")
    assert guard.wait_s(account="carol", address="10.0.0.5") == 60       # .5, for anyone
    clock.advance(30)
    assert guard.wait_s(account="alice", address="10.0.0.7") == 30
    guard.succeeded(account="alice")        # a success clears the account, not the address
    assert guard.wait_s(account="alice", address="10.0.0.7") == 0
    assert guard.wait_s(account="alice", address="10.0.0.5") == 30


def test_a_session_ends_when_idle_too_long(web_settings, accounts, clock):
    async def scenario(client):
        _, token, _ = await sign_in(client, "alice", PASSWORD)
        clock.advance(web_settings.session_idle_minutes * 60 - 1)
        assert (await page(client, token)).status == 200            # a page load counts as being there
        clock.advance(web_settings.session_idle_minutes * 60 - 1)
        assert (await page(client, token)).status == 200
        clock.advance(web_settings.session_idle_minutes * 60)
        home = await page(client, token)
        assert home.status == 303 and home.headers["Location"] == "/sign-in"
        clock.advance(-10_000)
        assert (await page(client, token)).status == 303            # gone for good, not just asleep

    run(web(web_settings, accounts, clock), scenario)


def test_a_session_ends_after_session_hours_however_busy(web_settings, accounts, clock):
    async def scenario(client):
        _, token, _ = await sign_in(client, "alice", PASSWORD)
        for _ in range(int(web_settings.session_hours * 60 / 5) - 1):
            clock.advance(5 * 60)
            assert (await page(client, token)).status == 200
        clock.advance(5 * 60)
        assert (await page(client, token)).status == 303

    run(web(web_settings, accounts, clock), scenario)


def test_signing_out_a_removed_account_or_a_new_password_end_sessions(web_settings, accounts, clock):
    async def scenario(client):
        _, alice, _ = await sign_in(client, "alice", PASSWORD)
        _, bob, _ = await sign_in(client, "bob", PASSWORD + " too")
        _, alice_again, _ = await sign_in(client, "alice", PASSWORD)
        signed_out = await client.post("/sign-out", headers=with_session(alice), allow_redirects=False)
        assert signed_out.status == 303 and signed_out.headers["Location"] == "/sign-in"
        assert (await page(client, alice)).status == 303
        assert (await page(client, alice_again)).status == 200       # her other browser stays signed in
        accounts.set_password("alice", "a brand new passphrase")
        assert (await page(client, alice_again)).status == 303
        assert (await page(client, bob)).status == 200
        accounts.remove("bob")
        assert (await page(client, bob)).status == 303
        assert (await sign_in(client, "bob", PASSWORD + " too"))[0].status == 401

    run(web(web_settings, accounts, clock), scenario)


def test_another_sites_page_cannot_sign_in_sign_out_or_open_the_monitor(web_settings, accounts, clock):
    async def scenario(client):
        elsewhere = {"Origin": "https://evil.example"}
        response, token, _ = await sign_in(client, "alice", PASSWORD, **elsewhere)
        assert response.status == 403 and token is None
        _, token, _ = await sign_in(client, "alice", PASSWORD, Origin=f"http://{client.host}:{client.port}")
        assert token
        assert (await client.post("/sign-out", headers={**with_session(token), **elsewhere})).status == 403
        assert (await client.get("/ws", headers={**with_session(token), **elsewhere})).status == 403
        assert (await page(client, token)).status == 200

    run(web(web_settings, accounts, clock), scenario)


def test_each_session_gets_its_own_monitor_acting_for_its_account_until_the_session_ends(
        web_settings, accounts, clock, stand_in):
    command, log = stand_in

    async def scenario(client):
        _, token, _ = await sign_in(client, "alice", PASSWORD)
        async with client.ws_connect("/ws?width=100&height=30", headers=with_session(token)) as socket:
            async def send(*message: str) -> None:
                await socket.send_str(json.dumps(list(message)))
                await socket.send_str(json.dumps(["ping", "sync"]))     # answered once what came before is done
                assert (await socket.receive_json(timeout=5)) == ["pong", "sync"]

            await send("stdin", "2")
            clock.advance(web_settings.session_idle_minutes * 60 - 1)
            await send("stdin", "d")                                   # a key: she is there
            clock.advance(web_settings.session_idle_minutes * 60 - 1)
            await send("focus")
            clock.advance(2)                          # idle too long: pings and focus are not the person
            closed = await socket.receive(timeout=5)
            assert closed.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            assert socket.close_code == 4001
        assert (await page(client, token)).status == 303
        for _ in range(200):                           # its monitor process is told to quit, and does
            if app.open_monitors == 0:
                break
            await asyncio.sleep(0.05)

    app = web(web_settings, accounts, clock, command)
    run(app, scenario)
    assert log.read_text().splitlines() == ["staff=alice", "keys=2", "keys=d", "quit"]
    assert app.open_monitors == 0
