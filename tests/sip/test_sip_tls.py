"""`appliance run` with TLS (the peer's certificate checked against a CA) and SRTP mandatory, called over TLS
with SRTP by the project's caller agent and by Debian's baresip; a plain-RTP offer and a certificate from
another CA are refused. Certificates are made here, at test time. One service process for the module.
"""

from __future__ import annotations

import asyncio

import pytest

from certificates import TestCa

from . import baresip
from .conftest import heard_turns, need_the_sip_stack, rows, start_service, stop_service

CALLER = "+61400000777"
BARESIP_CALLER = "+61400000889"
REFUSED_CALLER = "+61400000778"


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tls")
    ca = TestCa(folder)
    return {"ca": ca.cert, "service": ca.issue("service"), "caller": ca.issue("caller"),
            "stranger": TestCa(folder / "other", "another CA").issue("stranger")}


@pytest.fixture(scope="module")
def tls_service(tmp_path_factory, tls):
    need_the_sip_stack()
    import socket

    with socket.socket() as tcp:
        tcp.bind(("127.0.0.1", 0))
        tls_port = tcp.getsockname()[1]
    running = start_service(tmp_path_factory.mktemp("sip-tls"), transports=["udp", "tls"], tls_port=tls_port,
                            tls_cert_file=str(tls["service"].cert), tls_key_file=str(tls["service"].key),
                            tls_ca_file=str(tls["ca"]), tls_verify_peer=True, srtp="mandatory")
    running.tls_port = tls_port
    yield running
    assert stop_service(running) == 0, running.log_text()[-3000:]
    log = running.log_text()
    assert "Assertion" not in log and "Traceback" not in log, log[-3000:]


def _uri(service) -> str:
    return f"sip:receptionist@127.0.0.1:{service.tls_port};transport=tls"


def _agent(tls, who: str = "caller", srtp: str = "mandatory"):
    from appliance.simulate.sip_caller_client import CallerAgent, CallerTls

    issued = tls[who]
    return CallerAgent(transport="tls", tls=CallerTls(ca=tls["ca"], cert=issued.cert, key=issued.key), srtp=srtp,
                       quiet_ms=1200)


def test_a_call_over_tls_with_srtp_is_answered_and_the_caller_is_heard(tls_service, tls, caller_speech):
    before = len(tls_service.calls())
    question, goodbye = caller_speech("What is your address?"), caller_speech("No, that's all. Goodbye.")

    async def call() -> tuple[dict, dict]:
        async with _agent(tls) as agent:
            async def step(what: str, awaitable, timeout: float):
                try:
                    return await asyncio.wait_for(awaitable, timeout)
                except asyncio.TimeoutError:
                    raise AssertionError(f"{what}: nothing in {timeout:.0f} s; the caller's events: {agent.history}; "
                                         f"the service's log: {tls_service.log_text()[-1500:]}") from None

            await agent.call(_uri(tls_service), caller_id=CALLER)
            await step("the greeting", agent.until_speaking(), 20)
            await step("the greeting's end", agent.until_quiet(), 40)
            await agent.say(question, 8000)
            await step("the answer", agent.until_speaking(), 30)
            await step("the answer's end", agent.until_quiet(), 60)
            await agent.say(goodbye, 8000)
            return agent.media, await step("the receptionist's hang-up", agent.wait_ended(), 60)

    media, end = asyncio.run(call())
    assert media["srtp"] is True, media                     # the audio was SRTP
    assert end["by"] == "remote", end                       # the receptionist said goodbye and hung up
    record = tls_service.new_call(before)
    assert record["caller_id"] == CALLER
    assert (record["outcome"], record["final_state"], record["end_action"]) == ("info", "goodbye", "hangup"), record
    assert heard_turns(tls_service, record["id"]), tls_service.turns(record["id"])


def test_a_plain_rtp_offer_is_refused_with_488_and_nothing_is_written(tls_service, tls):
    from appliance.simulate.sip_caller_client import CallerAgentError

    calls, callbacks = len(tls_service.calls()), rows(tls_service, "SELECT count(*) FROM callback_requests")

    async def call() -> str:
        async with _agent(tls, srtp="off") as agent:
            with pytest.raises(CallerAgentError) as refused:
                await agent.call(_uri(tls_service), caller_id=REFUSED_CALLER)
            return str(refused.value)

    assert "'code': 488" in asyncio.run(call())
    assert len(tls_service.calls()) == calls
    assert rows(tls_service, "SELECT count(*) FROM callback_requests") == callbacks
    log = tls_service.log_text()
    assert "refused a call from 127.0.0.1: 488" in log, log[-2000:]
    assert REFUSED_CALLER not in log                       # refusals name the address, never the caller


def test_a_certificate_from_another_ca_is_refused(tls_service, tls):
    from appliance.simulate.sip_caller_client import CallerAgentError

    calls = len(tls_service.calls())

    async def call() -> None:
        async with _agent(tls, who="stranger") as agent:
            with pytest.raises(CallerAgentError):
                await agent.call(_uri(tls_service), caller_id=REFUSED_CALLER)

    asyncio.run(call())
    assert len(tls_service.calls()) == calls
    assert "TLS peer 127.0.0.1: its certificate was not accepted" in tls_service.log_text()


@pytest.mark.skipif(not baresip.available(), reason="baresip is not installed (apt-get install baresip)")
def test_baresip_calls_over_tls_with_srtp(tls_service, tls, caller_speech, tmp_path):
    before = len(tls_service.calls())
    wav = baresip.caller_wav(tmp_path / "caller.wav", caller_speech,
                             ["What is your address?", "No, that's all. Goodbye."])
    result = baresip.call_with_baresip(tmp_path / "baresip", _uri(tls_service), wav, caller=BARESIP_CALLER,
                                       until=lambda: tls_service.call_closed(before),
                                       tls=(tls["ca"], tls["caller"].cert, tls["caller"].key), srtp=True)
    assert result.established and result.srtp, result.output[-3000:]
    record = tls_service.new_call(before)
    assert record["caller_id"] == BARESIP_CALLER
    assert heard_turns(tls_service, record["id"]), tls_service.turns(record["id"])
    assert (record["outcome"], record["final_state"], record["end_action"]) == ("info", "goodbye", "hangup"), record
