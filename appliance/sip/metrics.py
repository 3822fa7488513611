"""The phone service's Prometheus metrics (`[metrics] listen`): counts, durations and states, never patient data.

    metrics = ServiceMetrics(calls_in_progress=lambda: len(sessions), registers=False)
    metrics.serve(("127.0.0.1", 9464))     # GET /metrics, prometheus_client's server on its own thread
    metrics.call_event(event)              # each call's events, from PhoneService.emit (one hook for calls)
    metrics.close()

Every label is a closed vocabulary: an outcome from engine/types.OUTCOMES, a tool's name, a pipeline stage, a
model part, a registration state. No caller, number, name or call id is ever a label or a value. The metrics
live in their own CollectorRegistry (not prometheus_client's global one), so two services in one process (tests,
simulations) never share numbers. Names and alert rules: docs/scale.md, config/prometheus/alerts.yml.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import start_http_server

from ..engine.types import OUTCOMES
from .registration_status import registration_word

log = logging.getLogger("appliance.sip")

# "not_registering": peer mode (the PBX sends calls here; nothing to register)
REGISTRATION_STATES = ("not_registering", "registering", "registered", "unregistered", "failed")
# models that cannot load stop the service (Prometheus then sees it down), so there is no "failed" to report
MODEL_STATES = ("loading", "ready")
STAGES = ("stt", "engine", "llm", "tts")
# the reply-latency goal (1.6 s at the 95th percentile) falls on a bucket edge, so the alert's quantile is exact there
LATENCY_BUCKETS = (0.25, 0.5, 0.75, 1.0, 1.2, 1.4, 1.6, 2.0, 2.5, 3.0, 4.0, 6.0, 10.0)
STAGE_BUCKETS = (0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0)


class ServiceMetrics:
    def __init__(self, *, calls_in_progress: Callable[[], int] = lambda: 0, registers: bool = False):
        self.registry = CollectorRegistry(auto_describe=True)
        self._server: Any = None
        on = self.registry
        self.in_progress = Gauge("appliance_calls_in_progress", "Calls being answered now (ringing included).",
                                 registry=on)
        self.in_progress.set_function(calls_in_progress)
        self.calls = Counter("appliance_calls", "Calls whose record closed, by outcome.", ["outcome"], registry=on)
        for outcome in OUTCOMES:         # every outcome present from the start: increase() sees the first one
            self.calls.labels(outcome)
        self.latency = Histogram("appliance_reply_latency_seconds",
                                 "End of the caller's speech to the first audio of the agent's answer.",
                                 buckets=LATENCY_BUCKETS, registry=on)
        self.stages = Histogram("appliance_stage_seconds", "Time spent per turn in a pipeline stage: stt (one "
                                "transcription), engine (the turn's decision), llm (the language model's part "
                                "of it), tts (to the answer's first audio).", ["stage"], buckets=STAGE_BUCKETS,
                                registry=on)
        for stage in STAGES:
            self.stages.labels(stage)
        self.guard_refusals = Counter("appliance_guard_refusals", "Tool calls a guard refused, by tool.", ["tool"],
                                      registry=on)
        self.busy = Counter("appliance_busy_rejections", "Callers turned away because every line was in use.",
                            registry=on)
        self.registration_state = Gauge("appliance_sip_registration", "1 for the SIP registration's state now.",
                                        ["state"], registry=on)
        self.model_state = Gauge("appliance_models_state", "1 for the voice models' state now.", ["state"],
                                 registry=on)
        self.model_loaded = Gauge("appliance_model_loaded", "1 when a model part is loaded, 0 when it could not "
                                  "be (the LLM is optional: calls then run on the rules alone).", ["part"],
                                  registry=on)
        _one_of(self.registration_state, REGISTRATION_STATES, "registering" if registers else "not_registering")
        _one_of(self.model_state, MODEL_STATES, "loading")

    # ------------------------------------------------------------ serving

    def serve(self, address: tuple[str, int]) -> None:
        """Serve GET /metrics on `address` (host, port); OSError when it cannot be bound."""
        host, port = address
        self._server, _thread = start_http_server(port, addr=host, registry=self.registry)

    @property
    def port(self) -> int | None:
        return self._server.server_port if self._server is not None else None

    def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()

    def text(self) -> str:
        """The exposition text, as a scrape gets it."""
        return generate_latest(self.registry).decode()

    # ------------------------------------------------------------ what the service tells

    def call_event(self, event: Any) -> None:
        """A call's event (voice CallEvent): turns bring timings and tool runs, call_finished the outcome."""
        if event.kind == "turn" and event.timing is not None:
            self._turn(event.timing)
        elif event.kind == "call_finished":
            outcome = event.data.get("outcome")
            if outcome in OUTCOMES:      # None: never answered (no record); "busy": counted as a busy rejection
                self.calls.labels(outcome).inc()

    def _turn(self, timing: Any) -> None:
        if timing.latency_ms is not None:
            self.latency.observe(timing.latency_ms / 1000)
        for stage, ms in (("stt", timing.stt_ms), ("engine", timing.engine_ms), ("llm", timing.llm_ms),
                          ("tts", timing.tts_first_audio_ms)):
            if ms is not None:
                self.stages.labels(stage).observe(ms / 1000)
        result = timing.result
        for tool in getattr(result, "tools", None) or ():
            if tool.kind == "guard":
                self.guard_refusals.labels(tool.name).inc()

    def busy_rejection(self) -> None:
        self.busy.inc()

    def registration(self, code: int, expiration: int) -> None:
        _one_of(self.registration_state, REGISTRATION_STATES, registration_word(code, expiration))

    def models_loaded(self, loaded: Iterable[str], unavailable: Iterable[str] = ()) -> None:
        for part in loaded:
            self.model_loaded.labels(part).set(1)
        for part in unavailable:
            self.model_loaded.labels(part).set(0)
        _one_of(self.model_state, MODEL_STATES, "ready")


def _one_of(gauge: Gauge, states: tuple[str, ...], current: str) -> None:
    """A state as one gauge per state, 1 for the current one (alert rules match `{state="..."} == 1`)."""
    for state in states:
        gauge.labels(state).set(1 if state == current else 0)
