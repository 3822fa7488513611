"""One call's transcript over the tabs: live (updating, with listen-in, take-over, transfer and end keys) or from
History (with the call's summary and review flags above it)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static

from ..call_reviews import CallReview
from ..call_timeline import CallTimeline
from ..widgets.history_view import review_lines
from ..widgets.transcript_view import TranscriptView, call_heading


class CallScreen(Screen):
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("l", "listen_in", "Listen in"),
        Binding("t", "take_over", "Take over"),
        Binding("b", "transfer", "Blind transfer"),
        Binding("x", "end_call", "End call"),
    ]

    def __init__(self, call: CallTimeline, *, live: bool, now=None, review: CallReview | None = None) -> None:
        super().__init__()
        self.call = call
        self.review = review
        self.live = live
        self._now = now

    @property
    def call_id(self) -> str:
        return self.call.call_id

    def _heading(self) -> Text:
        kind = "Live call" if self.live else "Recorded call"
        return Text(f"{kind}: {call_heading(self.call, self._now() if self._now and self.live else None)}")

    def compose(self) -> ComposeResult:
        yield Static(self._heading(), id="call-heading", classes="call-heading")
        if self.review is not None:
            yield Static(Text(review_lines(self.review)), id="call-review", classes="call-review")
        yield TranscriptView(self.call, with_record=not self.live, id="call-transcript")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(TranscriptView).focus()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("listen_in", "take_over", "transfer", "end_call"):
            return self.live and not self.call.ended
        return True

    def refresh_heading(self) -> None:
        """The clock moved: time on call."""
        if not self.is_mounted:  # pushed, not composed yet: compose will draw the call as it is then
            return
        self.query_one("#call-heading", Static).update(self._heading())

    def refresh_call(self) -> None:
        """New events arrived for this call."""
        if not self.is_mounted:
            return
        self.refresh_heading()
        self.query_one(TranscriptView).refresh_call()
        self.refresh_bindings()

    def action_listen_in(self) -> None:
        self.app.ask_call_action("listen_in", self.call.call_id)

    def action_take_over(self) -> None:
        self.app.ask_call_action("take_over", self.call.call_id)

    def action_transfer(self) -> None:
        self.app.ask_call_action("transfer_now", self.call.call_id)

    def action_end_call(self) -> None:
        self.app.ask_call_action("end_call", self.call.call_id)
