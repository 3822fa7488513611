"""The transcript taken at the pause against a decode of the whole turn, on the same clips (issue 17).

    python bench/speculative_decode.py [--lines 60] [--line g711,noisy] [--no-write]

The listener decodes the utterance at the first pause in its sound (`EARLY_PAUSE_S` after the last sound) and,
when the turn ends with nothing louder than the line's quiet since, takes that transcript as the turn's: the
clip it decoded is the audio up to then, followed by digital silence where the rest of the VAD's pause would
be. Decoding again at the turn's end would give Whisper the line's real tail instead (a G.711 line's hiss, a
noisy room). Here both are decoded for each caller line of the own scenarios (`tests/scenarios`), spoken by
Piper over each line condition, with the same pre-roll, and their word errors against the line as written are
counted. Writes the `speculative-decode` section of bench/RESULTS.md (`--no-write`: prints it).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results_file import publish  # noqa: E402

RATE = 16000
PRE_ROLL_S = 0.3
TAIL_S = 0.8


def caller_lines(count: int, seed: int = 17) -> list[str]:
    """Up to `count` distinct caller lines of the own scenarios, a seeded sample."""
    from appliance.simulate.scenario import load_scenario
    from appliance.simulate.spoken_call import caller_phrases

    lines: dict[str, None] = {}
    for path in sorted((ROOT / "tests" / "scenarios").glob("*.yaml")):
        scenario, _ = load_scenario(path)
        lines.update(dict.fromkeys(caller_phrases(scenario)))
    chosen = sorted(lines)
    random.Random(seed).shuffle(chosen)
    return chosen[:count]


def last_sound(pcm: bytes) -> int:
    """Line sample just after the last 20 ms chunk louder than the listener's ONSET_LEVEL (as it tracks it)."""
    import numpy as np

    from appliance.voice.listener import ONSET_LEVEL

    chunk = int(0.02 * RATE)
    samples = np.frombuffer(pcm, np.int16).astype(np.float32)
    end = 0
    for first in range(0, len(samples) - chunk + 1, chunk):
        piece = samples[first: first + chunk]
        if np.sqrt(np.mean(piece * piece)) >= ONSET_LEVEL:
            end = first + chunk
    return end


def clips(pcm: bytes, pause_s: float) -> tuple[bytes, bytes]:
    """(the clip decoded at the pause, reused at the turn's end; the turn's whole audio at the VAD's pause)."""
    from appliance.voice.listener import EARLY_PAUSE_S, VAD_LAG_S

    end = last_sound(pcm)
    at_pause = end + int(EARLY_PAUSE_S * RATE)
    turn_end = end + int((pause_s + VAD_LAG_S) * RATE)
    reused = pcm[: at_pause * 2] + bytes((turn_end - at_pause) * 2)   # as listener._track_sound sends it
    return reused, pcm[: turn_end * 2]


def measure(runtime, lines: list[str], line_name: str, pause_s: float) -> dict:
    import numpy as np

    from appliance.simulate.line_conditions import BackgroundNoise, line_condition
    from appliance.simulate.word_error import word_errors
    from appliance.voice.audio import to_pcm

    rng = np.random.default_rng(17)
    line = line_condition(line_name)
    noise = BackgroundNoise(rng) if line.noisy else None
    reused_errors = whole_errors = None
    differ, reused_ms, whole_ms, differences = 0, [], [], []
    for text in lines:
        audio, voice_rate = runtime.synthesizer.speak_float(text)
        padded = np.concatenate([np.zeros(int(PRE_ROLL_S * voice_rate), np.float32), audio * 0.8,
                                 np.zeros(int(TAIL_S * voice_rate), np.float32)])
        pcm = to_pcm(line.carry(padded, voice_rate, RATE, rng=rng, noise=noise))
        reused, whole = clips(pcm, pause_s)
        a = runtime.transcriber.transcribe(reused, RATE)
        b = runtime.transcriber.transcribe(whole, RATE)
        reused_ms.append(a.ms)
        whole_ms.append(b.ms)
        differ += a.text != b.text
        if a.text != b.text:
            differences.append(f"\"{a.text}\" / \"{b.text}\" (said: \"{text}\")")
        e_a, e_b = word_errors(text, a.text), word_errors(text, b.text)
        reused_errors = e_a if reused_errors is None else reused_errors + e_a
        whole_errors = e_b if whole_errors is None else whole_errors + e_b
    return {"line": line_name, "clips": len(lines), "reused": reused_errors, "whole": whole_errors,
            "differ": differ, "differences": differences, "reused_ms": float(np.median(reused_ms)), "whole_ms": float(np.median(whole_ms))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=60)
    parser.add_argument("--line", default="g711,noisy", help="Line conditions, comma-separated.")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    from appliance.voice.listener import SMART_TURN_PAUSE_S
    from appliance.voice.runtime import VoiceRuntime, quiet_pipecat

    quiet_pipecat("ERROR")
    runtime = VoiceRuntime.shared()
    pause_s = min(SMART_TURN_PAUSE_S, runtime.settings.voice.vad_stop_secs)
    lines = caller_lines(args.lines)
    started = time.perf_counter()
    rows = [measure(runtime, lines, name.strip(), pause_s) for name in args.line.split(",")]
    body = "\n".join([
        "## The transcript taken at the pause against a decode at the turn's end (`bench/speculative_decode.py`)",
        "",
        f"{len(lines)} caller lines of the own scenarios (a seeded sample), spoken by Piper "
        f"({runtime.settings.models.tts}) over each line, STT {runtime.settings.models.stt}. Reused: the clip the "
        "listener decodes at the first pause in the sound (the audio to then, digital silence for the rest of the "
        "VAD's pause), whose transcript is the turn's when nothing louder than the line's quiet follows. Whole: the "
        "turn's own audio to the VAD's pause, the line's real tail included, as a decode at the turn's end would "
        f"have it. Word errors against the line as written. {time.perf_counter() - started:.0f} s.",
        "",
        "| line | clips | word errors, reused | word errors, whole | transcripts that differ | decode ms (median), "
        "reused / whole |",
        "|---|---|---|---|---|---|",
        *(f"| {r['line']} | {r['clips']} | {r['reused'].rate:.1%} ({r['reused'].errors}/{r['reused'].words}) "
          f"| {r['whole'].rate:.1%} ({r['whole'].errors}/{r['whole'].words}) | {r['differ']} "
          f"| {r['reused_ms']:.0f} / {r['whole_ms']:.0f} |" for r in rows),
        "",
        "Word errors are high on both sides alike: the clips are decoded without the question's prompt the listener "
        "gives Whisper, and digits and spelled letters said as words are counted against the line as written.",
        *(f"Transcripts that differ on {r['line']}, reused / whole: " + "; ".join(r["differences"]) + "."
          for r in rows if r["differences"]),
    ])
    publish("speculative-decode", body, write=not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
