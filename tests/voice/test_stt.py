"""Speech to text with the real Whisper base: the short audio window, quiet, and turns too long for it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from appliance.voice.audio import WHISPER_RATE, telephone
from appliance.voice.stt import WHISPER_WINDOW_S, window_samples
from appliance.simulate.word_error import word_errors


@pytest.mark.parametrize("clip_s, window_s, expected_s", [
    (1.0, 10, 10.0),     # a short answer: the whole floor
    (7.0, 10, 11.0),     # a long one keeps 40% of the floor as quiet after it
    (28.0, 10, 30.0),    # never more than Whisper reads at once
    (1.0, 30, 30.0),     # 30 is faster-whisper's own padded window
])
def test_the_window_holds_the_clip_and_quiet_after_it(clip_s, window_s, expected_s):
    assert window_samples(int(clip_s * WHISPER_RATE), window_s) == int(expected_s * WHISPER_RATE)


def _phone_line(runtime, text: str) -> np.ndarray:
    audio, rate = runtime.synthesizer.speak_float(text)
    return telephone(audio * 0.8, rate, WHISPER_RATE)


def _encoder_frames(monkeypatch, transcriber) -> list[int]:
    frames: list[int] = []
    encode = transcriber.model.encode

    def spy(features, *args, **kwargs):
        frames.append(features.shape[-1])
        return encode(features, *args, **kwargs)

    monkeypatch.setattr(transcriber.model, "encode", spy)
    return frames


def test_a_caller_line_is_heard_through_a_ten_second_window(runtime, monkeypatch):
    transcriber = runtime.transcriber
    frames = _encoder_frames(monkeypatch, transcriber)
    line = "I would like to book a follow-up appointment on Thursday"
    heard = transcriber.transcribe_array(_phone_line(runtime, line))
    assert word_errors(line, heard).errors <= 2, heard
    assert frames == [int(transcriber.window_s * 100)]   # 100 mel frames a second, not Whisper's 3000


def test_quiet_and_line_hiss_are_no_words(runtime):
    rng = np.random.default_rng(7)
    hiss = (rng.standard_normal(2 * WHISPER_RATE) * 0.002).astype(np.float32)
    transcript = runtime.transcriber.transcribe(((hiss * 32767).astype(np.int16)).tobytes(), WHISPER_RATE)
    assert transcript.text == "" and not transcript.has_words


def test_a_turn_too_long_for_one_window_is_read_as_faster_whisper_reads_it(runtime, monkeypatch):
    transcriber = runtime.transcriber
    calls = []
    transcribe = transcriber.model.transcribe
    monkeypatch.setattr(transcriber.model, "transcribe", lambda audio, **kw: calls.append(len(audio)) or transcribe(audio, **kw))
    line = _phone_line(runtime, "I need to cancel my appointment")
    long_turn = np.concatenate([np.zeros(int((WHISPER_WINDOW_S - 3) * WHISPER_RATE), np.float32), line])
    heard = transcriber.transcribe_array(long_turn)
    assert "cancel" in heard.lower(), heard
    assert calls == [len(long_turn)]


def test_a_turn_that_starts_on_a_word_is_heard_not_replaced_by_the_prompt(runtime, monkeypatch):
    # a real turn from a spoken run: the listener's onset came a moment late, so the clip starts mid-"Hi";
    # with no quiet before it Whisper wrote only the prompt's "Chiropractic" for the whole 6.5 s
    import wave

    import appliance.voice.stt as stt

    with wave.open(str(Path(__file__).parent / "data" / "sales_line_onset_cut.wav")) as recording:
        pcm, rate = recording.readframes(recording.getnframes()), recording.getframerate()
    prompt = ("Cuba Street Chiropractic, Dr Sam Kereama, Dr Olivia Dunn, Initial consultation, first visit, "
              "Adjustment, standard visit, follow-up, Cuba Street")
    heard = runtime.transcriber.transcribe(pcm, rate, hotwords=prompt)
    assert "calling from local search pro" in heard.text.lower(), heard.text
    assert abs(heard.audio_s - 6.5) < 0.05                    # the lead-in is not counted as the caller's audio
    # without the quiet lead-in, and with the prompt as a bare list, the prompt's word replaces the turn
    monkeypatch.setattr(stt, "LEAD_IN_S", 0.0)
    monkeypatch.setattr(stt, "PROMPT_FRAME", "{}")
    assert "search" not in runtime.transcriber.transcribe(pcm, rate, hotwords=prompt).text.lower()


@pytest.mark.parametrize("line, prompt, first", [
    ("the second one please", "the first one, the second one", "second"),
    ("um, Wicker Park I think", "Dr Anna Novak, initial consultation, Lincoln Square, Wicker Park", "wicker"),
])
def test_an_answer_that_begins_with_the_prompt_s_last_words_keeps_them(runtime, line, prompt, first):
    # Whisper reads its prompt as words already said: a bare list ending in them had them dropped ("please")
    pcm = (_phone_line(runtime, line) * 32767).astype(np.int16).tobytes()
    heard = runtime.transcriber.transcribe(pcm, WHISPER_RATE, hotwords=prompt)
    assert first in heard.text.lower(), heard.text


def test_a_prompt_of_words_is_framed_as_a_list_and_digits_stay_bare():
    from appliance.voice.stt import framed_prompt

    assert framed_prompt("the first one, the second one").endswith("the first one, the second one.")
    assert framed_prompt("0 1 2 3 4 5 6 7 8 9") == "0 1 2 3 4 5 6 7 8 9"


def test_the_prompt_s_frame_said_back_is_no_caller_words():
    from appliance.voice.stt import clean_transcript

    assert clean_transcript("Words you may hear: Wicker Park", "Wicker Park, Lincoln Square") == "Wicker Park"
