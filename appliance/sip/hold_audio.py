"""What a caller on hold hears while the front desk's phone rings: two soft notes every few seconds.

Made here rather than shipped as a recording (no licence to mind, any rate); `[sip] hold_audio` names a WAV
file (16-bit PCM, mono or stereo, any rate) to play instead.
"""

from __future__ import annotations

import asyncio
import logging
import wave
from pathlib import Path

import numpy as np

log = logging.getLogger("appliance.sip")

LOOP_S = 3.0
NOTES_HZ = (659.25, 523.25)      # E5 then C5
NOTE_S = 0.35
LEVEL = 0.12                     # of full scale: audible, never loud
AHEAD_S = 0.6                    # kept queued ahead of the bridge


def hold_tones(rate: int) -> bytes:
    """One loop of the built-in hold sound, 16-bit mono at `rate`."""
    loop = np.zeros(int(LOOP_S * rate), dtype=np.float32)
    length = int(NOTE_S * rate)
    envelope = np.sin(np.linspace(0.0, np.pi, length, dtype=np.float32)) ** 2
    at = 0
    for hz in NOTES_HZ:
        t = np.arange(length, dtype=np.float32) / rate
        loop[at: at + length] += LEVEL * envelope * np.sin(2 * np.pi * hz * t)
        at += length
    return (loop * 32767).astype(np.int16).tobytes()


def hold_file(path: Path, rate: int) -> bytes:
    """A WAV file's audio as 16-bit mono at `rate`; ValueError naming the file when it cannot be used."""
    try:
        with wave.open(str(path), "rb") as wav:
            if wav.getsampwidth() != 2:
                raise ValueError(f"{path}: [sip] hold_audio must be 16-bit PCM")
            channels, source_rate = wav.getnchannels(), wav.getframerate()
            samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    except (OSError, wave.Error, EOFError) as exc:
        raise ValueError(f"{path}: [sip] hold_audio cannot be read ({exc})") from None
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1).astype(np.int16)
    if not len(samples):
        raise ValueError(f"{path}: [sip] hold_audio has no audio")
    if source_rate != rate:
        count = int(round(len(samples) * rate / source_rate))
        samples = np.interp(np.linspace(0, len(samples) - 1, count), np.arange(len(samples)),
                            samples.astype(np.float32)).astype(np.int16)
    return samples.tobytes()


def hold_sound(path: Path | None, rate: int) -> bytes:
    """The configured hold audio, or the built-in notes when none is set or it cannot be used (logged)."""
    if path is not None:
        try:
            return hold_file(Path(path), rate)
        except ValueError as exc:
            log.error("%s; playing the built-in hold notes", exc)
    return hold_tones(rate)


async def play_hold(outgoing, pcm: bytes) -> None:
    """Keep `pcm` looping into the caller's outgoing audio until cancelled (the caller then clears it)."""
    while True:
        if outgoing.pending_s < AHEAD_S:
            outgoing.push(pcm)
            outgoing.flush()
        await asyncio.sleep(0.2)
