"""Each reply's timeline on the audio clock: from the caller's last sound to the agent's first sound, every
step the pipeline took in between, read off one call's recording and its turn timings.

The recording (`CallTape`) stamps the wall time at which each piece of caller audio went down the line and each
piece of agent audio was written, so a pipeline event (time.time()) becomes a line sample, and the two ends of
the wait are the recording's own: the caller's last sound and the agent's first (`reply_gaps`). Every step is in
ms after the caller's last sound:

    vad stop      the VAD's stop reached the listener (its pause plus its own lag after the sound)
    turn end      the turn analyser called the turn over
    transcript    the turn's decode was ready
    hand-over     the transcript went to the engine (after the listener's hold for more words)
    reply         the engine's reply was ready
    tts out       the speaker pushed the reply's first audio (reply + its first-audio time)
    played        the playback mark came back from the output transport
    first write   the first piece of the reply reached the line (the recording)
    first sound   its first sound on the line (leading silence in the audio pushed is the step before)
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

STEPS = ("vad stop", "turn end", "transcript", "hand-over", "reply", "tts out", "played", "first write",
         "first sound")


@dataclass(frozen=True)
class ReplyTimeline:
    caller_text: str
    at_ms: dict[str, float | None]        # each step in STEPS, ms after the caller's last sound

    def step_ms(self) -> dict[str, float | None]:
        """How long each step took after the one before it (the first: after the caller's last sound)."""
        out, before = {}, 0.0
        for name in STEPS:
            at = self.at_ms.get(name)
            out[name] = None if at is None or before is None else at - before
            before = at if at is not None else None
        return out


def reply_timelines(tape, timings, vad_pause_s: float) -> list[ReplyTimeline]:
    """One ReplyTimeline per reply that followed a caller line, in the order said."""
    from appliance.simulate.reply_gaps import reply_gaps

    rate = tape.rate
    gaps = [gap for gap in reply_gaps(tape) if gap.agent_start_s is not None]
    writes = tape.agent_writes
    out = []
    for t in timings:
        if t.kind != "reply" or t.speech_end is None or t.agent_start is None or t.cut:
            continue
        sample = tape.line_sample(t.speech_end)
        if sample is None:
            continue
        # the caller line this turn answered: the last one whose sound ended before the agent's reply started
        start = tape.line_sample(t.agent_start)
        said = [gap for gap in gaps if gap.speech_end_s * rate <= start and gap.agent_start_s * rate >= start - rate // 2]
        if not said:
            continue
        gap = said[-1]
        last = gap.speech_end_s * rate

        def ms(wall: float | None) -> float | None:
            return None if wall is None else (tape.line_sample(wall) - last) / rate * 1000

        first_write = next((at for at, wall in writes if wall >= t.agent_start - 0.001), None)
        tts_out = t.reply_ready + t.tts_first_audio_ms / 1000 if t.reply_ready and t.tts_first_audio_ms else None
        out.append(ReplyTimeline(t.caller_text, {
            "vad stop": ms(t.speech_end + vad_pause_s),
            "turn end": ms(t.turn_end),
            "transcript": ms(min(t.heard_at, t.decoded_at or t.heard_at) if t.heard_at else None),
            "hand-over": ms(t.heard_at),
            "reply": ms(t.reply_ready),
            "tts out": ms(tts_out),
            "played": ms(t.agent_start),
            "first write": None if first_write is None else (first_write - last) / rate * 1000,
            "first sound": (gap.agent_start_s * rate - last) / rate * 1000,
        }))
    return out


def median_steps(timelines: list[ReplyTimeline]) -> dict[str, float | None]:
    """The median of each step's own duration over `timelines`."""
    steps = [timeline.step_ms() for timeline in timelines]
    return {name: _median([s[name] for s in steps]) for name in STEPS}


def median_at(timelines: list[ReplyTimeline]) -> dict[str, float | None]:
    """The median moment of each step, ms after the caller's last sound."""
    return {name: _median([t.at_ms.get(name) for t in timelines]) for name in STEPS}


def _median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def table(timelines: list[ReplyTimeline]) -> list[str]:
    """A markdown table: one row per reply, each step's moment (ms after the caller's last sound)."""
    lines = ["| caller said | " + " | ".join(STEPS) + " |", "|---|" + "---|" * len(STEPS)]
    for timeline in timelines:
        words = timeline.caller_text if len(timeline.caller_text) <= 28 else timeline.caller_text[:25] + "..."
        lines.append(f"| {words} | " + " | ".join("-" if timeline.at_ms.get(n) is None else f"{timeline.at_ms[n]:.0f}"
                                                 for n in STEPS) + " |")
    return lines
