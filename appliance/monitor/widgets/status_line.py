"""The top line: is the service there (each of them, watching several), which database, who is at the keyboard."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import Static


class StatusLine(Static):
    DEFAULT_CLASSES = "status-line"

    def show(self, *, connected: bool, calls: int, database: str, user: str, problem: str | None = None,
             services: list[tuple[str, bool]] | None = None) -> None:
        """`services`: (box, connected) of each service, when several are watched."""
        if services is not None:
            up = [name for name, on in services if on]
            down = [name for name, on in services if not on]
            live = f"● {len(up)} of {len(services)} services · {calls} call{'s' if calls != 1 else ''} in progress"
            if down:
                live += " · NOT REACHABLE: " + ", ".join(down)
            self.set_class(not up, "-offline")
        elif connected:
            live = f"● service running · {calls} call{'s' if calls != 1 else ''} in progress"
            self.set_class(False, "-offline")
        else:
            live = "○ SERVICE NOT RUNNING · history only"
            self.set_class(True, "-offline")
        where = "NO DATABASE (see History)" if problem else f"db {_short(database)}"
        self.update(Text(f"{live} │ {where} │ you: {user}"))


def _short(database: str) -> str:
    """A file by its name; the shared store by its address (no password: backend.database_name)."""
    return database if "://" in database else Path(database).name
