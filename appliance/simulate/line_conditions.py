"""What the phone line does to the simulated caller's voice before the receptionist hears it.

    line = line_condition("noisy")
    audio = line.carry(speech, voice_rate, call_rate, rng=rng, noise=bed)   # float in, float out

- `clean`: the voice at the pipeline's rate, full band (a wideband line);
- `g711`: squeezed to 8 kHz and through µ-law (G.711, the default: what a phone call is);
- `noisy`: g711 with background noise at `NOISE_SNR_DB` under the speech (pink noise and a low babble of
  other speech, reversed so that it carries no words): a caller in a waiting room or a street;
- `lossy`: g711 with `LOSS_RATE` of the 20 ms packets lost at random and concealed the way a simple
  concealer does it: the last good packet again, quieter each time (there is no gap of silence).

Over SIP the line is G.711 itself (`codec=False`): the noise or the loss is put on the caller's 8 kHz
audio and the phone's own codec does the companding. Every random choice comes from the `rng` given,
so the same seed gives the same line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..voice import PHONE_RATE, resample
from .caller_choices import DEFAULT_LINE, LINES  # noqa: F401 (DEFAULT_LINE: the harness imports it from here)


MU = 255
MU_LEVELS = 127           # µ-law codes each side of zero (8 bits with the sign)
PACKET_MS = 20
NOISE_SNR_DB = 15.0
LOSS_RATE = 0.02
CONCEAL_GAIN = 0.6        # a lost packet repeats the last one received at this gain (again for each in a row)
BABBLE_SHARE_DB = -6.0    # the babble under the pink noise
BABBLE_VOICES = 4
NOISE_LOOP_S = 12.0       # the background is a loop this long
ACTIVE_FLOOR_DB = -30.0   # frames this far under the loudest count as pauses, not speech, in a level


class UnknownLine(ValueError):
    pass


def mu_law_round_trip(audio: np.ndarray) -> np.ndarray:
    """`audio` (floats in -1..1) encoded to 8-bit µ-law and decoded again (G.711's µ-law, by its formula)."""
    x = np.clip(audio.astype(np.float32), -1.0, 1.0)
    compressed = np.sign(x) * np.log1p(MU * np.abs(x)) / np.log1p(MU)
    codes = np.round(compressed * MU_LEVELS) / MU_LEVELS
    return (np.sign(codes) * np.expm1(np.abs(codes) * np.log1p(MU)) / MU).astype(np.float32)


def speech_level(audio: np.ndarray, rate: int) -> float:
    """RMS of the speech in `audio`, its pauses left out (20 ms frames within ACTIVE_FLOOR_DB of the loudest)."""
    frames = _frames(audio, rate)
    if frames.size == 0:
        return 0.0
    power = np.mean(frames * frames, axis=1)
    active = power >= power.max() * 10 ** (ACTIVE_FLOOR_DB / 10)
    return float(np.sqrt(np.mean(power[active]))) if power.max() > 0 else 0.0


def _frames(audio: np.ndarray, rate: int) -> np.ndarray:
    size = rate * PACKET_MS // 1000
    whole = len(audio) // size * size
    return audio[:whole].reshape(-1, size)


def pink_noise(samples: int, rng: np.random.Generator) -> np.ndarray:
    """Noise with equal power per octave (1/f), RMS 1."""
    spectrum = np.fft.rfft(rng.standard_normal(samples))
    freqs = np.arange(len(spectrum), dtype=np.float64)
    freqs[0] = 1.0
    noise = np.fft.irfft(spectrum / np.sqrt(freqs), samples)
    return (noise / (np.sqrt(np.mean(noise * noise)) or 1.0)).astype(np.float32)


def babble(speech: np.ndarray, samples: int, rng: np.random.Generator, voices: int = BABBLE_VOICES) -> np.ndarray:
    """A murmur of `voices` talkers made from `speech`, each reversed (speech-like, but no words) and started
    at its own point, RMS 1; silence when there is no speech to make it from."""
    if speech.size == 0 or not np.any(speech):
        return np.zeros(samples, np.float32)
    backwards = speech[::-1].astype(np.float32)
    loop = np.tile(backwards, samples // len(backwards) + 2)
    mixed = np.zeros(samples, np.float32)
    for _ in range(voices):
        start = int(rng.integers(0, len(backwards)))
        mixed += loop[start: start + samples]
    return mixed / (np.sqrt(np.mean(mixed * mixed)) or 1.0)


class BackgroundNoise:
    """The room around the caller: a seeded loop of pink noise and babble at 8 kHz, RMS 1, read in turn."""

    def __init__(self, rng: np.random.Generator, babble_speech: np.ndarray | None = None, rate: int = PHONE_RATE):
        samples = int(NOISE_LOOP_S * rate)
        murmur = babble(babble_speech if babble_speech is not None else np.zeros(0), samples, rng)
        bed = pink_noise(samples, rng) + murmur * 10 ** (BABBLE_SHARE_DB / 20)
        self.loop = bed / np.sqrt(np.mean(bed * bed))
        self.rate = rate
        self._at = int(rng.integers(0, samples))

    def take(self, samples: int) -> np.ndarray:
        """The next `samples` of the loop (it carries on where the last piece ended)."""
        index = (self._at + np.arange(samples)) % len(self.loop)
        self._at = (self._at + samples) % len(self.loop)
        return self.loop[index]


def add_noise(speech: np.ndarray, noise: np.ndarray, rate: int, snr_db: float = NOISE_SNR_DB) -> np.ndarray:
    """`speech` with `noise` (as long, any level) scaled to `snr_db` under the speech's level."""
    level = speech_level(speech, rate)
    noise_rms = float(np.sqrt(np.mean(noise * noise))) or 1.0
    return speech + noise * (level / noise_rms * 10 ** (-snr_db / 20))


def lose_packets(audio: np.ndarray, rate: int, rng: np.random.Generator, loss_rate: float = LOSS_RATE
                 ) -> tuple[np.ndarray, np.ndarray]:
    """`audio` with `loss_rate` of its 20 ms packets lost at random and concealed (the last packet received,
    CONCEAL_GAIN quieter for each lost in a row); and the indexes of the packets lost."""
    size = rate * PACKET_MS // 1000
    count = -(-len(audio) // size)
    lost = np.flatnonzero(rng.random(count) < loss_rate)
    out = audio.astype(np.float32, copy=True)
    last = np.zeros(size, np.float32)
    gain = 1.0
    lost_set = set(lost.tolist())
    for k in range(count):
        piece = out[k * size: (k + 1) * size]
        if k in lost_set:
            gain *= CONCEAL_GAIN
            piece[:] = (last * gain)[: len(piece)]
        else:
            gain = 1.0
            last = np.zeros(size, np.float32)
            last[: len(piece)] = piece
    return out, lost


@dataclass(frozen=True)
class LineCondition:
    name: str
    band_limited: bool = True     # squeezed to 8 kHz (a phone line); False: full band at the call's rate
    noisy: bool = False
    lossy: bool = False

    def carry(self, audio: np.ndarray, rate: int, to_rate: int, *, rng: np.random.Generator,
              noise: BackgroundNoise | None = None, codec: bool = True) -> np.ndarray:
        """`audio` at `rate` as it reaches the far end, at `to_rate`. `codec=False`: stop before the µ-law
        (a SIP phone's codec does it); `noise` is the background for a noisy line."""
        if not self.band_limited:
            return resample(audio, rate, to_rate)
        phone = resample(audio, rate, PHONE_RATE)
        if self.noisy:
            if noise is None:
                raise ValueError("a noisy line needs the background noise to put under the caller")
            phone = add_noise(phone, noise.take(len(phone)), PHONE_RATE)
        if codec:
            phone = mu_law_round_trip(phone)
        if self.lossy:
            phone, _ = lose_packets(phone, PHONE_RATE, rng)
        return resample(np.clip(phone, -1.0, 1.0), PHONE_RATE, to_rate)

    def quiet(self, level: float, noise: BackgroundNoise | None, to_rate: int, *, codec: bool = True
              ) -> np.ndarray | None:
        """What the line carries while the caller says nothing, as a loop at `to_rate`: the background at
        `level` (RMS) on a noisy line; None where that is silence."""
        if not self.noisy or noise is None:
            return None
        phone = noise.loop * level
        if codec:
            phone = mu_law_round_trip(phone)
        return resample(phone, PHONE_RATE, to_rate)


_LINES = {
    "clean": LineCondition("clean", band_limited=False),
    "g711": LineCondition("g711"),
    "noisy": LineCondition("noisy", noisy=True),
    "lossy": LineCondition("lossy", lossy=True),
}


def line_condition(name: str) -> LineCondition:
    try:
        return _LINES[name]
    except KeyError:
        raise UnknownLine(f"unknown line {name!r}: choose one of {', '.join(LINES)}") from None
