"""The message every list of calls posts when a row is chosen: open that call (the app shows it)."""

from __future__ import annotations

from textual.message import Message


class OpenCall(Message):
    def __init__(self, call_id: str) -> None:
        super().__init__()
        self.call_id = call_id
