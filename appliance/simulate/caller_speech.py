"""The simulated caller's lines as audio at the call's rate: a caller voice through a line.

    caller = CallerSetup(voice="flite-slt", line="noisy", seed=3)
    voice = caller.voice_for(runtime, 16000, scenario.name)     # blocking: Piper makes its session
    voice.prepare(lines)                                         # first renditions, and the room's noise
    pcm = voice.audio("Yes, that's right.")                      # 16-bit PCM, a new rendition each time
    loop = voice.background()                                    # what the line carries between lines

The voices are `caller_voices.py`'s, the lines `line_conditions.py`'s.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
from anyascii import anyascii

from ..voice import PHONE_RATE, VoiceRuntime, resample, to_pcm
from .caller_voices import DEFAULT_VOICE, caller_voice_engine, speaking_pace, stable_seed
from .line_conditions import DEFAULT_LINE, NOISE_SNR_DB, BackgroundNoise, line_condition, speech_level


def sayable(line: str) -> str:
    """The line as the caller would say it to an English voice: letters beyond Latin-1 ("Đặng", "Đỗ")
    folded to the plain letters they sound like. The synthetic voices read such letters by their Unicode
    names ("D stroke", "letter ...") or not at all, which no caller does; Latin-1 letters (é, ø, ñ) they say.
    A phone number written in digit groups is said digit by digit, as callers give one: the voices read
    "0491 577 127" as "five hundred and seventy-seven, one hundred and twenty-seven"."""
    line = _PHONE_NUMBER.sub(_digit_by_digit, line)
    return "".join(ch if ord(ch) <= 0xFF else anyascii(ch) for ch in line)


# digits in groups, at least eight in all, with an optional leading plus: a phone number (a date, a time or a
# price has fewer digits or other marks between them); an area code may stand in brackets ("(602) 555-0174")
_PHONE_NUMBER = re.compile(r"(?<![\w/:.])(?:\+?\(\d+\) ?|\+?)\d+(?:[ -]\d+)*(?![\w/:]|\.\d)")
_PHONE_DIGITS_MIN = 8


def _digit_by_digit(m: re.Match) -> str:
    text = m.group(0)
    if sum(ch.isdigit() for ch in text) < _PHONE_DIGITS_MIN:
        return text
    groups = re.split(r"[ -]", text.lstrip("+").replace("(", "").replace(")", " ").replace("  ", " "))
    # said in groups, with a pause between; digits already said one by one run on
    pause = " " if max(map(len, groups)) <= 2 else ", "
    said = pause.join(" ".join(group) for group in groups)
    return ("plus " if text.startswith("+") else "") + said

CALLER_PEAK = 0.8         # every voice's loudest sample, before the line


@dataclass(frozen=True)
class CallerSetup:
    """Who calls and over what: the caller's voice (`caller_voices.VOICES`), the line
    (`line_conditions.LINES`) and the seed their variations are drawn from."""
    voice: str = DEFAULT_VOICE
    line: str = DEFAULT_LINE
    seed: int = 0

    def voice_for(self, runtime: VoiceRuntime, rate: int, scenario: str, *, codec: bool = True) -> CallerVoice:
        """Blocking (Piper makes its session): the voice for one scenario's caller, seeded by its name too."""
        return CallerVoice(runtime, rate, voice=self.voice, line=self.line, seed=stable_seed(self.seed, scenario),
                           codec=codec)


class CallerVoice:
    """The simulated caller's voice (`caller_voices.VOICES`) through a line (`line_conditions.LINES`), at
    the call's rate.

    A line said again is a new rendition, as a person never says a line twice
    the same way: a re-asked question gets another chance to be heard, not the
    same audio. Each rendition has its own pace and its own line (noise, lost
    packets), drawn from `seed`: the same seed gives the same audio. `codec`:
    False where the line's own codec does the µ-law (SIP)."""

    def __init__(self, runtime: VoiceRuntime, rate: int, *, voice: str = DEFAULT_VOICE, line: str = DEFAULT_LINE,
                 seed: int = 0, codec: bool = True, engine: Any = None):
        self.runtime = runtime
        self.rate = rate
        self.seed = seed
        self.codec = codec
        self.line = line_condition(line)
        self.engine = engine if engine is not None else caller_voice_engine(voice, runtime, seed)
        self.voice_name = getattr(self.engine, "name", voice)
        self.noise: BackgroundNoise | None = None
        self.noise_level = 0.0
        self._renditions: dict[str, list[bytes]] = {}
        self._said: dict[str, int] = {}

    def prepare(self, lines: list[str]) -> None:
        """Blocking: the line's background and each line's first rendition now, so the call is not slowed."""
        self._prepare_noise()
        for line in lines:
            if line not in self._renditions:
                self._renditions[line] = [self._render(line, 0)]

    def _prepare_noise(self) -> None:
        """A noisy line's room: babble made from this voice, at the level its speech is heard under."""
        if not self.line.noisy or self.noise is not None:
            return
        speech, rate = self._speech(BABBLE_TEXT, 1.0)
        phone = resample(speech, rate, PHONE_RATE)
        self.noise = BackgroundNoise(np.random.default_rng(stable_seed(self.seed, "room")), phone)
        self.noise_level = speech_level(phone, PHONE_RATE) * 10 ** (-NOISE_SNR_DB / 20)

    def _speech(self, text: str, pace: float) -> tuple[np.ndarray, int]:
        audio, rate = self.engine.speak(self.engine.text_for(sayable(text)), pace)
        peak = float(np.max(np.abs(audio))) if audio.size else 0.0
        return (audio * (CALLER_PEAK / peak) if peak > 0 else audio), rate

    def _render(self, line: str, turn: int) -> bytes:
        self._prepare_noise()
        audio, voice_rate = self._speech(line, speaking_pace(self.seed, line, turn))
        rng = np.random.default_rng(stable_seed(self.seed, "line", line, turn))
        return to_pcm(self.line.carry(audio, voice_rate, self.rate, rng=rng, noise=self.noise, codec=self.codec))

    def background(self) -> bytes | None:
        """What the line carries while the caller is quiet, as a loop of PCM (None: silence)."""
        self._prepare_noise()
        quiet = self.line.quiet(self.noise_level, self.noise, self.rate, codec=self.codec)
        return to_pcm(quiet) if quiet is not None else None

    def audio(self, line: str) -> bytes:
        """Blocking: the audio for the next time the caller says `line`."""
        renditions = self._renditions.setdefault(line, [])
        turn = self._said.get(line, 0)
        self._said[line] = turn + 1
        while len(renditions) <= turn:
            renditions.append(self._render(line, len(renditions)))
        return renditions[turn]

    async def next_audio(self, line: str) -> bytes:
        """`audio`, synthesising off the event loop when this rendition is new."""
        return await asyncio.get_running_loop().run_in_executor(None, self.audio, line)


# a noisy line's babble is this, said by the caller's own voice and played backwards
BABBLE_TEXT = ("I was going to ask her about it on the weekend, but then the car broke down again and we had "
               "to wait for the man from the garage, who did not come until after lunch.")
