"""Speech to text: faster-whisper on a local CTranslate2 folder, shared by every call.

Given a model folder (never a model name: a name sends faster-whisper to a
hub). English, beam 1 by default, with the clinic's names as hot words (left
out for very short clips, where Whisper tends to answer with them). Each
utterance is transcribed whole; calls queue on one CTranslate2 worker with
two threads, through the box's scheduler (`scheduler.py`: an ended turn's decode first), which on 2 cores beat two workers side by side.

The audio window: Whisper reads 30 s at a time, and faster-whisper pads every
clip to that, so a one-second "yes" cost a whole 30 s encoder pass (about
0.7 s on 2 idle cores, most of a reply's wait). Here a clip is encoded in a
window of `window_s` seconds (or the clip plus `window_s * 0.4` of quiet, if
longer), straight through CTranslate2: a third of the time, and on the
scenario files' 522 caller lines spoken at phone quality the word error rate
fell too (24.1% against 25.4%: fewer "High" for "Hi"). A window of less than
about 8 s leaves Whisper too little quiet to end on, and it repeats itself.
`window_s = 30` keeps faster-whisper's own padded decoding; so does any clip
too long for one window.

Whisper can fall into a loop, most often on a short clip with hot words:
"The second one, 8 am, 8 am, 8 am, ..." for "the second one". Decoding is
capped at a length the audio could hold, and a phrase repeated back to back
is kept once, or dropped when it is one of the hot words (an echo of the
prompt, not the caller).

What counts as words: Whisper writes noises as "[cough]" or "(laughs)" and
sometimes answers silence with "you" or "Thank you."; those are dropped, so a
cough never becomes a caller turn or a barge-in. Each transcript also carries
Whisper's own doubt that the clip held speech (`no_speech`), for the listener
to weigh a lone "Yeah." that may have been a throat-clear.
"""

from __future__ import annotations

import logging
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from .answer_scoring import SCORE_MAX_S, AnswerScorer, Expected, plain, worth_scoring
from .audio import WHISPER_RATE, resample, to_float

log = logging.getLogger("appliance.voice")

_NOISE = re.compile(r"[\[(*♪][^\])*♪]*[\])*♪]")
_LETTERS = re.compile(r"[^\W_]")  # letters of any script, and digits (words too: "0418 555 023")
# below this, hot words are left out: on a short "Hi," Whisper tends to answer with the hot words themselves
HOTWORDS_MIN_S = 1.3  # seconds of audio, the quiet around the words included
# Whisper given a clip that starts on a word (the turn's onset cut a little late) may write only the prompt:
# "Chiropractic" for a whole 6.5 s sentence. A moment of silence before every clip: word errors 18.5% -> 16.9%
# over scenario lines as synthesised, 21.6% -> 19.9% with their first 50 ms cut off
LEAD_IN_S = 0.3
# the most tokens a second of speech can need (fast digits are about 6), plus room for a short clip
TOKENS_PER_S = 10
TOKENS_MIN = 16
LOOP_REPEATS = 3        # a phrase said this many times back to back is a decoding loop, not a caller
LOOP_MAX_WORDS = 6
# a phrase longer than LOOP_MAX_WORDS is a loop when written twice back to back (a spelling of seven letters and
# the word it spells, twice over and a bit): a caller who did say it twice loses nothing when it is kept once
LONG_LOOP_MAX_WORDS = 16
# digits do repeat in phone numbers ("0400 000 011" has six zeros); a loop of them runs to the token cap
DIGIT_LOOP_REPEATS = {1: 8, 2: 5, 3: 4}
CPU_COMPUTE_TYPE = "int8"   # the CPU default (appliance/settings.py); also what a GPU that cannot run falls back to
# the prompt's words said back in a jumble ("Wednesday, Thursday, Thursday, Wednesday, ..."): this many in a
# row, with words repeated, is Whisper reading its prompt, not the caller
ECHO_RUN = 6
# what Whisper says over near-silence; never a caller's whole turn on its own
_SILENCE_PHRASES = {"you", "thank you", "thanks for watching", "bye", "uh", "um", "hmm", "mm", "mhm", "ah", "oh"}
WHISPER_WINDOW_S = 30.0  # what Whisper reads at once; the encoder takes at most this much audio
QUIET_SHARE = 0.4        # of the window, the least quiet left after the clip (room for Whisper to end)
# faster-whisper's no-speech rule: dropped when Whisper thinks there is no speech and is unsure of the words
NO_SPEECH_PROB = 0.6
LOG_PROB_FLOOR = -1.0
# how a prompt of expected words is put to Whisper (see framed_prompt)
PROMPT_FRAME = "Words you may hear: {}."


# A word the decoder gave less than this probability, read over the clip (answer_scoring.word_probabilities).
# Names said in Piper's voice over G.711: common names heard right, 0.6-0.96; names heard as other words (a given
# name written as an ordinary word, a surname as two), mostly under 0.2. A right name doubted costs one spelling;
# a wrong one not doubted reaches the read-back.
DOUBTFUL_WORD = 0.3


@dataclass(frozen=True)
class Transcript:
    text: str          # "" when nothing but noise was heard
    ms: float          # time spent transcribing
    audio_s: float     # length of the audio transcribed
    no_speech: float = 0.0   # Whisper's own doubt that the clip held speech at all (0 to 1)
    written: str | None = None   # Whisper's own words, where an expected answer scored against the audio replaced them
    doubtful: tuple[str, ...] = ()   # words the decoder was unsure of (DOUBTFUL_WORD), where a name was asked for

    @property
    def has_words(self) -> bool:
        return bool(self.text)

    @property
    def rtf(self) -> float:
        return self.ms / 1000 / self.audio_s if self.audio_s else 0.0


def clean_transcript(text: str, hotwords: str | None = None) -> str:
    """The caller's words without noise tags or decoding loops; "" when no real words remain."""
    text = _NOISE.sub(" ", text)
    lead = PROMPT_FRAME.split("{}")[0].strip(" :")
    if lead and text.strip().lower().startswith(lead.lower()):   # the prompt's frame said back
        text = text.strip()[len(lead):].lstrip(" :")
    text = collapse_loops(" ".join(text.split()), hotwords)
    if not _LETTERS.search(text):
        return ""
    bare = re.sub(r"[^\w' ]|_", "", text.lower()).strip()
    if bare in _SILENCE_PHRASES:
        return ""
    return text


def _bare(word: str) -> str:
    return re.sub(r"[^\w']|_", "", word.lower())


_WRITTEN_GROUP = re.compile(r"\d+(?:[-/.]\d+)+")


def collapse_loops(text: str, hotwords: str | None = None) -> str:
    """`text` with each phrase repeated LOOP_REPEATS or more times back to back kept once (a trailing
    partial copy too), or removed when the phrase is one of the comma-separated `hotwords`."""
    words = text.split()
    bare = [_bare(w) for w in words]
    whole_groups = {k for k, w in enumerate(words) if _WRITTEN_GROUP.fullmatch(w.strip(".,"))}
    echoes = {" ".join(_bare(w) for w in h.split()) for h in (hotwords or "").split(",") if h.strip()}
    out: list[str] = []
    i = 0
    while i < len(words):
        loop = _loop_at(bare, i, whole_groups)
        if loop is None:
            out.append(words[i])
            i += 1
            continue
        n, end = loop
        looped = bare[i:i + n]
        # a looped phrase is kept once; an echo of the prompt, or digits (their count is lost), not at all,
        # unless the digits are one group written whole ("11-0-1-59", "12/22/51"): the count is inside it
        whole_group = n == 1 and i in whole_groups
        if " ".join(looped) not in echoes and (whole_group or not all(w.isdigit() for w in looped)):
            out.extend(words[i:i + n])
        i = end
    return _without_prompt_jumble(" ".join(out).strip(" ,"), hotwords)


def _without_prompt_jumble(text: str, hotwords: str | None) -> str:
    """`text` with a run of the prompt's words said back in a jumble cut to its first word. Single letters and
    digits are left out: a run of them, repeats and all, is what a caller spells or reads out ("C O N N O R"
    under the alphabet prompt), not an echo."""
    vocabulary = {_bare(h) for h in (hotwords or "").split(",") if h.strip() and " " not in h.strip()
                  and len(_bare(h)) > 1}
    if not vocabulary:
        return text
    words = text.split()
    bare = [_bare(w) for w in words]
    start = 0
    while start < len(words):
        end = start
        while end < len(words) and bare[end] in vocabulary:
            end += 1
        run = bare[start:end]
        if len(run) >= ECHO_RUN and len(set(run)) < len(run):
            return " ".join(words[:start + 1]).strip(" ,")
        start = end + 1
    return text


def _loop_at(bare: list[str], i: int, whole_groups: set[int] = frozenset()) -> tuple[int, int] | None:
    """(phrase length, index after the loop) when a loop starts at word `i`. A group of digits written whole
    ("11-0-1-59", index in `whole_groups`) loops as words do: a caller says a date once."""
    for n in range(1, LONG_LOOP_MAX_WORDS + 1):
        phrase = bare[i:i + n]
        if len(phrase) < n or not all(phrase):
            return None
        digits = all(w.isdigit() for w in phrase) and not (n == 1 and i in whole_groups)
        if digits and n not in DIGIT_LOOP_REPEATS:
            continue
        copies = 1
        while bare[i + copies * n:i + (copies + 1) * n] == phrase:
            copies += 1
        if copies >= (DIGIT_LOOP_REPEATS[n] if digits else LOOP_REPEATS if n <= LOOP_MAX_WORDS else 2):
            end = i + copies * n
            while end < len(bare) and end - i - copies * n < n and bare[end] == phrase[end - i - copies * n]:
                end += 1  # a last copy cut short by the token cap
            if n == 1 and end < len(bare) and bare[end] and phrase[0].startswith(bare[end]) and end + 1 == len(bare):
                end += 1  # ... or cut inside its one word ("11-0-1-59 11-0-1-59 ... 11")
            return n, end
    return None


def framed_prompt(hotwords: str) -> str:
    """The prompt as Whisper is given it. Whisper reads its prompt as words already said, so a bare list ending
    in words the caller then begins with ("..., the second one" before "the second one, please") had those
    first words dropped: a list of words is given as a list that has ended. Digits alone stay bare: framed, they
    led Whisper to join and drop digits of a phone number (bench/hearing.py)."""
    words = hotwords.strip().rstrip(".,;")
    if not any(ch.isalpha() for ch in words):
        return words
    return PROMPT_FRAME.format(words)


def hotwords_for(catalog, profile=None) -> str:
    """The clinic's names Whisper should expect: practitioners, services, locations and their aliases."""
    names: list[str] = []
    if profile is not None:
        names.append(profile.name)
    for group in (catalog.practitioners, catalog.services, catalog.locations):
        for item in group:
            names.append(item.name)
            names.extend(item.aliases)
    seen: dict[str, None] = {}
    for name in names:
        name = " ".join(str(name).split())
        if name and name.lower() not in {n.lower() for n in seen}:
            seen[name] = None
    return ", ".join(seen)


@dataclass(frozen=True)
class _Read:
    text: str
    no_speech: float
    encoded: Any = None   # the encoder's output, kept for scoring expected answers over the same pass
    frames: int = 0


def window_samples(audio_samples: int, window_s: float, rate: int = WHISPER_RATE) -> int:
    """How many samples of audio (the clip and the quiet after it) Whisper is given for a clip."""
    seconds = max(window_s, audio_samples / rate + QUIET_SHARE * window_s)
    return int(min(seconds, WHISPER_WINDOW_S) * rate)


class WhisperTranscriber:
    def __init__(self, model_dir: str | Path, *, device: str = "cpu", compute_type: str = "int8",
                 beam_size: int = 1, cpu_threads: int = 2, workers: int = 2, window_s: float = 10.0):
        from faster_whisper import WhisperModel
        from faster_whisper.tokenizer import Tokenizer
        from faster_whisper.transcribe import get_suppressed_tokens

        self.model_dir = Path(model_dir)
        self.beam_size = beam_size
        self.window_s = window_s
        started = time.perf_counter()
        self.model = WhisperModel(str(self.model_dir), device=device, compute_type=compute_type,
                                  cpu_threads=cpu_threads, num_workers=workers, local_files_only=True)
        self.tokenizer = Tokenizer(self.model.hf_tokenizer, True, task="transcribe", language="en")
        self.suppress = list(get_suppressed_tokens(self.tokenizer, [-1]))
        self.scorer = AnswerScorer(self.model.model, self.tokenizer)
        self._quiet: dict[int, tuple[Any, int]] = {}   # window (samples) -> silence's encoding (see _quiet_encoding)
        self.load_s = time.perf_counter() - started
        # two threads queue on the model, so a barge-in check can wait behind a turn, not behind a thread pool
        self.executor = ThreadPoolExecutor(max_workers=max(2, workers), thread_name_prefix="stt")

    def transcribe(self, pcm: bytes, rate: int, *, hotwords: str | None = None, expected: Expected = Expected(),
                   question: Any = None, understand: Callable[[str], Any] | None = None,
                   doubt: bool = False) -> Transcript:
        """Blocking: call it from a worker thread (`self.executor`). `expected`: the phrases the answer to
        `question` is likely to be, scored against a short clip's audio where Whisper's words, read by
        `understand` (words -> Utterance), settle nothing (answer_scoring.py). `doubt`: say which words the
        decoder was unsure of (a name: one heard with doubt is spelled by the caller before it is stored)."""
        started = time.perf_counter()
        audio = resample(to_float(pcm), rate, WHISPER_RATE)
        if len(audio) < HOTWORDS_MIN_S * WHISPER_RATE:
            hotwords = None
        lead_in = np.zeros(int(LEAD_IN_S * WHISPER_RATE), np.float32)
        read = self._read(np.concatenate([lead_in, audio]), hotwords=hotwords)
        text, written = clean_transcript(read.text, hotwords), None
        if read.encoded is not None and len(audio) <= SCORE_MAX_S * WHISPER_RATE and expected:
            window = window_samples(len(lead_in) + len(audio), self.window_s)
            try:
                reading = (self.scorer.pick(read.encoded, read.frames, text, expected,
                                            quiet=lambda: self._quiet_encoding(window))
                           if worth_scoring(expected, question, text, understand) else None)
            except Exception as exc:   # a second opinion (or a call already over): Whisper's own words stand
                log.warning("scoring the expected answers failed (%s); Whisper's words stand", type(exc).__name__)
                reading = None
            if reading is not None and plain(reading.text) != plain(text):
                text, written = reading.text, text
        doubtful: tuple[str, ...] = ()
        if doubt and written is None and text and read.encoded is not None:
            try:
                doubtful = tuple(word for word, probability in
                                 self.scorer.word_probabilities(read.encoded, read.frames, text)
                                 if probability < DOUBTFUL_WORD)
            except Exception as exc:   # a second opinion: without it the words are taken as heard
                log.warning("reading the words' probabilities failed (%s)", type(exc).__name__)
        return Transcript(text, (time.perf_counter() - started) * 1000, len(audio) / WHISPER_RATE, read.no_speech,
                          written, doubtful)

    def _quiet_encoding(self, window: int) -> tuple[Any, int]:
        """The encoder's output for `window` samples of digital silence, and its frames: what a phrase reads
        like with nothing said (answer_scoring.py), the same for every clip of that window (kept)."""
        if window not in self._quiet:
            self._quiet[window] = self._encode(np.zeros(window, np.float32))
        return self._quiet[window]

    def _encode(self, clip: np.ndarray) -> tuple[Any, int]:
        """The encoder's output for a clip of one window, and its mel frames."""
        features = self.model.feature_extractor(clip)
        frames = min(features.shape[-1], int(WHISPER_WINDOW_S * 100))
        frames -= frames % 2   # the encoder halves the frames
        return self.model.encode(np.ascontiguousarray(features[:, :frames])), frames

    def transcribe_array(self, audio: np.ndarray, *, hotwords: str | None = None) -> str:
        return self._read(audio, hotwords=hotwords).text

    def _read(self, audio: np.ndarray, *, hotwords: str | None) -> _Read:
        """The words in `audio` (16 kHz float), and Whisper's doubt that it held speech."""
        window = window_samples(len(audio), self.window_s)
        if window >= WHISPER_WINDOW_S * WHISPER_RATE:
            return self._transcribe_padded(audio, hotwords=hotwords)
        return self._transcribe_window(audio, window, hotwords=hotwords)

    def _transcribe_window(self, audio: np.ndarray, window: int, *, hotwords: str | None) -> _Read:
        """One clip, encoded in a window of `window` samples, decoded as faster-whisper would (see the module)."""
        tokenizer = self.tokenizer
        clip = np.zeros(window, np.float32)
        clip[: len(audio)] = audio
        encoded, frames = self._encode(clip)
        prompt: list[int] = []
        if hotwords:   # as faster-whisper lays out its prompt: hot words as if said before
            framed = framed_prompt(hotwords)
            prompt = [tokenizer.sot_prev, *tokenizer.encode(" " + framed)[: self.model.max_length // 2 - 1]]
        prompt += [*tokenizer.sot_sequence, tokenizer.no_timestamps]
        most = TOKENS_MIN + int(TOKENS_PER_S * len(audio) / WHISPER_RATE)
        result = self.model.model.generate(
            encoded, [prompt], beam_size=self.beam_size, max_length=min(len(prompt) + most, self.model.max_length),
            return_scores=True,
            return_no_speech_prob=True, suppress_blank=True, suppress_tokens=self.suppress)[0]
        tokens = [t for t in result.sequences_ids[0] if t < tokenizer.eot]
        average = result.scores[0] * len(tokens) / (len(tokens) + 1)
        if result.no_speech_prob > NO_SPEECH_PROB and average < LOG_PROB_FLOOR:
            return _Read("", result.no_speech_prob, encoded, frames)
        return _Read(tokenizer.decode(tokens).strip(), result.no_speech_prob, encoded, frames)

    def _transcribe_padded(self, audio: np.ndarray, *, hotwords: str | None) -> _Read:
        segments, _ = self.model.transcribe(
            audio, language="en", task="transcribe", beam_size=self.beam_size, best_of=1, temperature=0.0,
            condition_on_previous_text=False, without_timestamps=True, vad_filter=False,
            hotwords=framed_prompt(hotwords) if hotwords else None, no_speech_threshold=NO_SPEECH_PROB, log_prob_threshold=LOG_PROB_FLOOR,
            max_new_tokens=TOKENS_MIN + int(TOKENS_PER_S * len(audio) / WHISPER_RATE),
        )
        segments = list(segments)
        return _Read(_join(segment.text for segment in segments),
                     min((s.no_speech_prob for s in segments), default=1.0))


def load_transcriber(model_dir: str | Path, *, device: str, compute_type: str, **options) -> tuple[WhisperTranscriber, str | None]:
    """Whisper on `device`, or on the CPU with the reason when the GPU cannot run it.

    On cuda the libraries CTranslate2 opens at its first matrix product are opened first, and one
    second of silence is transcribed, so a GPU that cannot compute fails here, at start-up, and
    the calls run on the CPU, not on the first caller's words (never silence on a call)."""
    if device != "cuda":
        return WhisperTranscriber(model_dir, device=device, compute_type=compute_type, **options), None
    from .cuda_libraries import INSTALL_HINT, preload

    missing = preload()
    problem = f"the CUDA libraries {', '.join(missing)} cannot be opened ({INSTALL_HINT})" if missing else None
    if problem is None:
        try:
            transcriber = WhisperTranscriber(model_dir, device=device, compute_type=compute_type, **options)
            transcriber.transcribe_array(np.zeros(WHISPER_RATE, np.float32))
            return transcriber, None
        except Exception as exc:   # CTranslate2 raises RuntimeError or ValueError for a driver or library fault
            problem = f"Whisper cannot run on the GPU: {exc}"
    return WhisperTranscriber(model_dir, device="cpu", compute_type=CPU_COMPUTE_TYPE, **options), problem


def _join(parts: Iterable[str]) -> str:
    return " ".join(part.strip() for part in parts if part.strip())
