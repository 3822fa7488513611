"""The SIP service's pure parts: peer filter, keypad words, password file, sd_notify, URIs (no pjsua2, no models)."""

from __future__ import annotations

import asyncio
import os
import socket

import pytest

from appliance.sip.account import SipConfigError, read_password
from appliance.sip.keypad import FRONT_DESK, KeypadCollector, keys_to_words
from appliance.sip.peers import PeerFilter
from appliance.sip.phone_call import caller_number, transfer_uri
from appliance.sip.systemd_notify import notify, watchdog_interval


def test_peer_filter():
    peers = PeerFilter(("127.0.0.1/32", "10.0.0.0/24", "::1"))
    assert peers.allows("127.0.0.1:5060")
    assert peers.allows("10.0.0.77:5080")
    assert peers.allows("[::1]:5060")
    assert not peers.allows("127.0.0.2:5060")
    assert not peers.allows("garbage")


def test_keypad_words():
    assert keys_to_words("0", "date") == FRONT_DESK == "keypad 0"
    assert keys_to_words("03121984", "date") == "03 12 1984"
    assert keys_to_words("0412345678", "number") == "0412345678"
    assert keys_to_words("2", "words") == "2"


def test_keypad_collects_until_hash():
    sent = []

    async def run():
        async def send(text):
            sent.append(text)

        pad = KeypadCollector(send, lambda: "date")
        for key in "0312*03121984#":
            pad.press(key)
        await asyncio.sleep(0.01)
        pad.close()

    asyncio.run(run())
    assert sent == ["03 12 1984"]


def test_password_file_must_be_private(tmp_path):
    path = tmp_path / "sip-password"
    with pytest.raises(SipConfigError, match="does not exist"):
        read_password(path)
    path.write_text("s3cret\n")
    path.chmod(0o640)
    with pytest.raises(SipConfigError, match="chmod 600"):
        read_password(path)
    path.chmod(0o600)
    assert read_password(path) == "s3cret"


def test_caller_number_and_transfer_target():
    assert caller_number('"Ann" <sip:+61412345678@pbx>;tag=1') == "+61412345678"
    assert caller_number("<sip:anonymous@anonymous.invalid>") == ""
    assert transfer_uri("", "+61 2 5550 4101", "10.0.0.5:5060") == "sip:+61255504101@10.0.0.5:5060"
    assert transfer_uri("100@pbx", "+61255504101", "x") == "sip:100@pbx"


def test_sd_notify_abstract_socket(monkeypatch):
    name = f"appliance-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind("\0" + name)
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        assert notify("READY=1")
        assert server.recv(100) == b"READY=1"
    monkeypatch.setenv("WATCHDOG_USEC", "20000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    assert watchdog_interval() == 10.0
    monkeypatch.delenv("NOTIFY_SOCKET")
    assert not notify("WATCHDOG=1")
