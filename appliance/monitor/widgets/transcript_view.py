"""A call's transcript: the caller's words, states entered, tools run with results, the replies.

Every line starts with a word or a symbol that says what it is, so nothing
depends on colour: `caller:`, `receptionist:`, `→ state`, `✓ tool` / `✗ tool`.
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ..call_timeline import CallTimeline, clock_text, trigger_text
from ..turn_latency import format_ms


def transcript_text(call: CallTimeline, *, with_record: bool = False) -> Text:
    text = Text()
    if with_record:
        text.append("state path: ", style="bold")
        text.append(" → ".join(_dedupe(call.path)) or "-")
        text.append("\ntool calls: ", style="bold")
        text.append(tools_summary(call))
        text.append("\n\n")
    for turn in call.ordered_turns():
        if turn.caller_text:
            text.append(f"#{turn.seq} caller: ", style="bold yellow")
            text.append(turn.caller_text + "\n")
        for step in turn.steps:
            style = "dim" if step.kind == "state" else ("cyan" if step.ok else "bold red")
            text.append("      " + step.text + "\n", style=style)
        if turn.agent_text:
            latency = turn.latency_ms
            label = f"#{turn.seq} receptionist" + (f" ({format_ms(latency)})" if latency is not None else "")
            text.append(label + ": ", style="bold cyan")
            text.append(turn.agent_text + "\n")
        text.append("\n")
    if call.ended:
        outcome = call.outcome or "unknown"
        how = f", {call.end_action}" if call.end_action else ""
        text.append(f"■ call ended: {outcome}{how} in state {call.final_state or call.state or '-'}\n", style="bold")
    for line in call.extra:
        if line.startswith("! ended while"):
            text.append(line + "\n", style="bold")
    return text


def tools_summary(call: CallTimeline) -> str:
    steps = [s for turn in call.ordered_turns() for s in turn.steps if s.kind == "tool"]
    if not steps:
        return "none"
    failed = sum(1 for s in steps if not s.ok)
    return f"{len(steps)} ({len(steps) - failed} ok, {failed} not ok; each is shown in its turn below)"


def _dedupe(path: list[str]) -> list[str]:
    out: list[str] = []
    for state in path:
        if not out or out[-1] != state:
            out.append(state)
    return out


def call_heading(call: CallTimeline, now: float | None = None) -> str:
    parts = [call.who]
    if call.patient_name and call.caller_id:
        parts.append(call.caller_id)
    if now is not None:
        seconds = clock_text(call.seconds_on_call(now))
        parts.append(f"lasted {seconds}" if call.ended else f"{seconds} on call")
    elif call.duration_text():
        parts.append(f"lasted {call.duration_text()}")
    if call.started_at:
        parts.append(f"started {call.started_at.replace('T', ' ')[:16]}")
    parts.append(f"state {call.state or '-'}")
    if call.ended:
        parts.append(f"ENDED: {call.outcome or 'unknown'}")
    return " · ".join(parts) + f"  [{call.call_id}]"


class TranscriptView(VerticalScroll):
    DEFAULT_CLASSES = "transcript"

    def __init__(self, call: CallTimeline, *, with_record: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.call = call
        self.with_record = with_record
        self.body = Static(id="transcript-body")

    def compose(self):
        yield self.body

    def on_mount(self) -> None:
        self.refresh_call()
        if not self.with_record:
            self.anchor()   # a live call stays at its latest turn until staff scroll up; End follows again

    def refresh_call(self) -> None:
        self.body.update(transcript_text(self.call, with_record=self.with_record))



__all__ = ["TranscriptView", "call_heading", "transcript_text", "trigger_text"]
