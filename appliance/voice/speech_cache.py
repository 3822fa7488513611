"""Phrases synthesised ahead of time: the clinic's greeting, fillers, the fallback apology.

A cached phrase plays the moment it is asked for (no synthesis on the call's
path). Entries are keyed by the voice, the rate and the exact text, kept in
memory and, when a folder is given, on disk so a restarted appliance answers
its first call just as fast. Only fixed clinic phrases go here, never
anything a caller said or anything about a patient.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from pathlib import Path

log = logging.getLogger("appliance.voice")

FILLERS = ("One moment, please.", "Let me check that for you.", "Just a moment.")
# said, one after another, while a turn takes longer than a filler covers (a slow or locked database): the
# caller never hears more than a moment's quiet
HOLDING_LINES = ("Thank you for waiting, I'm still working on that.", "Still with you, just a moment longer.",
                 "Sorry for the wait, nearly there.")
# the call cannot go on (the engine broke): said before the call ends
ENGINE_FAILED_LINE = ("I'm sorry, something went wrong on my side and I have to end this call. If we have your "
                      "number, the team will call you back. Goodbye.")
# spoken when the voice itself failed on a reply: it was synthesised while the voice still worked
TTS_FALLBACK = "Sorry, I'm having a little trouble on my side. Could you say that again, please?"


class SpeechCache:
    def __init__(self, synthesizer, folder: Path | None = None):
        self.synthesizer = synthesizer
        self.folder = folder
        self._memory: dict[tuple[int, str], bytes] = {}
        self._warming = threading.Lock()   # calls prepared at once warm one after another: each text made once
        stat = synthesizer.voice_path.stat() if synthesizer.voice_path.exists() else None
        self._voice_tag = f"{synthesizer.voice_path.name}:{stat.st_size if stat else 0}"

    def _key_file(self, text: str, rate: int) -> Path | None:
        if self.folder is None:
            return None
        digest = hashlib.sha256(f"{self._voice_tag}|{rate}|{text}".encode()).hexdigest()[:32]
        return self.folder / f"{digest}.pcm"

    def get(self, text: str, rate: int) -> bytes | None:
        hit = self._memory.get((rate, text))
        if hit is not None:
            return hit
        path = self._key_file(text, rate)
        if path is not None and path.is_file():
            try:
                hit = path.read_bytes()
            except OSError:
                return None
            self._memory[(rate, text)] = hit
        return hit

    def warm(self, texts, rate: int) -> None:
        """Synthesise what is not cached yet (blocking: do it before calls come in)."""
        with self._warming:
            self._warm(texts, rate)

    def _warm(self, texts, rate: int) -> None:
        for text in texts:
            if not text or self.get(text, rate) is not None:
                continue
            pcm = self.synthesizer.speak(text, rate)
            self._memory[(rate, text)] = pcm
            path = self._key_file(text, rate)
            if path is None:
                continue
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".tmp{os.getpid()}-{threading.get_ident()}")
                tmp.write_bytes(pcm)
                tmp.replace(path)
            except OSError as exc:
                log.warning("speech cache: cannot write %s (%s); keeping it in memory", path.parent,
                            type(exc).__name__)
