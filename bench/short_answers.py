"""Short answers at a spoken booking read-back: is each one heard, and as the right yes or no?

    python bench/short_answers.py [--voices piper,piper-varied,flite-slt,espeak-en-gb] [--at -0.2,0.1,0.3,2.0]

A booking is read back on the in-memory line (tests/voice/read_back.py: reached in text, its last second played
in real time) and the caller answers with one short answer, starting `at` seconds after the read-back's last
word ends (negative: over it). Every answer is said in every voice at every moment; then a few sounds that are
no answer at all (a breath, a cough, a soft "uh", a throat-clear, a breathy "huh"). Voices: Piper's joe said
the same way every time (`piper`) and with its own sampling noise (`piper-varied`), and, where the machine has
them, flite's and espeak-ng's voices. Counted: answers lost (the engine never got a turn: the caller met
silence), answers taken the wrong way (a yes as a no, or the reverse), and sounds that booked. Writes the
`short_answers` section of bench/RESULTS.md.

Goals: nothing lost, nothing taken the wrong way, no sound books.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results_file import write_section  # noqa: E402

ANSWERS = {"yep": "yes", "yeah": "yes", "yes": "yes", "sure": "yes", "correct": "yes", "uh huh": "yes",
           "that's right": "yes", "go ahead": "yes", "no": "no", "nope": "no", "uh-huh": "yes", "mm-hmm": "yes"}
FLITE = ("slt", "awb", "rms", "kal16")
ESPEAK = ("en-us", "en-gb")
# said softly, where the caller has nothing to say yet; (text for Piper, gain)
GRUNTS = {"a soft 'uh'": ("uh", 0.3), "a throat-clear": ("ahem", 0.08), "a breathy 'huh'": ("[[ hˈʌ ]]", 0.1)}


def _synthesised(command: list[str], rate: int) -> bytes:
    """Line audio from a command line synthesiser that writes a WAV file to the path put for "{wav}"."""
    from appliance.voice import telephone, to_pcm

    with tempfile.NamedTemporaryFile(suffix=".wav") as out:
        subprocess.run([out.name if part == "{wav}" else part for part in command], check=True, capture_output=True)
        with wave.open(out.name) as w:
            audio = np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float32) / 32768
            made_at = w.getframerate()
    return to_pcm(telephone(audio / (np.max(np.abs(audio)) or 1.0) * 0.7, made_at, rate))


def voices(runtime, rate: int) -> dict:
    """Each voice on this machine: a function from text to line audio."""
    from appliance.simulate.spoken_call import CallerVoice
    from voice.read_back import steady_voice

    found = {"piper": lambda text: steady_voice(runtime, text, rate), "piper-varied": CallerVoice(runtime, rate).audio}
    if shutil.which("flite"):
        for name in FLITE:
            found[f"flite-{name}"] = lambda text, name=name: _synthesised(
                ["flite", "-voice", name, "-t", text, "-o", "{wav}"], rate)
    if shutil.which("espeak-ng"):
        for name in ESPEAK:
            found[f"espeak-{name}"] = lambda text, name=name: _synthesised(
                ["espeak-ng", "-v", name, "-w", "{wav}", text], rate)
    return found


async def play(runtime, flow, cases: list[tuple[str, str, float, bytes]], at_once: int) -> list[tuple]:
    from voice.read_back import Say, answer_read_back

    gate = asyncio.Semaphore(at_once)

    async def one(voice: str, said: str, at: float, pcm: bytes):
        async with gate:
            outcome = await answer_read_back(runtime, flow, [Say(pcm, at=at)])
        return voice, said, at, outcome.came_to

    return await asyncio.gather(*(one(*case) for case in cases))


async def sounds(runtime, flow, rate: int) -> dict[str, bool]:
    """Whether each sound that is no answer, made once after a read-back, booked."""
    from voice.noises import breath, cough
    from voice.read_back import Say, answer_read_back, steady_voice

    made = {"a breath": breath(rate), "a cough": cough(rate), "a louder breath": breath(rate, level=0.1, seed=1)}
    made |= {name: steady_voice(runtime, text, rate, gain=gain) for name, (text, gain) in GRUNTS.items()}
    booked = {}
    for name, pcm in made.items():
        outcome = await answer_read_back(runtime, flow, [Say(pcm, at=0.3, answered=False)])
        booked[name] = outcome.booked
    return booked


def report(rows: list[tuple], booked: dict[str, bool], elapsed: float) -> str:
    by_voice: dict[str, Counter] = {}
    wrong: list[str] = []
    for voice, said, at, came in rows:
        tally = by_voice.setdefault(voice, Counter())
        tally["said"] += 1
        expected = ANSWERS[said]
        if came == "lost":
            tally["lost"] += 1
        elif came == "asked again":
            tally["asked again"] += 1
        elif came == expected:
            tally["right"] += 1
        else:
            tally["wrong"] += 1
            wrong.append(f"{voice} {said!r} at {at:+.1f} s came to {came}")
    lines = ["## Short answers at a spoken booking read-back", "",
             f"`python bench/short_answers.py`: {len(ANSWERS)} short answers ({', '.join(ANSWERS)}) in each voice, "
             f"each starting at {', '.join(f'{at:+.1f}' for at in sorted({at for _, _, at, _ in rows}))} s from the read-back's "
             f"last word. {elapsed:.0f} s.", "",
             "| voice | said | right | asked again | lost | wrong |", "|---|---|---|---|---|---|"]
    for voice, tally in by_voice.items():
        lines.append(f"| {voice} | {tally['said']} | {tally['right']} | {tally['asked again']} | {tally['lost']} | "
                     f"{tally['wrong']} |")
    total = sum(by_voice.values(), Counter())
    lines += ["", f"Lost (met with silence): {total['lost']} of {total['said']} (goal 0). "
              f"Taken the wrong way: {total['wrong']} (goal 0){': ' + '; '.join(wrong) if wrong else ''}. "
              "'Asked again' is a transcriber miss the engine re-asks (Whisper base writes Piper's 'mm-hmm' as "
              "'Emma' or 'MMR', and 'uh-huh' as nothing).", "",
              "Sounds that are no answer, after a read-back: "
              + ", ".join(f"{name} {'BOOKED' if b else 'did not book'}" for name, b in booked.items())
              + " (goal: none books)."]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voices", help="comma-separated voice names (default: every voice found)")
    parser.add_argument("--at", default="-0.2,0.1,0.3,2.0", help="moments, in s from the read-back's last word")
    parser.add_argument("--at-once", type=int, default=2, help="calls played side by side")
    args = parser.parse_args()

    from appliance.engine.flow import load_flow
    from appliance.voice import VoiceRuntime, quiet_pipecat
    from voice.spoken import voice_settings

    quiet_pipecat("ERROR")
    runtime = VoiceRuntime(voice_settings(Path(tempfile.mkdtemp(prefix="short-answers-"))), load_llm=False)
    rate = runtime.settings.voice.sample_rate
    flow = load_flow(ROOT / "config" / "flows" / "clinic.yaml")
    found = voices(runtime, rate)
    chosen = args.voices.split(",") if args.voices else list(found)
    missing = [name for name in chosen if name not in found]
    if missing:
        print(f"no such voice here: {', '.join(missing)} (found: {', '.join(found)})", file=sys.stderr)
        return 2
    moments = [float(at) for at in args.at.split(",")]
    cases = [(voice, said, at, found[voice](said)) for voice in chosen for said in ANSWERS for at in moments]
    started = time.perf_counter()
    rows = asyncio.run(play(runtime, flow, cases, args.at_once))
    booked = asyncio.run(sounds(runtime, flow, rate))
    body = report(rows, booked, time.perf_counter() - started)
    print(body)
    write_section("short_answers", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
