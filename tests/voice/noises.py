"""Sounds a caller makes that are not words, for the voice tests: a breath and a cough (seeded noise, shaped and
squeezed through the phone line like the simulated caller's voice)."""

from __future__ import annotations

import numpy as np

from appliance.voice import telephone, to_pcm

MADE_AT = 22050   # the rate they are made at, as Piper speaks


def _band(noise: np.ndarray, low: float, high: float) -> np.ndarray:
    spectrum = np.fft.rfft(noise)
    freqs = np.fft.rfftfreq(len(noise), 1 / MADE_AT)
    spectrum[(freqs < low) | (freqs > high)] = 0
    return np.fft.irfft(spectrum, len(noise))


def _swell(n: int, rise: float, fall: float) -> np.ndarray:
    shape = np.ones(n)
    up, down = max(1, int(rise * n)), max(1, int(fall * n))
    shape[:up] = np.linspace(0, 1, up)
    shape[-down:] = np.linspace(1, 0, down)
    return shape


def _on_the_line(sound: np.ndarray, level: float, rate: int) -> bytes:
    sound = sound / np.max(np.abs(sound)) * level
    return to_pcm(telephone(sound.astype(np.float32), MADE_AT, rate))


def breath(rate: int, *, level: float = 0.03, seconds: float = 0.6, seed: int = 0) -> bytes:
    """A breath out: soft, hissing noise that swells and fades (`level`: its peak, full scale 1)."""
    noise = np.random.default_rng(seed).standard_normal(int(seconds * MADE_AT))
    return _on_the_line(_band(noise, 400, 2500) * _swell(len(noise), 0.4, 0.5), level, rate)


def cough(rate: int, *, level: float = 0.6, seed: int = 0) -> bytes:
    """A cough: two bursts of noise, the second longer."""
    rng = np.random.default_rng(seed)
    parts = []
    for seconds, gap in ((0.09, 0.06), (0.16, 0.0)):
        n = int(seconds * MADE_AT)
        parts += [_band(rng.standard_normal(n), 250, 3200) * _swell(n, 0.1, 0.7), np.zeros(int(gap * MADE_AT))]
    return _on_the_line(np.concatenate(parts), level, rate)
