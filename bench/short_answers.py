"""Short answers at a spoken booking read-back: is each one heard, and as the right yes or no?

    python bench/short_answers.py [--voices piper-joe,flite-slt] [--line g711] [--at -0.2,0.1,0.3,2.0] [--seed 0]

A booking is read back on the in-memory line (tests/voice/read_back.py: reached in text, its last second played
in real time) and the caller answers with one short answer, starting `at` seconds after the read-back's last
word ends (negative: over it). Every answer is said in every caller voice the machine has (`caller_voices.py`:
Piper's joe, espeak-ng, flite; a new rendition each time, drawn from the seed) over the line chosen
(`line_conditions.py`); then a few sounds that are no answer at all (a breath, a cough, a soft "uh", a
throat-clear, a breathy "huh"). Counted: answers lost (the engine never got a turn: the caller met silence),
answers taken the wrong way (a yes as a no, or the reverse), and sounds that booked. Writes the `short_answers`
section of bench/RESULTS.md.

Goals: nothing lost, nothing taken the wrong way, no sound books.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results_file import write_section  # noqa: E402

ANSWERS = {"yep": "yes", "yeah": "yes", "yes": "yes", "sure": "yes", "correct": "yes", "uh huh": "yes",
           "that's right": "yes", "go ahead": "yes", "no": "no", "nope": "no", "uh-huh": "yes", "mm-hmm": "yes"}
# said softly, where the caller has nothing to say yet; (text for Piper, gain)
GRUNTS = {"a soft 'uh'": ("uh", 0.3), "a throat-clear": ("ahem", 0.08), "a breathy 'huh'": ("[[ hˈʌ ]]", 0.1)}


def voices(runtime, rate: int, line: str, seed: int) -> dict:
    """Each caller voice this machine has (`caller_voices.py`) over `line`: a function from text to line audio,
    and what the line carries between words."""
    from appliance.simulate.caller_choices import VOICES
    from appliance.simulate.caller_speech import CallerSetup
    from appliance.simulate.caller_voices import VoiceUnavailable

    found = {}
    for name in VOICES:
        try:
            voice = CallerSetup(voice=name, line=line, seed=seed).voice_for(runtime, rate, "short answers")
        except VoiceUnavailable as exc:
            print(f"left out: {exc}", file=sys.stderr)
            continue
        voice.prepare([])
        found[name] = (voice.audio, voice.background())
    return found


async def play(runtime, flow, cases: list[tuple[str, str, float, bytes, bytes | None]], at_once: int) -> list[tuple]:
    from voice.read_back import Say, answer_read_back

    gate = asyncio.Semaphore(at_once)

    async def one(voice: str, said: str, at: float, pcm: bytes, background: bytes | None):
        async with gate:
            outcome = await answer_read_back(runtime, flow, [Say(pcm, at=at)], background=background)
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


def report(rows: list[tuple], booked: dict[str, bool], line: str, elapsed: float) -> str:
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
             f"last word, over a {line} line. {elapsed:.0f} s.", "",
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
    parser.add_argument("--line", default="g711", help="the line the caller speaks over (line_conditions.LINES)")
    parser.add_argument("--seed", type=int, default=0, help="the seed the voices' renditions are drawn from")
    parser.add_argument("--at-once", type=int, default=2, help="calls played side by side")
    args = parser.parse_args()

    from appliance.engine.flow import load_flow
    from appliance.voice import VoiceRuntime, quiet_pipecat
    from voice.spoken import voice_settings

    quiet_pipecat("ERROR")
    runtime = VoiceRuntime(voice_settings(Path(tempfile.mkdtemp(prefix="short-answers-"))), load_llm=False)
    rate = runtime.settings.voice.sample_rate
    flow = load_flow(ROOT / "config" / "flows" / "clinic.yaml")
    found = voices(runtime, rate, args.line, args.seed)
    chosen = args.voices.split(",") if args.voices else list(found)
    missing = [name for name in chosen if name not in found]
    if missing:
        print(f"no such voice here: {', '.join(missing)} (found: {', '.join(found)})", file=sys.stderr)
        return 2
    moments = [float(at) for at in args.at.split(",")]
    cases = [(voice, said, at, found[voice][0](said), found[voice][1])
             for voice in chosen for said in ANSWERS for at in moments]
    started = time.perf_counter()
    rows = asyncio.run(play(runtime, flow, cases, args.at_once))
    booked = asyncio.run(sounds(runtime, flow, rate))
    body = report(rows, booked, args.line, time.perf_counter() - started)
    print(body)
    write_section("short_answers", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
