"""The receptionist's ears and voice: a local Pipecat 1.14 pipeline per call.

Only this package imports pipecat. Its parts, by role:

- `runtime.py`: the models, loaded once per process (Whisper, Piper, Silero, Smart Turn, the LLM);
- `stt.py`, `tts.py`, `turn_detection.py`, `speech_cache.py`: the model wrappers;
- `call.py`: one call's pipeline (`VoiceCall`), built from
  `listener.py` (the STT service: turn ends, barge-in, Whisper), `turn_analyzer.py` (the turn's end as a
  Pipecat turn analyser), `conversation.py` (the EngineProcessor), `speaker.py` (the TTS service: Piper and the
  speech cache) and `playback.py` (what was played, when); `service_choice.py` puts another Pipecat STT or TTS
  service in their place (`[voice] stt_service`, `tts_service`), with `transcript_turns.py` and `tts_handoff.py`
  between it and the engine processor;
- `engine_host.py`: the thread a call's engine and call record live on;
- `transports/`: the in-memory line, and the pumped input every line's input is built on.

Other packages (the SIP line, the simulated caller, the demo) use the names
below, `from appliance.voice import VoiceCall`, and never a module inside: what
is public is listed once here. They load on first use, so importing this
package does not import pipecat or the models.
"""

import importlib as _importlib
import os as _os

# public name -> the module (in this package) that defines it
_PUBLIC = {
    "VoiceCall": "call", "CallSummary": "call", "clinic_lines_for": "call",
    "CallEvent": "conversation", "TurnTiming": "conversation",
    "EngineHost": "engine_host",
    "BoxScheduler": "scheduler", "Priority": "scheduler", "box_scheduler": "scheduler",
    "PiperSynthesizer": "tts", "CallerListener": "listener",
    "VoiceRuntime": "runtime", "quiet_pipecat": "runtime", "peak_rss_mb": "runtime", "current_rss_mb": "runtime",
    "CallTape": "audio", "FRAME_MS": "audio", "PHONE_RATE": "audio", "frame_bytes": "audio",
    "resample": "audio", "resample_pcm": "audio", "telephone": "audio", "to_pcm": "audio", "to_float": "audio", "silence": "audio",
    "AgentSpeechFrame": "frames", "CallerTurnFrame": "frames",
    "PumpedInput": "transports.pumped_input",
    "CallerLine": "transports.line", "LineTransport": "transports.line",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value



def _quiet_pipecat() -> None:
    """Pipecat logs every frame event through loguru, with a banner at import: keep its warnings only
    (set APPLIANCE_PIPECAT_LOG=DEBUG to see everything). Runs before anything here imports pipecat."""
    import sys

    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level=_os.environ.get("APPLIANCE_PIPECAT_LOG", "WARNING"))


_quiet_pipecat()
