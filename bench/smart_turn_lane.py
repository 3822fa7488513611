"""Does Smart Turn belong on a scheduler lane? Its cost per question, alone and beside Whisper, and how often a
wave of calls asks it and how long each ask waits on its one thread.

    python bench/smart_turn_lane.py [--width 4] [--no-write]

Smart Turn is one ONNX session and one thread for the box (`voice/turn_detection.py`), asked only where the
question is open (`turn_analyzer.py`). On Whisper's lane an ask would wait for the decode under way; on a lane of
its own it would run in the same order as on its thread. Writes the `smart-turn-lane` section of
bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from latency import DEFAULT_SET, load_average, percentile, scenario_source  # noqa: E402
from results_file import write_section  # noqa: E402

LINE = "Hi, I'd like to book a remedial massage please, on Thursday afternoon if you can, with Mia if she is free"


def median_ms(fn, times: int) -> float:
    fn()   # warm
    spent = []
    for _ in range(times):
        started = time.perf_counter()
        fn()
        spent.append((time.perf_counter() - started) * 1000)
    return statistics.median(spent)


def alongside(background, fn, times: int) -> float:
    """`fn`'s median while `background` runs over and over on another thread."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            background()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        return median_ms(fn, times)
    finally:
        stop.set()
        thread.join()


class TimedAsks:
    """Smart Turn's executor, noting when each ask was queued, started and ended."""

    def __init__(self, executor):
        self.executor = executor
        self.asks: list[tuple[float, float, float]] = []

    def submit(self, fn, *args, **kwargs):
        queued = time.perf_counter()

        def run():
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.asks.append((queued, started, time.perf_counter()))

        return self.executor.submit(run)

    def __getattr__(self, name):
        return getattr(self.executor, name)


async def wave(runtime, flow, width: int):
    from appliance.simulate.spoken_call import SpokenResult, play_prepared, prepare_spoken

    prepared = [await prepare_spoken(scenario_source(path), flow, runtime, label=str(path), fast=False)
                for path in DEFAULT_SET[:width]]
    started = time.perf_counter()
    results = await asyncio.gather(*(play_prepared(path, rig) for path, rig in prepared
                                     if not isinstance(rig, SpokenResult)))
    return results, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=4, help="Calls at once (at most the default set's 4).")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    from appliance.engine.flow import load_flow
    from appliance.voice.audio import telephone, to_float, to_pcm
    from appliance.voice.runtime import VoiceRuntime, quiet_pipecat

    quiet_pipecat("ERROR")
    load_before = load_average()
    runtime = VoiceRuntime.shared()
    smart_turn = runtime.smart_turn
    if smart_turn is None:
        print("Smart Turn is off in the settings: nothing to measure", file=sys.stderr)
        return 1
    rate = runtime.settings.voice.sample_rate
    audio, voice_rate = runtime.synthesizer.speak_float(LINE)
    pcm = to_pcm(telephone(audio * 0.8, voice_rate, rate))
    speech = to_float(pcm)
    alone = {secs: median_ms(lambda clip=speech[: secs * rate]: smart_turn.probability(clip, rate), 8)
             for secs in (1, 3, 8)}
    three = speech[: 3 * rate]
    whisper_alone = median_ms(lambda: runtime.transcriber.transcribe(pcm, rate), 4)
    turn_beside_whisper = alongside(lambda: runtime.transcriber.transcribe(pcm, rate),
                                    lambda: smart_turn.probability(three, rate), 12)
    whisper_beside_turn = alongside(lambda: smart_turn.probability(three, rate),
                                    lambda: runtime.transcriber.transcribe(pcm, rate), 4)

    timed = smart_turn.executor = TimedAsks(smart_turn.executor)
    flow = load_flow(Path(__file__).resolve().parents[1] / "config" / "flows" / "clinic.yaml")
    results, seconds = asyncio.run(wave(runtime, flow, args.width))
    ran = [(end - start) * 1000 for _, start, end in timed.asks]
    waited = [(start - queued) * 1000 for queued, start, _ in timed.asks]
    busy = sum(ran) / 1000
    body = "\n".join([
        "## Smart Turn: its own thread or a scheduler lane (`bench/smart_turn_lane.py`)",
        "",
        f"Load average before the run: {load_before} (2 cores shared: every figure is inflated by other work).",
        f"Smart Turn alone, per question: {alone[1]:.0f} ms (1 s of speech), {alone[3]:.0f} ms (3 s), "
        f"{alone[8]:.0f} ms (8 s). Whisper alone on a {len(speech) / rate:.1f} s line: {whisper_alone:.0f} ms.",
        f"Side by side: Smart Turn (3 s) while Whisper decodes without a break {turn_beside_whisper:.0f} ms; Whisper "
        f"while Smart Turn is asked without a break {whisper_beside_turn:.0f} ms.",
        f"{args.width} calls at once ({seconds:.0f} s, {sum(r.verdict.passed for r in results)}/{len(results)} "
        f"passed): Smart Turn asked {len(ran)} times, "
        + (f"each {percentile(ran, 50):.0f} ms at the median ({percentile(ran, 95):.0f} p95), queued on its thread "
           f"{percentile(waited, 50):.0f} ms at the median ({max(waited):.0f} ms at most); busy {busy:.1f} s, "
           f"{100 * busy / seconds:.1f}% of one core." if ran else "never."),
        "",
        "On Whisper's one worker each ask would first wait for the decode under way (Whisper's figure above); a lane "
        "of its own would run the asks in the order its one thread already does. Smart Turn keeps its thread.",
    ])
    print(body)
    if not args.no_write:
        write_section("smart-turn-lane", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
