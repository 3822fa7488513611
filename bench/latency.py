"""Voice latency: spoken scenarios through the whole pipeline, in real time, 1, 2 and 4 calls at once.

    python bench/latency.py [--concurrency 1,2,4] [--quick] [SCENARIO ...]

Every call is a real-time spoken call on the in-memory line (caller lines
synthesised with Piper and squeezed to 8 kHz, agent audio paced as a phone
plays it) with the default models from the settings. The same set of
scenarios is played at each level, in waves of N simultaneous calls, so the
levels carry the same work.

Latency is read off the call's recording (`appliance/simulate/reply_gaps.py`):
from the last sound of each caller line to the agent's first sound after it,
on the line the caller hears. Interruptions are agent starts inside a caller
line. Beside it, the pipeline's own events give what the wait is made of
(the VAD's lag, turn-end wait, STT after the turn end, the hand-over hold, queue wait, engine, TTS first audio,
the line out to the first sound; `--timeline`: each reply's steps on the audio clock), greeting
delay, STT and TTS real-time factors, LLM first-token time, the appliance's
peak RSS (the simulated callers' voices measured and left out). Each wave's
callers are prepared (their lines synthesised) before its calls start.
Writes the `latency` section of bench/RESULTS.md (`--no-write`: prints it).

Goals on the 2-core CPU (issue 17): 1 call p50 <= 450 ms and p95 <= 800 ms, 4 calls p95 <= 1.1 s,
greeting <= 150 ms, no more interruptions than before, RSS <= 1.2 GB.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from reply_timeline import STEPS, median_at, median_steps, reply_timelines, table  # noqa: E402
from results_file import write_section  # noqa: E402

DEFAULT_SET = [
    ROOT / "config" / "demo" / "demo-call.yaml",
    ROOT / "tests" / "voice" / "hours-then-goodbye.yaml",
    ROOT / "tests" / "scenarios" / "cancel-single-appointment.yaml",
    ROOT / "tests" / "scenarios" / "question-price-only.yaml",
]
GOALS = {"p50": 450.0, "p95": 800.0, "p95_4": 1100.0, "greeting": 150.0, "rss": 1220.0}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def scenario_source(path: Path):
    """A scenario file; the demo call borrows the demo clinic when it has none of its own."""
    import yaml

    from appliance import paths
    from appliance.simulate.scenario import scenario_from_mapping

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if isinstance(data, dict) and "clinic" not in data:
        data["clinic"] = yaml.safe_load(paths.clinic_path().read_text(encoding="utf-8"))
    return scenario_from_mapping(data)


def component_figures(runtime) -> dict[str, float | None]:
    """STT and TTS real-time factors and the LLM's first-token time, one thing at a time."""
    from appliance.voice.audio import telephone, to_pcm

    rate = runtime.settings.voice.sample_rate
    lines = ["Hi, I'd like to book a remedial massage please", "the fourth of March, nineteen eighty five",
             "Neutral Bay please", "no, that's all, thanks"]
    replies = ["Thanks, Sarah. And your date of birth?",
               "I have Thursday the 26th at 12 pm or 12:15 pm, with Mia Nguyen at our Neutral Bay clinic. "
               "Which would you like?"]
    stt_rtf, tts_rtf, tts_first = [], [], []
    for line in lines:
        audio, voice_rate = runtime.synthesizer.speak_float(line)
        pcm = to_pcm(telephone(audio * 0.8, voice_rate, rate))
        runtime.transcriber.transcribe(pcm, rate)  # warm
        heard = runtime.transcriber.transcribe(pcm, rate)
        stt_rtf.append(heard.rtf)
    for reply in replies:
        started = time.perf_counter()
        first = None
        total = b""
        for pcm in runtime.synthesizer.sentences(reply, rate):
            first = first if first is not None else time.perf_counter() - started
            total += pcm
        elapsed = time.perf_counter() - started
        tts_rtf.append(elapsed / (len(total) / 2 / rate))
        tts_first.append(first * 1000)
    figures: dict[str, float | None] = {
        "stt_rtf": statistics.median(stt_rtf), "tts_rtf": statistics.median(tts_rtf),
        "tts_first_ms": statistics.median(tts_first), "llm_first_token_ms": None, "llm_classify_ms": None,
    }
    model = runtime.language_model
    if model is not None:
        questions = ["Is the clinic open on Saturday?", "Do you do massages?", "Where do I park?",
                     "Can I bring my son along?", "How long is a first visit?", "Do you take cash?"]

        def ask(question: str) -> None:
            model.chat([{"role": "system", "content": "You answer a clinic's callers briefly."},
                        {"role": "user", "content": question}], max_tokens=1)

        ask(questions[0])  # warm: the system prompt is evaluated once and kept, as in service
        firsts = []
        for question in questions[1:]:  # a new question each time: its tokens are evaluated, then one token out
            started = time.perf_counter()
            ask(question)
            firsts.append((time.perf_counter() - started) * 1000)
        figures["llm_first_token_ms"] = statistics.median(firsts)
        if runtime.classifier is not None:
            allowed = ("book", "price", "hours", "human")
            runtime.classifier("I was hoping to sort out a time to come in", allowed)
            started = time.perf_counter()
            runtime.classifier("could somebody ring me about my invoice", allowed)
            figures["llm_classify_ms"] = (time.perf_counter() - started) * 1000
    return figures


async def run_level(runtime, flow, sources, width: int, call_class=None) -> dict:
    """The scenarios in waves of `width` calls at once; `call_class`: another pipeline (the stock one)."""
    from appliance.voice.runtime import peak_rss_mb
    from appliance.simulate.reply_gaps import first_agent_sound_s, reply_gaps
    from appliance.simulate.spoken_call import SpokenResult, play_prepared, prepare_spoken

    results = []
    appliance_mb: list[float] = []
    started = time.perf_counter()
    for wave in range(0, len(sources), width):
        batch = sources[wave: wave + width]
        extra = {"call_class": call_class} if call_class is not None else {}
        release_freed_memory()
        # every caller of the wave synthesises its lines before any call starts (one after another, so each one's
        # memory is measured alone): no call then competes with a simulated caller's voice for the CPU
        prepared = [await prepare_spoken(source, flow, runtime, label=str(path), fast=False, **extra)
                    for path, source in batch]
        rigs = [(path, rig) for path, rig in prepared if not isinstance(rig, SpokenResult)]
        results.extend(rig for _, rig in prepared if isinstance(rig, SpokenResult))
        callers_mb = sum(rig.caller_mb or 0.0 for _, rig in rigs)
        with RssSampler() as rss:
            results.extend(await asyncio.gather(*(play_prepared(path, rig, keep_tape=True) for path, rig in rigs)))
        if rss.peak_mb is not None:
            appliance_mb.append(rss.peak_mb - callers_mb)
    timings = [t for r in results if r.summary for t in r.summary.timings]
    replies = [t for t in timings if t.kind == "reply" and t.latency_ms is not None and not t.cut]
    by_events = [t.latency_ms for t in replies]
    gaps = [gap for r in results if r.tape is not None for gap in reply_gaps(r.tape)]
    latencies = [gap.latency_ms for gap in gaps if gap.latency_ms is not None]
    greetings = [r.summary.greeting_delay_ms for r in results if r.summary and r.summary.greeting_delay_ms]
    heard_greetings = [first_agent_sound_s(r.tape) for r in results if r.tape is not None]
    heard_greetings = [s * 1000 for s in heard_greetings if s is not None]
    def wait(t):  # quiet heard before the turn was called over (VAD pause, Smart Turn, the rest of the quiet)
        return (t.turn_end - t.speech_end) * 1000

    def decoded(t):  # the transcript ready (the hand-over's hold follows it)
        return min(t.heard_at, t.decoded_at or t.heard_at)

    def stt_after(t):  # STT still running after the turn was called over (it may start at the pause)
        return max(0.0, (decoded(t) - t.turn_end) * 1000)

    def hold(t):  # the listener's wait for HANDOVER_QUIET_S of quiet, in case the caller goes on (a reply started
        # ahead of the hand-over waited only until it started)
        until = min(t.heard_at, t.agent_start) if t.spoken_ahead and t.agent_start else t.heard_at
        return max(0.0, (until - max(t.turn_end, decoded(t))) * 1000)

    def after_hold(t):  # the engine and the first phrase: worked out during the hold for a reply started ahead
        return 0.0 if t.spoken_ahead else (t.engine_ms or 0) + (t.tts_first_audio_ms or 0)

    complete = [t for t in replies if t.turn_end and t.heard_at]
    timelines = [line for r in results if r.tape is not None and r.summary
                 for line in reply_timelines(r.tape, r.summary.timings, vad_pause_s(runtime))]

    def vad_lag(line):  # the caller's last sound to where the listener puts the end of speech (its VAD's stop
        at = line.at_ms  # less the VAD's pause): the VAD's own lag, which no pipeline event shows
        return None if at["vad stop"] is None else at["vad stop"] - vad_pause_s(runtime) * 1000

    def line_out(line):  # the playback mark to the reply's first sound on the line: transport and leading silence
        at = line.at_ms
        return None if at["played"] is None else at["first sound"] - at["played"]

    parts = {
        "VAD lag": [v for v in map(vad_lag, timelines) if v is not None],
        "turn-end wait": [wait(t) for t in complete],
        "STT after turn end": [stt_after(t) for t in complete],
        "hand-over hold": [hold(t) for t in complete],
        "STT processing": [t.stt_ms for t in complete if t.stt_ms is not None],
        "queue wait": [t.queue_ms for t in complete if t.queue_ms is not None],
        "engine (+LLM)": [t.engine_ms for t in complete if t.engine_ms is not None],
        "TTS first audio": [t.tts_first_audio_ms for t in complete if t.tts_first_audio_ms is not None],
        "queues and hand-offs": [t.latency_ms - wait(t) - stt_after(t) - hold(t) - after_hold(t) for t in complete],
        "line out": [v for v in map(line_out, timelines) if v is not None],
    }
    return {
        "width": width, "calls": len(results), "passed": sum(r.verdict.passed for r in results),
        "failures": [r.verdict.line() for r in results if not r.verdict.passed],
        "speculative": sum(t.stt_speculative for t in complete), "replies_timed": len(complete),
        "ahead": sum(t.spoken_ahead for t in complete),
        "taken_back": sum(r.summary.taken_back for r in results if r.summary),
        "turns": len(latencies), "p50": percentile(latencies, 50) if latencies else None,
        "p95": percentile(latencies, 95) if latencies else None, "max": max(latencies) if latencies else None,
        "interruptions": sum(gap.interrupted for gap in gaps), "lines": len(gaps),
        "events_p50": percentile(by_events, 50) if by_events else None,
        "events_p95": percentile(by_events, 95) if by_events else None,
        "greeting": max(greetings) if greetings else None,
        "greeting_heard": max(heard_greetings) if heard_greetings else None,
        "greeting_p50": statistics.median(greetings) if greetings else None,
        "parts": {name: statistics.median(values) if values else None for name, values in parts.items()},
        "fillers": sum(t.filler for t in timings),
        "wer": sum(r.word_errors.errors for r in results) / max(1, sum(r.word_errors.words for r in results)),
        "rss": max(appliance_mb) if appliance_mb else None, "process_rss": peak_rss_mb(),
        "seconds": time.perf_counter() - started, "load": load_average(), "timelines": timelines,
    }


def vad_pause_s(runtime) -> float:
    """The quiet after which the listener's VAD reports a stop (its pause with Smart Turn on)."""
    from appliance.voice.listener import SMART_TURN_PAUSE_S

    voice = runtime.settings.voice
    return min(SMART_TURN_PAUSE_S, voice.vad_stop_secs) if runtime.smart_turn is not None else voice.vad_stop_secs


def release_freed_memory() -> None:
    """Collect garbage and hand freed heap back to the system, so a wave's memory is not the last wave's too."""
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):   # not glibc: the figure is only a little high
        pass


class RssSampler:
    """The process's resident memory, read every 50 ms on a thread while a wave of calls runs; `peak_mb`."""

    def __init__(self, every_s: float = 0.05):
        import threading

        self.every_s = every_s
        self.peak_mb: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="rss-sampler", daemon=True)

    def _sample(self) -> None:
        from appliance.voice.runtime import current_rss_mb

        while True:
            now = current_rss_mb()
            if now is not None:
                self.peak_mb = max(self.peak_mb or 0.0, now)
            if self._stop.wait(self.every_s):
                return

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def fmt(value, unit="ms", digits=0) -> str:
    return "-" if value is None else f"{value:.{digits}f}{(' ' + unit) if unit else ''}"


def comparison(one: dict, stock: dict) -> list[str]:
    """The appliance's pipeline beside Pipecat's stock assembly, on the same scenarios in the same run."""
    ratio = stock["p50"] / one["p50"] if one["p50"] and stock["p50"] else None
    return [
        "", "Side by side at 1 call, the same scenarios in the same run: the appliance's pipeline and the same "
        "call assembled from Pipecat's own parts with their defaults (`bench/stock_pipeline.py`: "
        "`SileroVADAnalyzer()`, `WhisperSTTService` on the same CTranslate2 folder, Pipecat's default user turn "
        "strategies (Smart Turn v3), `PiperTTSService` on the same joe voice file; both load offline from the "
        "local files). It is the appliance's own `VoiceCall` with `[voice] stt_service = \"whisper\"` and "
        "`tts_service = \"piper\"`: the two differ only in the VAD's settings, the STT service (decoding while "
        "the caller speaks, the question's prompt), the turn analyser (told the question) and the TTS service "
        "(phrase by phrase, the speech cache).", "",
        "| pipeline | replies | heard p50 | p95 | interruptions | greeting (worst) | scenarios passed | caller WER |",
        "|---|---|---|---|---|---|---|---|",
        *(f"| {name} | {level['turns']} | {fmt(level['p50'])} | {fmt(level['p95'])} | {level['interruptions']} "
          f"| {fmt(level['greeting'])} | {level['passed']}/{level['calls']} | {level['wer']:.1%} |"
          for name, level in (("appliance", one), ("stock Pipecat", stock))),
        "",
        f"Stock p50 / appliance p50: {ratio:.2f} (goal: at least 1.6)." if ratio else "Ratio: not measured.",
    ]


def report(args, runtime, load_s: float, figures: dict, levels: list[dict], load_before: str,
           stock: dict | None = None) -> str:
    one = next((level for level in levels if level["width"] == 1), levels[0])
    settings = runtime.settings
    lines = [
        "## Voice latency: spoken scenarios through the pipeline (`bench/latency.py`)",
        "",
        f"{platform.python_implementation()} {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} cores, device {settings.device.device}; STT {settings.models.stt} "
        f"({settings.device.stt_compute_type}, beam {settings.voice.stt_beam_size}), TTS {settings.models.tts}, "
        f"LLM {'on' if runtime.language_model is not None else 'off'} "
        f"(classify {settings.llm.classify}, rephrase {settings.llm.rephrase}), Smart Turn {settings.voice.smart_turn}, "
        f"VAD stop {settings.voice.vad_stop_secs} s, speak ahead {settings.voice.speak_ahead_s} s, "
        f"rate {settings.voice.sample_rate} Hz.",
        f"Scenarios: {', '.join(p.name for p in args.scenarios)}, played in real time at each level "
        f"(waves of N simultaneous calls). Models loaded in {load_s:.1f} s. "
        f"Load average before the run: {load_before} (other work on the box inflates every figure).",
        "",
        "End of caller speech to the agent's first sound, read off the recording of each call (the caller's last "
        "sound of a line to the agent's next sound); the pipeline's own events (VAD end of speech to the playback "
        "mark) beside it. An interruption is the agent starting inside a caller line.",
        "",
        "| calls at once | replies | heard p50 | p95 | max | by events p50 / p95 | interruptions (of lines) "
        "| greeting (worst) | fillers | scenarios passed | caller WER | appliance peak RSS | process peak RSS "
        "| load avg after |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for level in levels:
        lines.append(
            f"| {level['width']} | {level['turns']} | {fmt(level['p50'])} | {fmt(level['p95'])} | {fmt(level['max'])} "
            f"| {fmt(level['events_p50'], '')} / {fmt(level['events_p95'])} "
            f"| {level['interruptions']} ({level['lines']}) "
            f"| {fmt(level['greeting'])} | {level['fillers']} | {level['passed']}/{level['calls']} "
            f"| {level['wer']:.1%} | {fmt(level['rss'], 'MiB')} | {level['process_rss']:.0f} MiB | {level['load']} |")
    lines += ["", "Median make-up of a reply's latency (ms):", "",
              "| calls at once | " + " | ".join(levels[0]["parts"]) + " |",
              "|---|" + "---|" * len(levels[0]["parts"])]
    for level in levels:
        lines.append(f"| {level['width']} | " + " | ".join(fmt(v, '') for v in level["parts"].values()) + " |")
    lines += ["", "Appliance peak RSS: the process's resident memory sampled every 50 ms while a wave of calls ran, "
              "less the memory the wave's simulated callers took (each caller's own Piper session and its lines, "
              "measured as the growth of resident memory while that caller was prepared, one caller at a time, "
              "before the wave started; freed memory handed back to the system before each wave). Process peak RSS "
              "is the whole process's high-water mark so far (models, every level's callers, the harness)."]
    lines += ["", "VAD lag is the caller's last sound on the recording to where the listener puts the end of speech "
              "(the VAD's stop less its pause): the pipeline's events start their clock there, so the 'by events' "
              "figure leaves it out. Line out is the playback mark to the reply's first sound on the recording (the "
              "output transport's hand-off and any quiet before the voice's first sound). Each reply's whole "
              "timeline on the audio clock: `--timeline` (bench/reply_timeline.py)."]
    lines += ["", "STT after turn end is the decode still running when the turn was called over; hand-over hold is "
              "the listener's wait for the quiet that keeps a sentence whole, after the transcript is ready; queue "
              "wait is the time the turn's decode and the reply's speech waited on the box's scheduler "
              "(appliance/voice/scheduler.py). Transcripts taken from a decode started at a pause: "
              + ", ".join(f"{level['speculative']} of {level['replies_timed']} at {level['width']}" for level in levels)
              + ". Replies that started playing ahead of the hand-over (`[voice] speak_ahead_s`: their hold is counted "
              "until the reply started, and the engine and first phrase were worked out during it): "
              + ", ".join(f"{level['ahead']} of {level['replies_timed']} at {level['width']}" for level in levels)
              + "; taken back because the caller went on: "
              + ", ".join(f"{level['taken_back']} at {level['width']}" for level in levels) + "."]
    lines += ["", "One thing at a time (no calls running):", "",
              f"- STT real-time factor {figures['stt_rtf']:.2f} (median over caller lines at 8 kHz quality)",
              f"- TTS real-time factor {figures['tts_rtf']:.3f}; first audio of a reply {fmt(figures['tts_first_ms'])}",
              f"- LLM first token {fmt(figures['llm_first_token_ms'])}; one classification "
              f"{fmt(figures['llm_classify_ms'])}" if figures["llm_first_token_ms"] is not None
              else "- LLM: not loaded (" + (runtime.report.llm_problem or "off in the settings") + ")",
              ""]
    four = next((level for level in levels if level["width"] == 4), None)
    goals = [
        (f"p50 <= {GOALS['p50']:.0f} ms (1 call)", one["p50"], GOALS["p50"]),
        (f"p95 <= {GOALS['p95']:.0f} ms (1 call)", one["p95"], GOALS["p95"]),
        (f"p95 <= {GOALS['p95_4']:.0f} ms (4 calls)", four["p95"] if four else None, GOALS["p95_4"]),
        (f"greeting <= {GOALS['greeting']:.0f} ms (every level)",
         max((l["greeting"] for l in levels if l["greeting"] is not None), default=None), GOALS["greeting"]),
        (f"appliance peak RSS <= {GOALS['rss']:.0f} MiB",
         max((l["rss"] for l in levels if l["rss"] is not None), default=None), GOALS["rss"]),
    ]
    lines.append("Goals: " + "; ".join(
        f"{name}: " + ("not measured" if value is None else f"{value:.0f}, {'met' if value <= goal else 'NOT met'}")
        for name, value, goal in goals) + ".")
    parts = one["parts"]
    known = {k: v for k, v in parts.items() if v is not None and k not in ("STT processing", "queue wait")}
    if known:
        top = max(known, key=known.get)
        lines.append(f"At 1 call the largest share of a reply's wait is {top} ({known[top]:.0f} ms median).")
    for level in levels:
        if level["failures"]:
            lines.append(f"Failed at {level['width']} at once: " + "; ".join(level["failures"]))
    if stock is not None:
        lines += comparison(one, stock)
        if stock["failures"]:
            lines.append("Failed in the stock assembly: " + "; ".join(stock["failures"]))
    return "\n".join(lines)


def timeline_report(level: dict) -> str:
    """Each reply's steps at one level, ms after the caller's last sound on the recording, and their medians."""
    timelines = level["timelines"]
    at, steps = median_at(timelines), median_steps(timelines)
    return "\n".join([
        "", f"Reply timelines at {level['width']} call(s) at once, ms after the caller's last sound "
        "(bench/reply_timeline.py):", "", *table(timelines), "",
        "| median | " + " | ".join(STEPS) + " |", "|---|" + "---|" * len(STEPS),
        "| moment | " + " | ".join(fmt(at[n], "") for n in STEPS) + " |",
        "| step | " + " | ".join(fmt(steps[n], "") for n in STEPS) + " |"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="*", type=Path, default=None)
    parser.add_argument("--concurrency", default="1,2,4")
    parser.add_argument("--quick", action="store_true", help="Two scenarios only.")
    parser.add_argument("--no-write", action="store_true", help="Print the section without writing RESULTS.md.")
    parser.add_argument("--timeline", action="store_true", help="Also print each reply's timeline on the audio "
                        "clock (bench/reply_timeline.py), per level.")
    parser.add_argument("--compare", choices=["stock"], help="Also play the scenarios at 1 call through the same "
                        "call assembled from Pipecat's own parts (bench/stock_pipeline.py).")
    args = parser.parse_args()
    args.scenarios = args.scenarios or (DEFAULT_SET[:2] if args.quick else DEFAULT_SET)

    from appliance.engine.flow import load_flow
    from appliance.voice.runtime import VoiceRuntime, quiet_pipecat

    quiet_pipecat("ERROR")
    load_before = load_average()
    started = time.perf_counter()
    runtime = VoiceRuntime.shared()
    load_s = time.perf_counter() - started
    flow = load_flow(ROOT / "config" / "flows" / "clinic.yaml")
    sources = [(path, scenario_source(path)) for path in args.scenarios]
    print(f"models loaded in {load_s:.1f} s; measuring components...", file=sys.stderr)
    figures = component_figures(runtime)
    levels = []
    for width in (int(x) for x in args.concurrency.split(",")):
        print(f"{width} call(s) at once...", file=sys.stderr)
        level = asyncio.run(run_level(runtime, flow, sources, width))
        print(f"  p50 {fmt(level['p50'])}, p95 {fmt(level['p95'])}, greeting {fmt(level['greeting'])}, "
              f"{level['passed']}/{level['calls']} passed, {level['seconds']:.0f} s", file=sys.stderr)
        levels.append(level)
    stock = None
    if args.compare == "stock":
        from stock_pipeline import StockCall

        print("1 call at once, stock Pipecat parts...", file=sys.stderr)
        stock = asyncio.run(run_level(runtime, flow, sources, 1, call_class=StockCall))
        print(f"  p50 {fmt(stock['p50'])}, p95 {fmt(stock['p95'])}, {stock['passed']}/{stock['calls']} passed",
              file=sys.stderr)
    body = report(args, runtime, load_s, figures, levels, load_before, stock)
    print(body)
    if args.timeline:
        for level in levels:
            print(timeline_report(level))
    if not args.no_write:
        write_section("latency", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
