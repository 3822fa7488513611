"""A yes/no question before a staff action that cannot be undone."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static


class ConfirmPrompt(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "Cancel"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="prompt"):
            yield Static(Text(self.question))
            yield Static("y = yes, n = no", classes="prompt-help")
        yield Footer()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
