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


def test_the_invite_bucket_allows_a_burst_then_one_per_refill():
    from appliance.sip.invite_limit import InviteLimiter

    now = [100.0]
    limiter = InviteLimiter(burst=3, per_min=30, clock=lambda: now[0])     # one more every 2 s
    assert [limiter.admit("10.0.0.5") for _ in range(3)] == [None, None, None]
    assert limiter.admit("10.0.0.5") == pytest.approx(2.0)                  # Retry-After: the next token
    assert limiter.admit("10.0.0.5") == pytest.approx(2.0)
    assert limiter.refused_in_a_row("10.0.0.5") == 2
    assert limiter.admit("10.0.0.6") is None                                # every address has its own bucket
    now[0] += 1.0
    assert limiter.admit("10.0.0.5") == pytest.approx(1.0)
    now[0] += 1.0
    assert limiter.admit("10.0.0.5") is None and limiter.refused_in_a_row("10.0.0.5") == 0
    now[0] += 3600
    assert [limiter.admit("10.0.0.5") for _ in range(4)][-1] is not None    # refills to the burst, no further


def test_the_invite_bucket_forgets_the_oldest_addresses_first():
    from appliance.sip.invite_limit import InviteLimiter

    limiter = InviteLimiter(burst=1, per_min=1, clock=lambda: 0.0, max_sources=2)
    for host in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):
        assert limiter.admit(host) is None
    assert limiter.admit("10.0.0.1") is None          # forgotten, so a fresh bucket
    assert limiter.admit("10.0.0.3") is not None      # still remembered


def test_dialog_tags_are_read_from_full_and_compact_headers():
    from appliance.sip.sip_text import dialog_tag, header_value

    invite = 'INVITE sip:a@b SIP/2.0\r\nFrom: "Ann" <sip:+6140;tag=notme@pbx>;tag=abc123\r\nTo: <sip:a@b>\r\n'
    assert dialog_tag(invite, "From") == "abc123" and dialog_tag(invite, "To") == ""
    assert dialog_tag("SIP/2.0 200 OK\r\nt: sip:a@b ; tag = Zz9\r\nf: <sip:c@d>;tag=q\r\n", "To") == "Zz9"
    assert dialog_tag("SIP/2.0 200 OK\r\nf: <sip:c@d>;tag=q\r\n", "From") == "q"
    assert header_value("INVITE x SIP/2.0\r\ni: abc@host \r\n", "Call-ID") == "abc@host"
    assert header_value(invite, "Call-ID") == ""


def test_credentials_answer_one_realm_and_srtp_follows_the_settings(tmp_path):
    pj = pytest.importorskip("pjsua2")
    from appliance.settings import SipSettings
    from appliance.sip.account import account_config

    secret = tmp_path / "sip-password"
    secret.write_text("s3cret\n")
    secret.chmod(0o600)
    register = {"mode": "register", "registrar": "sip:pbx.clinic.lan:5060;transport=udp", "user": "201",
                "password_file": secret}
    def config(**sip):   # kept whole while its parts are read (SWIG hands out views into it)
        return account_config(SipSettings(**sip), local_host="127.0.0.1", port=5060)

    default = config(**register)
    assert [(c.realm, c.username, c.data) for c in default.sipConfig.authCreds] == [("pbx.clinic.lan", "201",
                                                                                     "s3cret")]
    named = config(**register, realm="asterisk")
    assert [c.realm for c in named.sipConfig.authCreds] == ["asterisk"]

    optional = config(srtp="optional")
    assert (optional.mediaConfig.srtpUse, optional.mediaConfig.srtpSecureSignaling) == (pj.PJMEDIA_SRTP_OPTIONAL, 0)
    assert list(optional.mediaConfig.srtpOpt.keyings) == [pj.PJMEDIA_SRTP_KEYING_SDES]
    over_tls = config(srtp="mandatory", transports=("tls",), tls_cert_file=tmp_path / "a", tls_key_file=tmp_path / "b")
    assert (over_tls.mediaConfig.srtpUse, over_tls.mediaConfig.srtpSecureSignaling) == (pj.PJMEDIA_SRTP_MANDATORY, 1)
    plain = config()
    assert plain.mediaConfig.srtpUse == pj.PJMEDIA_SRTP_DISABLED
