"""A few labelled lines of text from staff at once: a block's times and reason, a booking's patient."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static


class FormPrompt(ModalScreen["dict[str, str] | None"]):
    """`fields`: (key, label, starting value). Enter goes to the next line, and on the last one gives
    {key: text}; Escape gives None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, fields: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.fields = fields

    def compose(self) -> ComposeResult:
        with Vertical(classes="prompt"):
            yield Static(Text(self.title_text), classes="prompt-title")
            for key, label, value in self.fields:
                yield Static(Text(label), classes="prompt-label")
                yield Input(value=value, id=f"field-{key}")
            yield Static("Enter = next / confirm, Esc = cancel", classes="prompt-help")
        yield Footer()

    def on_mount(self) -> None:
        self.query(Input).first().focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        inputs = list(self.query(Input))
        position = inputs.index(event.input)
        if position + 1 < len(inputs):
            inputs[position + 1].focus()
            return
        self.dismiss({key: self.query_one(f"#field-{key}", Input).value.strip() for key, _, _ in self.fields})

    def action_cancel(self) -> None:
        self.dismiss(None)
