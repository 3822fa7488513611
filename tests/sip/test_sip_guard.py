"""`appliance run` against callers that do not play fair, on one line (`max_calls = 1`) with a small INVITE
bucket (2 at once, one a second after): an INVITE never ACKed, a burst from one address, a caller who tries
again and again while the line is busy; then Debian's baresip over plain UDP. One service for the module.
"""

from __future__ import annotations

import re
import time

import pytest

from . import baresip
from .conftest import heard_turns, need_the_sip_stack, rows, sipp, start_service, stop_service
from .raw_sip import RawSip

BURST = 2
UNACKED_CALLER = "+61400000901"
BUSY_CALLER = "+61400000902"
BARESIP_CALLER = "+61400000888"
RELEASE_LIMIT_S = 5.0


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    need_the_sip_stack()
    running = start_service(tmp_path_factory.mktemp("sip-guard"), max_calls=1, invite_burst=BURST,
                            invite_rate_per_min=60)
    yield running
    assert stop_service(running) == 0, running.log_text()[-3000:]
    log = running.log_text()
    assert "Assertion" not in log and "Traceback" not in log, log[-3000:]


def _written_for(service, number: str) -> list[tuple]:
    return (rows(service, "SELECT id FROM calls WHERE caller_id = ?", number)
            + rows(service, "SELECT id FROM callback_requests WHERE phone = ?", number))


def _answered_call(service, tmp_path) -> dict:
    before = len(service.calls())
    code, report = sipp(service, "call", tmp_path, pause_ms=1000)
    assert code == 0, report
    return service.new_call(before)


def test_an_invite_never_acked_frees_the_line_within_5_s_and_writes_nothing(guarded, tmp_path):
    with RawSip() as raw:
        raw.invite(guarded.port, caller=UNACKED_CALLER)
        replies = raw.replies(RELEASE_LIMIT_S + 1.0)
    answered = [t for t, line, _ in replies if line.startswith("SIP/2.0 200")]
    bye = [t for t, line, _ in replies if line.startswith("BYE ")]
    assert answered, replies
    assert bye and bye[0] < RELEASE_LIMIT_S, replies       # given up on and ended, well before pjsip's 32 s
    assert _answered_call(guarded, tmp_path)["ended_at"]    # the one line is free again: a real caller gets it
    assert _written_for(guarded, UNACKED_CALLER) == []
    log = guarded.log_text()
    assert "answered but not acknowledged in 3 s (no ACK): released, nothing written" in log
    assert UNACKED_CALLER not in log


def test_a_burst_from_one_address_is_rate_limited_then_a_call_is_answered(guarded, tmp_path):
    time.sleep(BURST + 1)                                    # the bucket refills (one a second)
    callers = [f"+6140000091{i}" for i in range(BURST + 2)]
    with RawSip() as raw:
        for caller in callers:
            raw.invite(guarded.port, caller=caller)
        replies = raw.replies(2.0)
    refused = {text for _, line, text in replies if line.startswith("SIP/2.0 503")}
    assert len(refused) == len(callers) - BURST, [(round(t, 2), line) for t, line, _ in replies]
    assert all(re.search(r"^Retry-After: [1-9]\d*\r$", text, re.M) for text in refused), refused
    time.sleep(RELEASE_LIMIT_S)                              # the answered ones are released (never ACKed)
    assert _answered_call(guarded, tmp_path)["ended_at"]
    assert guarded.alive()
    assert all(_written_for(guarded, caller) == [] for caller in callers)
    assert "rate limit: 1 new call(s) in a row from 127.0.0.1 refused (503" in guarded.log_text()


def test_busy_callers_from_one_number_within_an_hour_give_one_callback_row(guarded, tmp_path):
    time.sleep(BURST + 1)
    before = len(guarded.calls())
    holder = sipp(guarded, "call", tmp_path, pause_ms=35000, timeout_s=70, background=True)
    try:
        guarded.new_call(before, ended=False)                # the one line is taken
        for _ in range(2):
            code, report = sipp(guarded, "busy", tmp_path, timeout_s=40, extra=("-key", "caller", BUSY_CALLER))
            assert code == 0, report                         # answered with the busy message, then BYE
            time.sleep(1.0)
    finally:
        assert holder.wait(80) == 0
    assert rows(guarded, "SELECT phone, reason, status FROM callback_requests WHERE phone = ?", BUSY_CALLER) == [
        (BUSY_CALLER, "all lines busy", "open")]
    assert guarded.log_text().count("all lines busy: callback request") == 2


@pytest.mark.skipif(not baresip.available(), reason="baresip is not installed (apt-get install baresip)")
def test_baresip_calls_over_udp(guarded, caller_speech, tmp_path):
    before = len(guarded.calls())
    wav = baresip.caller_wav(tmp_path / "caller.wav", caller_speech,
                             ["What is your address?", "No, that's all. Goodbye."])
    result = baresip.call_with_baresip(tmp_path / "baresip", f"sip:service@127.0.0.1:{guarded.port}", wav,
                                       caller=BARESIP_CALLER, until=lambda: guarded.call_closed(before))
    assert result.established and not result.srtp, result.output[-3000:]
    record = guarded.new_call(before)
    assert record["caller_id"] == BARESIP_CALLER
    assert heard_turns(guarded, record["id"]), guarded.turns(record["id"])
    assert (record["outcome"], record["final_state"], record["end_action"]) == ("info", "goodbye", "hangup"), record


def test_the_service_log_warns_of_an_open_allowed_peers(tmp_path):
    """`appliance run` logs the settings' warnings as it starts (here it then stops: no password file)."""
    import os
    import subprocess

    from .conftest import APPLIANCE, free_port, write_config

    config = write_config(tmp_path, port=free_port(), allowed_peers=["0.0.0.0/0"], mode="register",
                          registrar="sip:127.0.0.1:5999", user="201", password_file=str(tmp_path / "missing"))
    env = {k: v for k, v in os.environ.items() if k not in ("APPLIANCE_DB", "NOTIFY_SOCKET", "WATCHDOG_USEC")}
    done = subprocess.run([str(APPLIANCE), "run", "--config", str(config)], capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.returncode != 0
    assert f"{config}: warning: sip.allowed_peers: '0.0.0.0/0' lets any address send calls" in done.stderr, done.stderr
