"""Hearing when the caller speaks and when they are done: Silero VAD and Smart Turn v3.

Both models ship inside pipecat-ai (their paths come from `appliance.models`).
Each is loaded once per process: a call gets its own Silero analyzer (the
model's recurrent state is per stream) on the shared ONNX session, and every
call asks the one Smart Turn session whether an utterance sounds finished.
"""

from __future__ import annotations

import functools
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from .audio import WHISPER_RATE, resample

SMART_TURN_RATE = WHISPER_RATE
# Pipecat gates speech on the line's loudness (min_volume), smoothed from one 32 ms window to the next with a factor
# of 0.2: from a quiet line the gate opened only some 150 ms into a word, and a short answer ("yep", "sure")
# rarely had start_secs of speech left. Seven voices saying eleven short answers at four alignments started the
# VAD 259 times in 308 at full level and 165 at -14 dB; at 0.5, 304 and 302. Quiet breaths and coughs stay out.
VOLUME_SMOOTHING = 0.5


class SileroSession:
    """The Silero VAD ONNX session, shared; `analyzer()` gives a call its own stream state."""

    def __init__(self, model_path: str | Path):
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = 1
        self.model_path = Path(model_path)
        self.session = onnxruntime.InferenceSession(str(self.model_path), providers=["CPUExecutionProvider"],
                                                    sess_options=options)

    def analyzer(self, *, start_secs: float, stop_secs: float, confidence: float = 0.7, min_volume: float = 0.6):
        from pipecat.audio.vad.vad_analyzer import VADParams

        params = VADParams(confidence=confidence, start_secs=start_secs, stop_secs=stop_secs, min_volume=min_volume)
        return _shared_silero_class()(self.session, params)


@functools.cache
def _shared_silero_class():
    from pipecat.audio.vad.silero import SileroOnnxModel, SileroVADAnalyzer
    from pipecat.audio.vad.vad_analyzer import VADAnalyzer

    class SharedSileroVAD(SileroVADAnalyzer):
        """Pipecat's Silero analyzer without loading the model again for every call."""

        def __init__(self, session, params):
            VADAnalyzer.__init__(self, params=params)
            model = SileroOnnxModel.__new__(SileroOnnxModel)
            model.session = session
            model.sample_rates = [8000, 16000]
            model.reset_states()
            self._model = model
            self._windows_since_reset = 0
            self._low_confidence_windows = 0
            self._smoothing_factor = VOLUME_SMOOTHING

    return SharedSileroVAD


class SmartTurn:
    """Pipecat's bundled Smart Turn v3: does this utterance sound finished?"""

    def __init__(self, model_path: str | Path | None = None, *, threads: int = 1):
        from pipecat.audio.turn.smart_turn.local_smart_turn_v3 import LocalSmartTurnAnalyzerV3

        started = time.perf_counter()
        self._analyzer = LocalSmartTurnAnalyzerV3(smart_turn_model_path=str(model_path) if model_path else None,
                                                  cpu_count=threads)
        self._analyzer.set_sample_rate(SMART_TURN_RATE)
        self.load_s = time.perf_counter() - started
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="smart-turn")

    def probability(self, audio: np.ndarray, rate: int) -> float:
        """Blocking: the chance (0-1) that the caller has finished; audio is float32 at `rate`."""
        audio = resample(audio, rate, SMART_TURN_RATE)
        return float(self._analyzer._predict_endpoint(audio)["probability"])
