"""PCM helpers the voice layer shares: 16-bit mono bytes in, bytes out.

Everything inside the pipeline is signed 16-bit little-endian mono PCM at the
call's rate (8 or 16 kHz). Piper speaks at 22,050 Hz and Whisper listens at
16 kHz, so audio crosses rates here, with soxr.
"""

from __future__ import annotations

import bisect
import os
import time
import wave
from pathlib import Path

import numpy as np
import soxr

WHISPER_RATE = 16000
PHONE_RATE = 8000
FRAME_MS = 20


def to_float(pcm: bytes) -> np.ndarray:
    return np.frombuffer(pcm, dtype=np.int16).astype(np.float32) / 32768.0


def to_pcm(audio: np.ndarray) -> bytes:
    return (np.clip(audio, -1.0, 1.0) * 32767.0).astype(np.int16).tobytes()


def resample(audio: np.ndarray, from_rate: int, to_rate: int) -> np.ndarray:
    if from_rate == to_rate or len(audio) == 0:
        return audio.astype(np.float32, copy=False)
    return soxr.resample(audio, from_rate, to_rate, quality="HQ").astype(np.float32, copy=False)


def resample_pcm(pcm: bytes, from_rate: int, to_rate: int) -> bytes:
    if from_rate == to_rate:
        return pcm
    return to_pcm(resample(to_float(pcm), from_rate, to_rate))


def telephone(audio: np.ndarray, rate: int, to_rate: int) -> np.ndarray:
    """Squeeze audio through an 8 kHz phone line, then bring it to `to_rate`."""
    return resample(resample(audio, rate, PHONE_RATE), PHONE_RATE, to_rate)


def silence(seconds: float, rate: int) -> bytes:
    return bytes(int(seconds * rate) * 2)


def seconds(pcm: bytes, rate: int) -> float:
    return len(pcm) / 2 / rate


# Piper starts every phrase with 40-70 ms of near silence (under -50 dBFS) before its first sound; at the start of
# a reply that is wait the caller hears. Cut to LEAD_KEEP_S before the first window louder than LEAD_LEVEL, so a
# soft onset ("h", "th") keeps its start.
LEAD_LEVEL = 100       # int16 RMS over a LEAD_WINDOW_S window
LEAD_WINDOW_S = 0.005
LEAD_KEEP_S = 0.01


def trim_leading_quiet(pcm: bytes, rate: int) -> bytes:
    """`pcm` without the near silence before its first sound (LEAD_KEEP_S of it kept); unchanged if all quiet."""
    samples = np.frombuffer(pcm, dtype=np.int16)
    window = max(1, int(LEAD_WINDOW_S * rate))
    usable = len(samples) - len(samples) % window
    if usable <= 0:
        return pcm
    frames = samples[:usable].astype(np.float32).reshape(-1, window)
    loud = np.flatnonzero(np.sqrt(np.mean(frames * frames, axis=1)) >= LEAD_LEVEL)
    if not len(loud):
        return pcm
    start = max(0, int(loud[0]) * window - int(LEAD_KEEP_S * rate))
    return pcm[start * 2:]


def frame_bytes(rate: int, ms: int = FRAME_MS) -> int:
    return rate * ms // 1000 * 2


class CallTape:
    """Both sides of a call on one timeline: caller left, agent right.

    The caller side is the line's continuous input (silence included), so its
    length is the call's clock; agent audio is laid at the line time it was
    played, never overlapping earlier agent audio.
    """

    def __init__(self, rate: int):
        self.rate = rate
        self._caller = bytearray()
        self._agent: list[tuple[int, bytes]] = []
        self._agent_end = 0
        # each line the caller said: (first sample, samples), on the caller's side (benches read latency from it)
        self.caller_lines: list[tuple[int, int]] = []
        # (line sample, wall time) as each piece of caller audio went down the line: the audio clock against
        # time.time(), so the pipeline's events can be laid on the recording (bench/latency.py's timeline)
        self._clock: list[tuple[int, float]] = []
        self.agent_writes: list[tuple[int, float]] = []   # (line sample, wall time) of each agent write

    def caller(self, pcm: bytes) -> None:
        self._clock.append((len(self._caller) // 2, time.time()))
        self._caller.extend(pcm)

    def caller_line_starts(self, samples: int) -> None:
        """The next `samples` of caller audio are a line the caller says (so its speech can be found again)."""
        self.caller_lines.append((len(self._caller) // 2, samples))

    def agent(self, pcm: bytes) -> None:
        at = max(self._agent_end, len(self._caller) // 2)
        self._agent.append((at, pcm))
        self.agent_writes.append((at, time.time()))
        self._agent_end = at + len(pcm) // 2

    def wall_time(self, sample: int) -> float | None:
        """When line sample `sample` went down the line (time.time()), from the caller side's clock."""
        if not self._clock:
            return None
        index = max(0, bisect.bisect_right(self._clock, (sample, float("inf"))) - 1)
        first, at = self._clock[index]
        return at + (sample - first) / self.rate

    def line_sample(self, wall: float) -> int | None:
        """The line sample going down the line at wall time `wall` (the inverse of `wall_time`)."""
        if not self._clock:
            return None
        index = max(0, bisect.bisect_right([at for _, at in self._clock], wall) - 1)
        first, at = self._clock[index]
        return first + int((wall - at) * self.rate)

    def stereo(self) -> np.ndarray:
        caller = np.frombuffer(bytes(self._caller), dtype=np.int16)
        length = max(len(caller), self._agent_end)
        out = np.zeros((length, 2), dtype=np.int16)
        out[: len(caller), 0] = caller
        for at, pcm in self._agent:
            samples = np.frombuffer(pcm, dtype=np.int16)
            out[at: at + len(samples), 1] = samples
        return out

    def write_wav(self, path: str | Path) -> Path:
        """A stereo 16-bit WAV, readable by its owner only (it holds a patient's voice)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as handle, wave.open(handle, "wb") as wav:
            wav.setnchannels(2)
            wav.setsampwidth(2)
            wav.setframerate(self.rate)
            wav.writeframes(self.stereo().tobytes())
        return path
