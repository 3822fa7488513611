"""STT, TTS and LLM failures mid-call: the call carries on and never ends `failed`."""

from __future__ import annotations

import asyncio
import logging

import pytest

pytest.importorskip("pipecat")

from appliance.understanding.utterance import Signal  # noqa: E402
from appliance.simulate.spoken_call import play_spoken  # noqa: E402
from appliance.voice.tts import SpeechFailed  # noqa: E402

from .spoken import scenario, voice_settings  # noqa: E402

# the question twice: one STT slip on it (Whisper base at 8 kHz) must not fail a test about something else
HOURS_THEN_BYE = ["What are your opening hours?", "What are your opening hours?", "No, that's all. Goodbye."]


class FirstTranscriptionFails:
    def __init__(self, real):
        self.real = real
        self.executor = real.executor
        self.calls = 0

    def transcribe(self, pcm, rate, *, hotwords=None):
        self.calls += 1
        if self.calls == 1:
            raise RuntimeError("simulated STT crash")
        return self.real.transcribe(pcm, rate, hotwords=hotwords)


class VoiceFailsOnNewText:
    """Piper breaks for anything not synthesised ahead (the cached greeting and apology still play)."""

    def __init__(self, real):
        self.real = real
        self.rate = real.rate
        self.voice_path = real.voice_path
        self.failures = 0

    def sentences(self, text, rate, stop=None):
        self.failures += 1
        raise SpeechFailed("simulated voice failure")
        yield b""  # pragma: no cover

    phrase = sentences   # the speaker makes a reply phrase by phrase

    def speak_float(self, text):  # the simulated caller's own voice keeps working
        return self.real.speak_float(text)


def failing_classifier(text, allowed):
    raise RuntimeError("simulated LLM crash")


class FailingRephraser:
    def attempt(self, reply, keep=()):
        raise RuntimeError("simulated LLM crash")


def _runtime(runtime, tmp_path, **parts):
    twin = runtime.with_settings(voice_settings(tmp_path))
    for name, value in parts.items():
        setattr(twin, name, value)
    return twin


def _turns(result) -> list[str]:
    """What was heard and answered, for a failure's message (STT under load is the usual suspect)."""
    timings = result.summary.timings if result.summary else []
    return [f"{t.kind} {t.state}: heard {t.caller_text!r} -> {t.agent_text[:50]!r}" for t in timings]


def _assert_complete(result, outcome="info"):
    assert result.verdict.outcome == outcome != "failed", (result.verdict.failures, _turns(result))
    call = result.call_record["call"]
    assert call["outcome"] == outcome and call["ended_at"] and call["final_state"]
    assert len(result.call_record["turns"]) == len(result.summary.results)


def test_failing_stt_asks_again_and_the_call_goes_on(runtime, flow, tmp_path, caplog):
    flaky = FirstTranscriptionFails(runtime.transcriber)
    twin = _runtime(runtime, tmp_path, transcriber=flaky)
    with caplog.at_level(logging.ERROR, logger="appliance.voice"):
        result = asyncio.run(play_spoken(scenario(intent=HOURS_THEN_BYE), flow, twin, fast=True))
    _assert_complete(result)
    assert result.verdict.passed, result.verdict.failures
    assert result.summary.failures["stt"] == 1
    first = result.summary.timings[1]
    assert first.stt_failed and first.caller_text == "" and first.waiting_for == "intent"
    assert "STT failed" in caplog.text and "What are your" not in caplog.text  # no caller words in the log


def test_failing_tts_plays_the_apology_and_the_call_goes_on(runtime, flow, tmp_path, caplog):
    broken = VoiceFailsOnNewText(runtime.synthesizer)
    twin = _runtime(runtime, tmp_path, synthesizer=broken)
    with caplog.at_level(logging.ERROR, logger="appliance.voice"):
        result = asyncio.run(play_spoken(scenario(), flow, twin, fast=True))
    _assert_complete(result)
    replies = [t for t in result.summary.timings if t.kind == "reply"]
    # the clinic's goodbye was synthesised before the call (voice.clinic_lines_for): every other reply needed the voice
    made = [t for t in replies if "Goodbye." not in t.agent_text]
    assert made and broken.failures >= len(made) and result.summary.failures["tts"] >= len(made)
    assert all(t.tts_failed and t.agent_start is not None for t in made)  # the apology was heard instead
    assert all(not t.tts_failed for t in replies if t not in made)
    assert "the voice failed" in caplog.text and "8 am" not in caplog.text


def test_failing_llm_falls_back_to_the_rules_and_templates(runtime, flow, tmp_path):
    twin = _runtime(runtime, tmp_path, classifier=failing_classifier, rephraser=FailingRephraser())
    script = scenario(opening="Banana helicopter sandwich.", intent=HOURS_THEN_BYE)
    result = asyncio.run(play_spoken(script, flow, twin, fast=True))
    _assert_complete(result)
    assert result.summary.failures["llm"] >= 1
    assert any("8 am" in t.agent_text for t in result.summary.timings)


def test_a_slow_llm_gets_a_filler_instead_of_silence(runtime, flow, tmp_path):
    import time

    def slow_classifier(text, allowed):
        # slow, and then useful: a misheard line is labelled too, so an STT slip under load cannot turn
        # this test of the filler into a callback for want of understanding
        time.sleep(1.0)
        return Signal("hours", "medium", "llm") if "hours" in allowed else None

    twin = runtime.with_settings(voice_settings(tmp_path, filler_after_ms=300))
    twin.classifier = slow_classifier
    script = scenario(opening="Banana helicopter sandwich.", intent=HOURS_THEN_BYE)
    result = asyncio.run(play_spoken(script, flow, twin, fast=True))
    _assert_complete(result)
    first = result.summary.timings[1]
    assert first.filler and first.engine_ms >= 1000, _turns(result)
    # a filler only where the engine was slow (a misheard later answer may send the LLM another line)
    assert all((t.engine_ms or 0) >= 300 for t in result.summary.timings if t.filler)
