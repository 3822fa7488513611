"""`appliance run` against real sipp on loopback: one service process for the whole module (models load once).

The tests run in file order; the last one stops the service with SIGTERM during a call.
"""

from __future__ import annotations

import asyncio
import socket
import sqlite3
import stat
import time
from datetime import datetime

from appliance.engine.types import OUTCOMES

from .conftest import Service, sipp, stop_service


def _ok(result) -> None:
    code, report = result
    assert code == 0, report


def test_options_are_answered(service, tmp_path):
    _ok(sipp(service, "options", tmp_path))


def test_a_call_is_answered_and_recorded(service, tmp_path):
    before = len(service.calls())
    _ok(sipp(service, "call", tmp_path, pause_ms=2500))
    call = service.new_call(before)
    assert call["outcome"] == "abandoned"          # nothing was said: the record still ends, with its outcome
    assert call["ended_at"]
    turns = service.turns(call["id"])
    assert turns and turns[0]["seq"] == 0 and turns[0]["agent_text"]   # the greeting


def test_cancel_while_ringing(service, tmp_path):
    before = len(service.calls())
    _ok(sipp(service, "cancel", tmp_path))
    time.sleep(1.0)
    assert len(service.calls()) == before           # never answered: no call record
    assert service.alive()


def test_reinvite_keeps_the_call(service, tmp_path):
    before = len(service.calls())
    _ok(sipp(service, "reinvite", tmp_path))
    assert service.new_call(before)["ended_at"]


def test_a_disallowed_address_gets_403(service, tmp_path):
    before = len(service.calls())
    _ok(sipp(service, "refused", tmp_path, local_ip="127.0.0.2"))
    assert len(service.calls()) == before
    assert "refused a call from 127.0.0.2" in service.log_text()


def test_hang_up_during_the_greeting_is_abandoned(service, tmp_path):
    before = len(service.calls())
    _ok(sipp(service, "call", tmp_path, pause_ms=400))
    call = service.new_call(before)
    assert call["outcome"] == "abandoned"


def test_malformed_datagrams_do_not_stop_the_service(service, tmp_path):
    junk = [
        b"\x00\xff\xfe garbage \x80\x81",
        b"INVITE sip:service@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:1;branch=z9hG4bK1\r\nFrom: <sip:a@b>;tag=1",
        b"INVITE sip:service@127.0.0.1 SIP/2.0\r\nContent-Length: 99999\r\n\r\nv=0",
        b"SIP/2.0 200 OK\r\n\r\n",
        b"OPTIONS \r\n\r\n",
        b"\r\n\r\n",
        b"A" * 9000,
    ]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for datagram in junk:
            try:
                sock.sendto(datagram, ("127.0.0.1", service.port))
            except OSError:          # too big for one datagram on this box
                pass
    with socket.create_connection(("127.0.0.1", service.port), timeout=2) as tcp:
        tcp.sendall(b"INVITE sip:x SIP/2.0\r\nContent-Length: 5\r\n\r\n\x00\x01")
    time.sleep(0.5)
    assert service.alive()
    before = len(service.calls())
    _ok(sipp(service, "call", tmp_path, pause_ms=1000))
    assert service.new_call(before)["ended_at"]


def test_caller_audio_reaches_the_pipeline(service, tmp_path):
    before = len(service.calls())
    _ok(sipp(service, "speech", tmp_path, pause_ms=25000, timeout_s=60))
    call = service.new_call(before)
    heard = [t["caller_text"] for t in service.turns(call["id"]) if t["seq"] > 0]
    # the pcap's words may not mean anything to the engine: a recorded turn, or the service heard speech
    assert any(heard) or f"call {call['id']}: caller turn heard" in service.log_text(), service.log_text()[-3000:]
    recording = service.recordings / f"{call['id']}.wav"
    until = time.monotonic() + 10.0             # written as the call is tidied up, just after its record closes
    while not recording.is_file() and time.monotonic() < until:
        time.sleep(0.1)
    assert recording.is_file() and stat.S_IMODE(recording.stat().st_mode) == 0o600


def test_keypad_zero_asks_for_a_transfer(service, tmp_path):
    before = len(service.calls())
    code, report = sipp(service, "keypad_zero", tmp_path, timeout_s=90)
    assert code == 0, report
    assert "Refer-To: sip:+61255504101@127.0.0.1" in report, report     # the demo clinic front desk, at the peer
    call = service.new_call(before)
    turns = service.turns(call["id"])
    assert any(t["caller_text"] == "keypad 0" for t in turns), turns


def _record_figures(service: Service) -> dict[str, object]:
    """What the metrics should say, from the call record alone (every call this service has closed)."""
    with sqlite3.connect(f"file:{service.db}?mode=ro", uri=True) as conn:
        outcomes = dict(conn.execute("SELECT outcome, count(*) FROM calls WHERE ended_at IS NOT NULL "
                                     "GROUP BY outcome").fetchall())
        gaps = [(datetime.fromisoformat(start) - datetime.fromisoformat(end)).total_seconds()
                for end, start in conn.execute("SELECT speech_end, agent_speech_start FROM turns WHERE speech_end "
                                               "IS NOT NULL AND agent_speech_start IS NOT NULL")]
        stt = conn.execute("SELECT count(stt_ms), coalesce(sum(stt_ms), 0) FROM turns").fetchone()
        tts = conn.execute("SELECT count(tts_first_audio_ms), coalesce(sum(tts_first_audio_ms), 0) FROM turns").fetchone()
        refusals = dict(conn.execute("SELECT name, count(*) FROM tool_calls WHERE result_kind = 'guard' "
                                     "GROUP BY name").fetchall())
    return {"outcomes": outcomes, "latency": (len(gaps), sum(gaps)), "stt": (stt[0], stt[1] / 1000),
            "tts": (tts[0], tts[1] / 1000), "refusals": refusals}


def _scraped_figures(scraped: dict) -> dict[str, object]:
    def get(name: str, **labels) -> float:
        return scraped.get((name, tuple(sorted(labels.items()))), 0.0)

    stage = lambda name: (get("appliance_stage_seconds_count", stage=name),  # noqa: E731
                          get("appliance_stage_seconds_sum", stage=name))
    outcomes = {o: get("appliance_calls_total", outcome=o) for o in OUTCOMES}
    return {"outcomes": {o: n for o, n in outcomes.items() if n},
            "latency": (get("appliance_reply_latency_seconds_count"), get("appliance_reply_latency_seconds_sum")),
            "stt": stage("stt"), "tts": stage("tts"),
            "refusals": {dict(labels)["tool"]: v for (name, labels), v in scraped.items()
                         if name == "appliance_guard_refusals_total"}}


def _differences(scraped: dict, record: dict) -> list[str]:
    found = [key for key in ("outcomes", "refusals") if scraped[key] != record[key]]
    for key in ("latency", "stt", "tts"):          # (count, seconds): the sum to the record's rounding
        count, total = record[key]
        if scraped[key][0] != count or abs(scraped[key][1] - total) > 0.02 * max(1, count):
            found.append(key)
    return found


def _agreeing(service: Service, timeout: float = 15.0) -> tuple[dict, dict]:
    """The scraped figures and the record's, once they agree (a call's figures land just after its record)."""
    until = time.monotonic() + timeout
    while True:
        scraped, record = _scraped_figures(service.scrape()), _record_figures(service)
        if not _differences(scraped, record) or time.monotonic() > until:
            return scraped, record
        time.sleep(0.3)


def test_metrics_during_a_call_agree_with_the_call_record(service, caller_speech):
    from appliance.simulate.sip_caller_client import CallerAgent

    question, goodbye = caller_speech("What is your address?"), caller_speech("No, that's all. Goodbye.")
    before = len(service.calls())
    timed_before = _record_figures(service)["latency"][0]

    async def call() -> tuple[dict, tuple[dict, dict]]:
        async with CallerAgent(quiet_ms=1200) as agent:
            await agent.call(f"sip:receptionist@127.0.0.1:{service.port}", caller_id="+61400000555")
            await asyncio.wait_for(agent.until_speaking(), 20)
            await asyncio.wait_for(agent.until_quiet(), 40)
            await agent.say(question, 8000)
            await asyncio.wait_for(agent.until_speaking(), 30)
            await asyncio.wait_for(agent.until_quiet(), 60)
            in_call = service.scrape()
            figures = await asyncio.to_thread(_agreeing, service)     # the answer's turn, the call still going
            await agent.say(goodbye, 8000)
            await asyncio.wait_for(agent.wait_ended(), 60)
            return in_call, figures

    in_call, (scraped, record) = asyncio.run(call())
    assert in_call[("appliance_calls_in_progress", ())] == 1
    assert not _differences(scraped, record), (scraped, record)
    assert record["latency"][0] > timed_before, record            # the answer to the question was timed
    assert service.new_call(before)["outcome"] == "info"

    scraped, record = _agreeing(service)
    assert not _differences(scraped, record), (scraped, record)
    assert record["outcomes"].get("info"), record
    after = service.scrape()
    assert after[("appliance_calls_in_progress", ())] == 0
    assert after[("appliance_models_state", (("state", "ready"),))] == 1
    assert after[("appliance_model_loaded", (("part", "stt"),))] == 1
    assert after[("appliance_sip_registration", (("state", "not_registering"),))] == 1     # peer mode


def test_sigterm_says_goodbye_and_exits_cleanly(service, tmp_path):
    held = sipp(service, "held", tmp_path, timeout_s=60, background=True)
    time.sleep(3.0)                                   # answered, greeting under way
    assert stop_service(service) == 0, service.log_text()[-3000:]
    assert held.wait(30) == 0                        # the service sent BYE and sipp answered it
    log = service.log_text()
    assert "stopped" in log
    assert "Assertion" not in log and "Traceback" not in log, log[-3000:]
    call = service.calls()[-1]                        # the caller cut off says so (no number here: no callback)
    assert call["outcome"] == "shutdown" and call["end_reason"] and call["ended_at"], call
