"""The receptionist's ears and voice: a local Pipecat 1.14 pipeline per call.

Only this package imports pipecat. Its parts, by role:

- `runtime.py`: the models, loaded once per process (Whisper, Piper, Silero, Smart Turn, the LLM);
- `stt.py`, `tts.py`, `turn_detection.py`, `speech_cache.py`: the model wrappers;
- `call.py`: one call's pipeline (`VoiceCall`), built from
  `listener.py` (turn ends, barge-in, STT), `conversation.py` (the EngineProcessor),
  `speaker.py` (Piper TTS) and `playback.py` (what was played, when);
- `engine_host.py`: the thread a call's engine and call record live on;
- `transports/`: the in-memory line (the SIP transport goes beside it);
- `spoken_scenario.py`, `word_error.py`: scenario files played as audio;
- `demo.py`: the spoken demo call and `simulate --spoken` for the command line.
"""

import os as _os


def _quiet_pipecat() -> None:
    """Pipecat logs every frame event through loguru, with a banner at import: keep its warnings only
    (set APPLIANCE_PIPECAT_LOG=DEBUG to see everything). Runs before anything here imports pipecat."""
    import sys

    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level=_os.environ.get("APPLIANCE_PIPECAT_LOG", "WARNING"))


_quiet_pipecat()
