"""Reply latency read off a call's tape, as the caller lived it: from the last sound of each line the caller
said to the first sound of the agent after it, on the line the caller hears.

No pipeline event is trusted here (a VAD's stop, a mark frame): only the two sides of the recording. Sound is a
10 ms window louder than `SOUND_LEVEL`; the agent starts speaking where its sound follows at least
`AGENT_GAP_S` of its own quiet. An agent start inside a caller line (after its first sound, before its last) is
an interruption: the agent took a pause in the caller's sentence for the end of the turn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..voice import CallTape

SOUND_LEVEL = 300     # int16 RMS over a window: above a G.711 line's idle noise, below any syllable
WINDOW_S = 0.01
AGENT_GAP_S = 0.15    # the agent's quiet between phrases is shorter than this only inside a sentence


@dataclass(frozen=True)
class ReplyGap:
    line: int                    # which caller line (0 = the first)
    speech_start_s: float        # line time of the caller's first and last sound
    speech_end_s: float
    agent_start_s: float | None  # the agent's first sound after the caller's last (None: the agent never spoke)
    interrupted: bool            # the agent started speaking while the caller was still saying this line

    @property
    def latency_ms(self) -> float | None:
        return None if self.agent_start_s is None else (self.agent_start_s - self.speech_end_s) * 1000


def _loud(samples: np.ndarray, window: int) -> np.ndarray:
    """One flag per window: louder than SOUND_LEVEL."""
    usable = len(samples) - len(samples) % window
    if usable <= 0:
        return np.zeros(0, bool)
    frames = samples[:usable].astype(np.float32).reshape(-1, window)
    return np.sqrt(np.mean(frames * frames, axis=1)) >= SOUND_LEVEL


def agent_starts(tape: CallTape) -> list[int]:
    """Line samples at which the agent starts to make sound after AGENT_GAP_S of quiet."""
    window = max(1, int(WINDOW_S * tape.rate))
    loud = _loud(tape.stereo()[:, 1], window)
    gap = int(AGENT_GAP_S / WINDOW_S)
    starts, quiet = [], gap
    for index, sound in enumerate(loud):
        if sound:
            if quiet >= gap:
                starts.append(index * window)
            quiet = 0
        else:
            quiet += 1
    return starts


def reply_gaps(tape: CallTape) -> list[ReplyGap]:
    """One ReplyGap per caller line with any sound in it, in the order said."""
    stereo = tape.stereo()
    rate, window = tape.rate, max(1, int(WINDOW_S * tape.rate))
    starts = np.array(agent_starts(tape), dtype=np.int64)
    gaps = []
    for number, (first, length) in enumerate(tape.caller_lines):
        loud = np.flatnonzero(_loud(stereo[first: first + length, 0], window))
        if not len(loud):
            continue
        begin, end = first + loud[0] * window, first + (loud[-1] + 1) * window
        after = starts[starts >= end]
        inside = starts[(starts > begin) & (starts < end)]
        gaps.append(ReplyGap(number, begin / rate, end / rate, after[0] / rate if len(after) else None,
                             bool(len(inside))))
    return gaps


def first_agent_sound_s(tape: CallTape) -> float | None:
    """Line time of the agent's first sound (the greeting, counted from the moment the line opened)."""
    starts = agent_starts(tape)
    return starts[0] / tape.rate if starts else None
