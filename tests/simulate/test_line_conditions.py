"""The phone lines the simulated caller is heard over: G.711's µ-law, the phone band, background noise at
its signal-to-noise ratio, and lost packets concealed without a gap."""

from __future__ import annotations

import numpy as np
import pytest

from appliance.simulate.line_conditions import (LOSS_RATE, NOISE_SNR_DB, BackgroundNoise, UnknownLine,
                                                line_condition, lose_packets, mu_law_round_trip, speech_level)

PHONE = 8000


def talk(seconds: float, rate: int = PHONE, seed: int = 0) -> np.ndarray:
    """Speech-like sound: voiced bursts (a 140 Hz buzz with harmonics, rising and falling) and pauses."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * rate)) / rate
    buzz = sum(np.sin(2 * np.pi * 140 * k * t) / k for k in range(1, 12))
    syllables = np.clip(np.sin(2 * np.pi * 3.0 * t), 0, None) * (rng.random(len(t)) * 0.1 + 0.9)
    pauses = (np.sin(2 * np.pi * 0.4 * t) > -0.6).astype(float)
    audio = buzz * syllables * pauses
    return (0.8 * audio / np.max(np.abs(audio))).astype(np.float32)


def test_mu_law_round_trip_keeps_every_sample_within_its_quantisation_error():
    x = np.linspace(-1, 1, 20001, dtype=np.float32)
    error = np.abs(mu_law_round_trip(x) - x)
    # 8-bit µ-law (255, 127 steps a side): half a step, which grows with the level (2.2% of it near the top)
    half_step = np.expm1(np.log1p(255) / 127 / 2)
    assert np.all(error <= half_step * (np.abs(x) + 1 / 255) + 1e-6)
    assert error.max() > 0.5 * half_step                  # and it is 8 bits, not finer
    speech = talk(2.0)
    noise = mu_law_round_trip(speech) - speech
    assert 10 * np.log10(np.mean(speech ** 2) / np.mean(noise ** 2)) > 30    # G.711's ~38 dB on speech


def test_g711_is_the_phone_band_and_clean_is_full_band():
    rate = 16000
    t = np.arange(rate) / rate
    low, high = np.sin(2 * np.pi * 1000 * t), np.sin(2 * np.pi * 6000 * t)
    rng = np.random.default_rng(0)
    for name, keeps_high in (("g711", False), ("clean", True)):
        out = line_condition(name).carry(0.4 * (low + high), rate, rate, rng=rng)
        spectrum = np.abs(np.fft.rfft(out))
        assert spectrum[1000] > 1000                       # 1 kHz: heard on every line
        assert (spectrum[6000] > 1000) == keeps_high, name # 6 kHz: only above the phone band


def test_a_noisy_line_puts_the_room_15_db_under_the_speech():
    speech = talk(6.0)
    rng = np.random.default_rng(5)
    room = BackgroundNoise(np.random.default_rng(1), babble_speech=talk(3.0, seed=2))
    noisy = line_condition("noisy").carry(speech, PHONE, PHONE, rng=rng, noise=room)
    clean = line_condition("g711").carry(speech, PHONE, PHONE, rng=rng)
    snr = 20 * np.log10(speech_level(clean, PHONE) / np.sqrt(np.mean((noisy - clean) ** 2)))
    assert abs(snr - NOISE_SNR_DB) <= 1.0, snr
    # between the caller's lines the line carries the room at that level, not silence
    level = speech_level(speech, PHONE) * 10 ** (-NOISE_SNR_DB / 20)
    quiet = line_condition("noisy").quiet(level, room, PHONE)
    assert abs(20 * np.log10(np.sqrt(np.mean(quiet ** 2)) / level)) <= 1.0
    assert line_condition("g711").quiet(level, room, PHONE) is None


def test_the_room_is_pink_noise_and_a_murmur_seeded():
    first = BackgroundNoise(np.random.default_rng(3), babble_speech=talk(2.0)).take(PHONE)
    again = BackgroundNoise(np.random.default_rng(3), babble_speech=talk(2.0)).take(PHONE)
    other = BackgroundNoise(np.random.default_rng(4), babble_speech=talk(2.0)).take(PHONE)
    assert np.array_equal(first, again) and not np.array_equal(first, other)
    spectrum = np.abs(np.fft.rfft(BackgroundNoise(np.random.default_rng(3)).loop)) ** 2
    per_hz = len(spectrum) / (PHONE / 2)
    low = spectrum[int(100 * per_hz):int(200 * per_hz)].mean()
    high = spectrum[int(2000 * per_hz):int(4000 * per_hz)].mean()
    assert low > 8 * high                                  # falling with frequency, as pink noise does


def test_a_lossy_line_loses_about_2_percent_of_packets_and_fills_each_gap():
    speech = talk(120.0)
    packet = PHONE * 20 // 1000
    concealed, lost = lose_packets(speech, PHONE, np.random.default_rng(9))
    count = len(speech) // packet
    assert abs(len(lost) / count - LOSS_RATE) < 0.006, len(lost) / count
    rms = lambda a: float(np.sqrt(np.mean(a ** 2)))  # noqa: E731
    checked = 0
    for k in lost:
        before = speech[(k - 1) * packet: k * packet]
        if k == 0 or rms(before) < 0.01:
            continue                                       # nothing heard before it: nothing to repeat
        filled = concealed[k * packet: (k + 1) * packet]
        assert rms(filled) > 0.1 * rms(before), k          # no silent gap where the packet was
        assert not np.array_equal(filled, speech[k * packet: (k + 1) * packet])
        checked += 1
    assert checked >= 0.3 * len(lost)                      # (the rest fell in pauses)
    kept = np.setdiff1d(np.arange(count), lost)
    assert all(np.array_equal(concealed[k * packet: (k + 1) * packet], speech[k * packet: (k + 1) * packet])
               for k in kept[:200])


def test_a_lossy_line_is_the_same_for_the_same_seed():
    speech = talk(10.0)
    one = line_condition("lossy").carry(speech, PHONE, 16000, rng=np.random.default_rng(2))
    two = line_condition("lossy").carry(speech, PHONE, 16000, rng=np.random.default_rng(2))
    g711 = line_condition("g711").carry(speech, PHONE, 16000, rng=np.random.default_rng(2))
    assert np.array_equal(one, two) and not np.array_equal(one, g711)


def test_an_unknown_line_is_refused_with_the_choices():
    with pytest.raises(UnknownLine, match="clean, g711, noisy, lossy"):
        line_condition("satellite")
