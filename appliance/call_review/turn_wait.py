"""How long the caller waited for an answer, from a turn's timings.

With the voice layer's moments, the latency is from the end of the caller's
speech to the start of the receptionist's (what the caller hears). Without
them (text calls), it is the sum of the measured durations: speech to text,
the engine, the language model and the first audio.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping

DURATIONS = ("stt_ms", "engine_ms", "llm_ms", "tts_first_audio_ms")


def moment(value: Any) -> datetime | None:
    """A recorded moment (ISO text or datetime), or None."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return None
    return None


def turn_latency_ms(timings: Mapping[str, Any]) -> float | None:
    heard, answered = moment(timings.get("speech_end")), moment(timings.get("agent_speech_start"))
    if heard is not None and answered is not None and answered >= heard:
        return (answered - heard).total_seconds() * 1000
    parts = [timings.get(name) for name in DURATIONS]
    parts = [float(p) for p in parts if isinstance(p, (int, float)) and not isinstance(p, bool)]
    return sum(parts) if parts else None
