"""The simulated caller's voices: Piper's joe (the runtime's own), Debian's espeak-ng and flite.

    engine = caller_voice_engine("flite-slt", runtime, seed=7)
    audio, rate = engine.speak("Yes, that's right.", pace=1.05)     # float audio at the engine's rate

One small class per engine. They sound different from one another (a neural voice, a formant voice, diphone
and clustergen voices), which is the point: they show whether hearing and understanding rely on one voice.
`pace` is the speaking rate (1.0 the engine's own, 1.1 ten per cent quicker); `speaking_pace` draws it for
each rendition of a line from the seed, within `PACE_SPREAD`, so a caller is never quite as quick twice
and the same seed says everything the same way again.

Piper samples its timing and pitch inside the model, from a generator onnxruntime seeds once when a session
is made: the caller's Piper is a session of its own, made under the caller's seed, so its renditions are
reproducible (and never disturbed by the receptionist's voice, which shares the model but not the session).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import tempfile
import threading
import wave
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .caller_choices import DEFAULT_VOICE, VOICES  # noqa: F401 (DEFAULT_VOICE: the harness imports it from here)

PACE_SPREAD = 0.10
ESPEAK_WPM = 165          # espeak-ng's 175 words a minute is brisk for a caller reading out a number
SPEAK_TIMEOUT_S = 30.0
SETUP_HINT = "installer/dev-setup.sh installs it"


class UnknownVoice(ValueError):
    pass


class VoiceUnavailable(RuntimeError):
    """A caller voice's synthesiser is not on this machine (the message names the package)."""


def stable_seed(*parts: Any) -> int:
    """A 31-bit seed from `parts`, the same in every process (Python's hash() is not)."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF


def speaking_pace(seed: int, line: str, turn: int) -> float:
    """How quickly the caller says `line` the `turn`-th time (1.0: the engine's own rate)."""
    rng = np.random.default_rng(stable_seed(seed, "pace", line, turn))
    return float(rng.uniform(1 - PACE_SPREAD, 1 + PACE_SPREAD))


# a spelling: two or more lone capitals in a row ("A R O H A", "M A C, capital L")
_SPELLING = re.compile(r"(?<![\w'])[A-Z](?![\w'])(?:[ ,.]+[A-Z](?![\w']))+")
_LONE_A = re.compile(r"\bA\b")


def letters_said_as_letters(line: str, letter_a: str) -> str:
    """`line` with the letter A in a spelling written `letter_a` (the engine's phonemes for the letter's
    name), for engines that read a lone "A" as the article ("uh"): "A R O H A" was said "uh R O H A"."""
    return _SPELLING.sub(lambda m: _LONE_A.sub(letter_a, m.group(0)), line) if "A" in line else line


def _read_wav(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path), "rb") as wav:
        rate = wav.getframerate()
        pcm = wav.readframes(wav.getnframes())
    return np.frombuffer(pcm, dtype=np.int16).astype(np.float32) / 32768.0, rate


def _binary(name: str, package: str, voice: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise VoiceUnavailable(f"the caller voice {voice} needs `{name}`, which is not installed: "
                               f"apt-get install {package} ({SETUP_HINT})")
    return path


class PiperCallerVoice:
    """Piper's joe: the runtime's voice model, in the caller's own seeded session."""

    _seeding = threading.Lock()   # onnxruntime's seed is global: one session made at a time under it

    def __init__(self, name: str, voice_path: str | Path, seed: int):
        import onnxruntime

        from ..voice import PiperSynthesizer

        self.name = name
        with self._seeding:
            onnxruntime.set_seed(seed)
            self.synthesizer = PiperSynthesizer(voice_path, threads=1)

    def text_for(self, line: str) -> str:
        # Piper says the backchannel written "uh-huh" as an "uh" and a breath (Whisper hears nothing, 5 of 5),
        # and written as two words says it as people do ("Uh-huh.", 5 of 5): the voice's flaw, not the caller's
        return _UH_HUH.sub(r"\1 \2", letters_said_as_letters(line, "[[ ˈeɪ ]]"))

    def speak(self, text: str, pace: float = 1.0) -> tuple[np.ndarray, int]:
        return self.synthesizer.speak_float(text, length_scale=1.0 / pace)


_UH_HUH = re.compile(r"\b(uh)-(huh)\b", re.IGNORECASE)


class _ProgramVoice:
    """A synthesiser run as a Debian program that writes a WAV file; `variant` is its voice."""

    program = package = ""

    def __init__(self, name: str, variant: str):
        self.name = name
        self.variant = variant
        self.binary = _binary(self.program, self.package, name)

    def _wav(self, args: Callable[[Path], list[str]], text: bytes | None = None) -> tuple[np.ndarray, int]:
        """Run the program with `args(wav_path)` (the text on stdin when given) and read what it wrote."""
        with tempfile.TemporaryDirectory(prefix=f"{self.program}-") as scratch:
            out = Path(scratch) / "line.wav"
            try:
                subprocess.run([self.binary, *args(out)], input=text, check=True, capture_output=True,
                               timeout=SPEAK_TIMEOUT_S)
            except subprocess.CalledProcessError as exc:
                raise RuntimeError(f"{self.program} failed (exit {exc.returncode}): "
                                   f"{exc.stderr.decode(errors='replace').strip()[:200]}") from None
            return _read_wav(out)


class EspeakCallerVoice(_ProgramVoice):
    """espeak-ng, a formant voice: en-us, en-gb, ..."""

    program = package = "espeak-ng"

    def text_for(self, line: str) -> str:
        return letters_said_as_letters(line, "[['eI]]")

    def speak(self, text: str, pace: float = 1.0) -> tuple[np.ndarray, int]:
        return self._wav(lambda out: ["-v", self.variant, "-s", str(round(ESPEAK_WPM * pace)), "-w", str(out),
                                      "--stdin"], text.encode())


class FliteCallerVoice(_ProgramVoice):
    """flite, with one of its built-in voices (slt, rms, awb)."""

    program = package = "flite"

    def text_for(self, line: str) -> str:
        return line   # flite says a lone capital A by its name

    def speak(self, text: str, pace: float = 1.0) -> tuple[np.ndarray, int]:
        return self._wav(lambda out: ["-voice", self.variant, "--setf", f"duration_stretch={1.0 / pace:.3f}",
                                      "-o", str(out), "-t", text])


_PROGRAMS = {"espeak": EspeakCallerVoice, "flite": FliteCallerVoice}


def check_voice(name: str) -> None:
    """Raise UnknownVoice or VoiceUnavailable (with the fix) before any model loads."""
    if name not in VOICES:
        raise UnknownVoice(f"unknown caller voice {name!r}: choose one of {', '.join(VOICES)}")
    program = _PROGRAMS.get(name.partition("-")[0])
    if program is not None:
        _binary(program.program, program.package, name)


def caller_voice_engine(name: str, runtime: Any, seed: int = 0):
    """The engine for caller voice `name`; Piper uses the runtime's voice model."""
    check_voice(name)
    engine, _, variant = name.partition("-")
    if engine == "piper":
        return PiperCallerVoice(name, runtime.synthesizer.voice_path, seed)
    return _PROGRAMS[engine](name, variant)
