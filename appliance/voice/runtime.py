"""The voice models, loaded once per process and shared by every call.

    runtime = VoiceRuntime.shared(settings)      # Whisper, Piper, Silero, Smart Turn, the LLM
    runtime.warm_clinic(clinic_lines, rate, flow)   # the greeting, the clinic's fixed lines, fillers, openings

Every model comes from a path `appliance.models.resolve` checked (a missing or
damaged one raises ModelUnavailable naming the fix); nothing is fetched. The
LLM is optional: when it cannot load, calls run on the rules alone and the
reason is logged once.
"""

from __future__ import annotations

import copy
import logging
import os
import resource
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..settings import Settings, load_settings
from ..understanding.name_list import load_name_list
from .speech_cache import ENGINE_FAILED_LINE, FILLERS, HOLDING_LINES, TTS_FALLBACK, SpeechCache
from .stt import load_transcriber
from .tts import PiperSynthesizer, fixed_openings
from .turn_detection import SileroSession, SmartTurn

log = logging.getLogger("appliance.voice")


def quiet_pipecat(level: str = "WARNING") -> None:
    """Pipecat logs every frame event at DEBUG through loguru; keep `level` and above."""
    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level=os.environ.get("APPLIANCE_PIPECAT_LOG", level))


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float | None:
    """The process's resident memory now (MiB; None where /proc is not there)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


@dataclass
class LoadReport:
    seconds: dict[str, float] = field(default_factory=dict)
    models: dict[str, str] = field(default_factory=dict)
    llm_problem: str | None = None
    stt_problem: str | None = None   # set when device = cuda but Whisper had to fall back to the CPU


class VoiceRuntime:
    _shared: VoiceRuntime | None = None
    _shared_lock = threading.Lock()

    def __init__(self, settings: Settings | None = None, *, load_llm: bool | None = None):
        from ..models import resolve

        self.settings = settings = settings or load_settings()
        self.report = LoadReport()
        voice, device = settings.voice, settings.device
        cores = os.cpu_count() or 2
        started = time.perf_counter()

        stt = resolve("stt", settings)
        self.transcriber, self.report.stt_problem = load_transcriber(
            stt.path, device=device.device, compute_type=device.stt_compute_type, beam_size=voice.stt_beam_size,
            cpu_threads=min(2, cores), workers=1, window_s=voice.stt_window_s)   # a second CT2 worker made one transcription 60% slower here
        if self.report.stt_problem:
            log.warning("speech-to-text runs on the CPU: %s", self.report.stt_problem)
        self.report.models["stt"] = f"{stt.name} ({stt.path})"
        self.report.seconds["stt"] = self.transcriber.load_s

        tts = resolve("tts", settings)
        self.synthesizer = PiperSynthesizer(tts.path, threads=min(2, cores), use_cuda=device.device == "cuda")
        self.report.models["tts"] = f"{tts.name} ({tts.path})"
        self.report.seconds["tts"] = self.synthesizer.load_s

        vad = resolve("vad", settings)
        self.silero = SileroSession(vad.path)
        self.report.models["vad"] = f"{vad.name} ({vad.path})"

        self.smart_turn: SmartTurn | None = None
        if voice.smart_turn:
            turn = resolve("turn", settings)
            self.smart_turn = SmartTurn(turn.path)
            self.report.models["turn"] = f"{turn.name} ({turn.path})"
            self.report.seconds["turn"] = self.smart_turn.load_s

        self.language_model: Any = None
        self.classifier: Any = None
        self.rephraser: Any = None
        wants_llm = settings.llm.classify or settings.llm.rephrase
        if load_llm if load_llm is not None else wants_llm:
            self._load_language(settings)

        cache_dir = settings.paths.data_dir / "voice-cache" if voice.greeting_cache else None
        self.speech_cache = SpeechCache(self.synthesizer, cache_dir)
        names_started = time.perf_counter()
        load_name_list()   # read once here, not during the first new patient's call
        self.report.seconds["names"] = time.perf_counter() - names_started
        self.report.seconds["total"] = time.perf_counter() - started

    def _load_language(self, settings: Settings) -> None:
        started = time.perf_counter()
        try:
            from ..language import IntentClassifier, LanguageModel, Rephraser

            self.language_model = LanguageModel.shared(settings)
        except Exception as exc:  # ModelUnavailable, a missing llama-cpp-python build, ...
            self.report.llm_problem = str(exc) if not isinstance(exc, ImportError) else f"{exc} (pip install llama-cpp-python)"
            log.warning("the LLM is not available, calls run on the rules alone: %s", self.report.llm_problem)
            return
        if settings.llm.classify:
            self.classifier = IntentClassifier(self.language_model, settings=settings)
        if settings.llm.rephrase:
            self.rephraser = Rephraser(self.language_model, settings=settings)
        self.report.models["llm"] = str(getattr(self.language_model, "path", "?"))
        self.report.seconds["llm"] = time.perf_counter() - started

    def with_settings(self, settings: Settings) -> VoiceRuntime:
        """The same loaded models under other voice settings (tests shorten the silence clock this way)."""
        twin = copy.copy(self)
        twin.settings = settings
        return twin

    @classmethod
    def shared(cls, settings: Settings | None = None) -> VoiceRuntime:
        """The process's runtime (loaded on first use)."""
        with cls._shared_lock:
            if cls._shared is None:
                cls._shared = cls(settings)
            return cls._shared

    # ------------------------------------------------------------ per clinic

    def warm_clinic(self, clinic_lines: list[str], rate: int, flow: Any = None) -> float:
        """Synthesise the clinic's greeting and fixed lines (`call.clinic_lines_for`), the fillers, the holding
        lines, the fallbacks and (given the flow) the fixed opening phrase of each reply template now; returns the
        seconds it took."""
        started = time.perf_counter()
        texts = [line for line in clinic_lines if line] if self.settings.voice.greeting_cache else []
        if flow is not None and self.settings.voice.greeting_cache:
            texts += fixed_openings(flow.templates.values())
        self.speech_cache.warm(texts + list(FILLERS) + list(HOLDING_LINES) + [TTS_FALLBACK, ENGINE_FAILED_LINE], rate)
        return time.perf_counter() - started

    def vad_analyzer(self, *, stop_secs: float):
        return self.silero.analyzer(start_secs=self.settings.voice.vad_start_secs, stop_secs=stop_secs)

    @property
    def models_dir(self) -> Path:
        return self.settings.models_dir
