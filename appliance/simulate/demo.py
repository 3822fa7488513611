"""The spoken demo call, `simulate --spoken` and the microphone demo, for the command line.

Printing lives here so appliance/cli.py stays a thin layer of options.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import sys
from pathlib import Path

import click

from ..voice import CallEvent, TurnTiming


def load_runtime(settings=None, *, quiet: bool = False):
    """The shared models, with a line on stderr about what loaded (exits 2 with the fix when one is missing)."""
    from ..models import ModelUnavailable
    from ..voice import VoiceRuntime, quiet_pipecat

    quiet_pipecat()
    if not quiet:
        click.echo(click.style("loading the voice models (Whisper, Piper, Silero, Smart Turn)...", dim=True), err=True)
    try:
        runtime = VoiceRuntime.shared(settings)
    except ModelUnavailable as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if not quiet:
        seconds = runtime.report.seconds
        llm = "LLM off" if runtime.language_model is None else "LLM on"
        if runtime.report.llm_problem:
            llm = "LLM unavailable (rules only)"
        click.echo(click.style(f"models ready in {seconds.get('total', 0):.1f} s ({llm})", dim=True), err=True)
    return runtime


def _latency(timing: TurnTiming) -> str:
    parts = []
    if timing.latency_ms is not None:
        parts.append(f"{timing.latency_ms:.0f} ms to first audio")
    detail = []
    if timing.stt_ms is not None:
        detail.append(f"stt {timing.stt_ms:.0f}")
    if timing.engine_ms is not None:
        detail.append(f"engine {timing.engine_ms:.0f}")
    if timing.llm_ms:
        detail.append(f"llm {timing.llm_ms:.0f}")
    if timing.tts_first_audio_ms is not None:
        detail.append(f"tts {timing.tts_first_audio_ms:.0f}")
    if detail:
        parts.append("(" + ", ".join(detail) + " ms)")
    if timing.cut:
        parts.append("cut off by the caller")
    return " ".join(parts)


class LivePrinter:
    """Prints a call as it happens: what the caller said, what was heard, the replies, states and latency."""

    def __init__(self, *, show_said: bool = True):
        self.show_said = show_said

    def said(self, text: str) -> None:
        if self.show_said:
            click.echo(click.style("  caller:       ", fg="yellow") + text)

    def desk(self, text: str) -> None:
        click.echo(click.style("  front desk:   ", fg="magenta") + text)

    def event(self, event: CallEvent) -> None:
        if event.kind == "heard":
            heard = event.text or ("(STT failed)" if event.data.get("stt_failed") else "(no words)")
            click.echo(click.style(f"      heard as: {heard}", dim=True))
        elif event.kind == "filler":
            click.echo(click.style("      (filler while the engine works)", dim=True))
        elif event.kind == "barge_in":
            click.echo(click.style("      (the caller spoke over the agent: agent stopped)", dim=True))
        elif event.kind == "failure":
            click.echo(click.style(f"      ({event.text} failed; the call carries on)", fg="red"))
        elif event.kind == "desk_leg":
            data = event.data
            if data.get("brief"):
                self.desk(f'brief to the desk: "{data["brief"]}"')
            if data.get("connected"):
                self.desk(f"connected: the front desk is joined with the caller after {data.get('waited_s')} s")
            else:
                self.desk(f"not connected ({data.get('answer')}): back to the caller")
        elif event.kind == "turn" and event.timing is not None:
            timing = event.timing
            click.echo(click.style("  receptionist: ", fg="cyan") + timing.agent_text)
            line = f"      [{timing.state} · waiting for {timing.waiting_for}"
            latency = _latency(timing)
            click.echo(click.style(line + (f" · {latency}" if latency else "") + "]", dim=True))


def spoken_demo(scenario, clinic, flow, *, db_path: Path, wav_path: Path, fast: bool, label: str,
                sip: bool = False) -> int:
    """The demo call through the voice pipeline; `sip`: as a real SIP call on loopback (the phone service
    answers, a caller agent process calls it)."""
    from ..events import serve_for_demo
    from .spoken_call import play_spoken

    runtime = load_runtime()
    publisher = serve_for_demo(db_path)   # `appliance monitor` in another terminal shows this call live
    printer = LivePrinter()
    how = "over SIP on loopback" if sip else "faster than real time" if fast else "real time"
    click.echo(click.style(f"{clinic.profile().name}: spoken demo call from {scenario.caller_id or 'a withheld number'}"
                           f" ({how})", bold=True))
    if sip:
        from .demo_desk import DemoDesk
        from .sip_call import SipLine, play_over_sip

        desk = DemoDesk(runtime, say=printer.desk)     # the front desk's phone, a second SIP party
        with SipLine(flow, runtime, max_calls=1, desk_uri=desk.uri) as line:
            result = asyncio.run(desk.around(play_over_sip(
                (scenario, clinic), flow, runtime, line=line, db_path=db_path, on_event=printer.event,
                on_said=printer.said, label=label, record=wav_path, publisher=publisher,
                on_joined=desk.caller_joined)))
    else:
        result = asyncio.run(play_spoken((scenario, clinic), flow, runtime, fast=fast, db_path=db_path,
                                         on_event=printer.event, on_said=printer.said, label=label, keep_tape=True,
                                         publisher=publisher))
    publisher.close(linger=1.0)
    summary = result.summary
    if summary is not None and result.tape is not None:
        result.tape.write_wav(wav_path)
    click.echo(click.style(f"call ended: outcome {result.verdict.outcome}; record in {db_path}", bold=True))
    if summary is not None:
        latencies = [t.latency_ms for t in summary.timings if t.latency_ms is not None and not t.cut]
        if summary.greeting_delay_ms is not None:
            click.echo(f"greeting started {summary.greeting_delay_ms:.0f} ms after the call was up")
        if latencies:
            click.echo(f"end of caller speech to first agent audio: median {statistics.median(latencies):.0f} ms, "
                       f"worst {max(latencies):.0f} ms over {len(latencies)} turns")
        click.echo(f"caller word error rate {result.word_errors.rate:.0%} "
                   f"({result.word_errors.errors} of {result.word_errors.words} words)")
        click.echo(f"both sides of the call: {wav_path} (caller left, agent right)")
    click.echo(result.verdict.line())
    return 0 if result.verdict.passed else 1


def simulate_spoken(files: list[Path], flow, *, as_json: bool, fast: bool, sip: bool = False,
                    caller=None) -> int:
    """Every scenario as a spoken call by `caller` (a CallerSetup: voice, line, seed): through the in-memory
    line, or (`sip`) as SIP calls on loopback. A voice this machine lacks, or a clean line over SIP, exits 2
    with the fix before any model loads."""
    from .caller_voices import VoiceUnavailable, check_voice
    from .runner import run_scenario
    from .sip_call import LineNotOverSip, check_sip_line
    from .caller_speech import CallerSetup
    from .spoken_call import play_spoken
    from .word_error import WordErrors

    caller = caller or CallerSetup()
    try:
        check_voice(caller.voice)
        if sip:
            check_sip_line(caller)
    except (VoiceUnavailable, LineNotOverSip) as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    runtime = load_runtime(quiet=as_json)
    if not as_json:
        click.echo(click.style(f"caller voice {caller.voice} on a {caller.line} line", dim=True), err=True)
    passed = failed = 0
    text_passed = spoken_of_text = 0
    errors = WordErrors(0, 0)
    latencies: list[float] = []

    async def run_all():
        nonlocal passed, failed, text_passed, spoken_of_text, errors
        for path in files:
            in_text = run_scenario(path, flow).passed
            if line is not None:
                result = await play_over_sip(path, flow, runtime, line=line, caller=caller)
            else:
                result = await play_spoken(path, flow, runtime, fast=fast, caller=caller)
            ok = result.verdict.passed
            passed += ok
            failed += not ok
            text_passed += in_text
            spoken_of_text += ok and in_text
            errors = errors + result.word_errors
            turns = [t.latency_ms for t in (result.summary.timings if result.summary else [])
                     if t.latency_ms is not None and not t.cut]
            latencies.extend(turns)
            if as_json:
                data = result.verdict.as_json()
                data.update({"caller_voice": caller.voice, "line": caller.line, "passes_in_text": in_text,
                             "said": result.said, "heard": result.heard,
                             "word_errors": result.word_errors.errors, "words": result.word_errors.words,
                             "wer": round(result.word_errors.rate, 4),
                             "latency_ms": [round(x) for x in turns]})
                click.echo(json.dumps(data, default=str))
            else:
                click.echo(f"{result.verdict.line()}  [WER {result.word_errors.rate:.0%} of "
                           f"{result.word_errors.words} words]")

    line = None
    if sip:
        from .sip_call import SipLine, play_over_sip

        line = SipLine(flow, runtime).start()
    try:
        asyncio.run(run_all())
    finally:
        if line is not None:
            line.stop()
    if not as_json:
        click.echo(f"{passed} passed, {failed} failed")
        click.echo(f"spoken passed {spoken_of_text} of the {text_passed} scenarios that pass in text; "
                   f"caller word error rate {errors.rate:.1%} over {errors.words} words")
        if latencies:
            ordered = sorted(latencies)
            p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
            click.echo(f"end of speech to first agent audio: p50 {statistics.median(ordered):.0f} ms, "
                       f"p95 {p95:.0f} ms over {len(ordered)} turns")
    return 0 if failed == 0 else 1


def mic_demo(clinic_file: Path, flow, *, db_path: Path) -> int:
    """Talk to the receptionist through the local microphone and speaker (Pipecat's local audio transport)."""
    problem = _audio_device_problem()
    if problem:
        click.echo(f"error: {problem}", err=True)
        return 2
    from pipecat.transports.local.audio import LocalAudioTransport, LocalAudioTransportParams

    from ..clinic import load_clinic_file
    from ..engine.clock import ClinicClock
    from ..engine.engine import Engine
    from ..engine.types import CallInfo
    from ..store.clinic_store import ClinicStore
    from ..store.database import open_database
    from ..store.records import CallRecorder
    from ..voice import EngineHost, VoiceCall, clinic_lines_for

    runtime = load_runtime()
    rate = runtime.settings.voice.sample_rate
    clinic = load_clinic_file(clinic_file)
    host = EngineHost("mic")

    def build():
        db = open_database(db_path)
        store = ClinicStore(db)
        store.load_clinic(clinic)
        clock = ClinicClock(store.profile().timezone)
        engine = Engine(flow=flow, store=store, clock=clock, recorder=CallRecorder(db), classifier=runtime.classifier)
        return engine, clinic_lines_for(flow, store, clock)

    for suffix in ("", "-wal", "-shm"):
        Path(str(db_path) + suffix).unlink(missing_ok=True)
    engine, clinic_lines = host.run(build)
    runtime.warm_clinic(clinic_lines, rate, flow)
    params = LocalAudioTransportParams(audio_in_enabled=True, audio_out_enabled=True, audio_in_sample_rate=rate,
                                       audio_out_sample_rate=rate, audio_out_end_silence_secs=0)
    printer = LivePrinter(show_said=False)
    click.echo(click.style("speak to the receptionist; Ctrl-C hangs up", bold=True))

    async def run():
        call = VoiceCall(runtime, transport=LocalAudioTransport(params), host=host, engine=engine, rate=rate,
                         call_info=CallInfo(caller_id=""), on_event=printer.event, call_id="mic")
        task = asyncio.create_task(call.run())
        try:
            return await asyncio.shield(task)
        except (KeyboardInterrupt, asyncio.CancelledError):
            await call.hang_up()
            return await task

    try:
        summary = asyncio.run(run())
    except KeyboardInterrupt:
        summary = None
    finally:
        host.close()
    outcome = summary.outcome if summary else "abandoned"
    click.echo(click.style(f"call ended: outcome {outcome}; record in {db_path}", bold=True))
    return 0


def _audio_device_problem() -> str | None:
    try:
        import pyaudio
    except ImportError:
        return ("`appliance demo --mic` needs PyAudio for Pipecat's local audio transport, and it is not installed: "
                "apt-get install portaudio19-dev && .venv/bin/pip install 'pipecat-ai[local]==1.14.0'. "
                "`appliance demo` plays the spoken demo call without a sound card.")
    with _native_stderr_silenced():  # ALSA and JACK print pages of probing noise on a box without sound
        audio = pyaudio.PyAudio()
        try:
            missing = []
            for kind, getter in (("microphone", audio.get_default_input_device_info),
                                 ("speaker", audio.get_default_output_device_info)):
                try:
                    getter()
                except (IOError, OSError):
                    missing.append(kind)
            count = audio.get_device_count()
        finally:
            audio.terminate()
    if missing:
        return (f"no audio device: this machine has no {' and no '.join(missing)} (PortAudio sees {count} "
                "device(s)). `appliance demo` plays the spoken demo call without a sound card.")
    return None


@contextlib.contextmanager
def _native_stderr_silenced():
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)

