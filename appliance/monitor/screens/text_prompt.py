"""A line of text from staff: a note on a callback."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static


class TextPrompt(ModalScreen["str | None"]):
    """Enter gives the text (which may be empty unless `required`); Escape gives None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, *, required: bool = False, placeholder: str = "") -> None:
        super().__init__()
        self.question = question
        self.required = required
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="prompt"):
            yield Static(Text(self.question))
            yield Input(placeholder=self.placeholder, id="prompt-input")
            yield Static("Enter = confirm, Esc = cancel", classes="prompt-help")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#prompt-input", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if self.required and not text:
            self.notify("Type something first (or Esc to cancel).", severity="warning")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
