"""The service's Prometheus metrics (appliance/sip/metrics.py) fed the events a call makes, without a phone line."""

from __future__ import annotations

import socket
import urllib.request

import pytest

from appliance.engine.types import OUTCOMES, ToolRun, TurnResult
from appliance.sip.metrics import ServiceMetrics

from .conftest import metric_samples as samples

pytest.importorskip("pipecat")
from appliance.voice import CallEvent, TurnTiming  # noqa: E402

CALLER = "+61400000999"
PATIENT = "Wilhelmina Quast"
DOB = "1981-04-17"
CALL_ID = "call-7f3a9c"


def value(text: str, name: str, **labels) -> float:
    return samples(text)[(name, tuple(sorted(labels.items())))]


def turn(*, latency_s: float | None = 0.9, stt_ms=310.0, engine_ms=12.0, llm_ms=None, tts_ms=140.0,
         tools=()) -> CallEvent:
    """A reply turn as the conversation emits it, holding a patient's words and a guarded tool's arguments."""
    timing = TurnTiming(seq=3, kind="reply", caller_text=f"it's {PATIENT}, born {DOB}",
                        agent_text=f"Thanks {PATIENT}.", stt_ms=stt_ms, engine_ms=engine_ms, llm_ms=llm_ms,
                        tts_first_audio_ms=tts_ms)
    if latency_s is not None:
        timing.speech_end, timing.agent_start = 1000.0, 1000.0 + latency_s
    timing.result = TurnResult(reply=timing.agent_text, state="identify", waiting_for="name",
                               tools=[ToolRun(name, "identify", {"name": PATIENT, "dob": DOB, "phone": CALLER}, kind,
                                              {"patient": PATIENT}, 3.0) for name, kind in tools])
    return CallEvent("turn", timing=timing, text=timing.caller_text)


def test_turns_and_outcomes_are_counted():
    metrics = ServiceMetrics()
    metrics.call_event(CallEvent("call_started", data={"caller_id": CALLER}))
    metrics.call_event(turn(latency_s=0.9, tools=[("get_patient_details", "guard"), ("check_availability", "ok")]))
    metrics.call_event(turn(latency_s=2.1, llm_ms=240.0, tools=[("get_patient_details", "guard")]))
    metrics.call_event(turn(latency_s=None, stt_ms=None))          # a greeting: nothing heard, no latency
    metrics.call_event(CallEvent("call_finished", data={"outcome": "booked", "summary": None}))
    metrics.call_event(CallEvent("call_finished", data={"outcome": None, "summary": None}))   # never answered
    metrics.call_event(CallEvent("call_finished", data={"outcome": "busy"}))                  # counted as busy
    text = metrics.text()

    assert value(text, "appliance_reply_latency_seconds_count") == 2
    assert value(text, "appliance_reply_latency_seconds_sum") == pytest.approx(3.0)
    assert value(text, "appliance_reply_latency_seconds_bucket", le="1.6") == 1
    assert value(text, "appliance_stage_seconds_count", stage="stt") == 2
    assert value(text, "appliance_stage_seconds_sum", stage="stt") == pytest.approx(0.62)
    assert value(text, "appliance_stage_seconds_count", stage="tts") == 3
    assert value(text, "appliance_stage_seconds_count", stage="engine") == 3
    assert value(text, "appliance_stage_seconds_count", stage="llm") == 1
    assert value(text, "appliance_guard_refusals_total", tool="get_patient_details") == 2
    assert ("appliance_guard_refusals_total", (("tool", "check_availability"),)) not in samples(text)
    assert value(text, "appliance_calls_total", outcome="booked") == 1
    assert sum(value(text, "appliance_calls_total", outcome=o) for o in OUTCOMES) == 1
    assert value(text, "appliance_calls_total", outcome="failed") == 0     # there before the first failure


def test_no_patient_data_reaches_the_metrics():
    metrics = ServiceMetrics()
    metrics.call_event(CallEvent("call_started", data={"caller_id": CALLER}))
    metrics.call_event(CallEvent("heard", text=f"{PATIENT} {DOB} {CALLER}"))
    metrics.call_event(turn(tools=[("create_patient", "guard")]))
    metrics.call_event(CallEvent("call_finished", data={"outcome": "callback", "summary": CALL_ID}))
    text = metrics.text()
    # a metric's creation time is a float of the clock ("1.7958840720198e+09") whose digits can hold a year
    said = "\n".join(line for line in text.splitlines() if "_created" not in line)
    for secret in (CALLER, "400000999", PATIENT, "Quast", DOB, "1981", CALL_ID):
        assert secret not in said
    labels = {key for name, pairs in samples(text) for key, _ in pairs}
    assert labels <= {"outcome", "stage", "tool", "state", "part", "le"}


def test_registration_busy_lines_and_models():
    metrics = ServiceMetrics(registers=True)
    state = lambda: {s: value(metrics.text(), "appliance_sip_registration", state=s)  # noqa: E731
                     for s in ("registering", "registered", "failed")}
    assert state() == {"registering": 1, "registered": 0, "failed": 0}
    metrics.registration(200, 300)
    assert state() == {"registering": 0, "registered": 1, "failed": 0}
    metrics.registration(408, 0)
    assert state() == {"registering": 0, "registered": 0, "failed": 1}
    assert value(ServiceMetrics().text(), "appliance_sip_registration", state="not_registering") == 1   # peer mode

    metrics.busy_rejection()
    metrics.busy_rejection()
    assert value(metrics.text(), "appliance_busy_rejections_total") == 2

    assert value(metrics.text(), "appliance_models_state", state="loading") == 1
    metrics.models_loaded(["stt", "tts", "vad"], unavailable=["llm"])
    text = metrics.text()
    assert value(text, "appliance_models_state", state="ready") == 1
    assert value(text, "appliance_models_state", state="loading") == 0
    assert value(text, "appliance_model_loaded", part="stt") == 1
    assert value(text, "appliance_model_loaded", part="llm") == 0


def test_calls_in_progress_is_read_at_each_scrape_and_services_do_not_share_numbers():
    calls: list[str] = []
    first, second = ServiceMetrics(calls_in_progress=lambda: len(calls)), ServiceMetrics()
    assert value(first.text(), "appliance_calls_in_progress") == 0
    calls.append("one")
    first.busy_rejection()
    assert value(first.text(), "appliance_calls_in_progress") == 1
    assert value(second.text(), "appliance_busy_rejections_total") == 0


def test_served_over_http_until_closed():
    metrics = ServiceMetrics()
    metrics.serve(("127.0.0.1", 0))
    port = metrics.port
    try:
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with direct.open(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            body = response.read().decode()
        assert "appliance_calls_in_progress 0.0" in body
    finally:
        metrics.close()
    with socket.socket() as probe:                      # the port is free again
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", port))
