"""The top line: is the service there, which database, who is at the keyboard."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import Static


class StatusLine(Static):
    DEFAULT_CLASSES = "status-line"

    def show(self, *, connected: bool, calls: int, database: str, user: str, problem: str | None = None) -> None:
        if connected:
            live = f"● service running · {calls} call{'s' if calls != 1 else ''} in progress"
            self.set_class(False, "-offline")
        else:
            live = "○ SERVICE NOT RUNNING · history only"
            self.set_class(True, "-offline")
        where = "NO DATABASE (see History)" if problem else f"db {Path(database).name}"
        self.update(Text(f"{live} │ {where} │ you: {user}"))
