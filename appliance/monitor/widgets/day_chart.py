"""Calls per hour over one day, as block characters (readable without colour)."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

BLOCKS = " ▁▂▃▄▅▆▇█"


def hours_to_show(counts: dict[int, int], first: int = 7, last: int = 19) -> range:
    if counts:
        first, last = min(first, min(counts)), max(last, max(counts))
    return range(first, last + 1)


def chart_lines(counts: dict[int, int], *, height: int = 4, column: int = 3) -> list[str]:
    hours = hours_to_show(counts)
    peak = max(counts.values(), default=0)
    label_width = max(2, len(str(peak)))
    lines = []
    for row in range(height, 0, -1):
        cells = []
        for hour in hours:
            value = counts.get(hour, 0)
            eighths = round(value / peak * height * 8) if peak else 0
            level = max(0, min(8, eighths - (row - 1) * 8))
            if value and row == 1 and level == 0:
                level = 1   # a single call still shows
            cells.append((BLOCKS[level] * (column - 1)).ljust(column))
        label = str(peak) if row == height else ("0" if row == 1 else "")
        lines.append(f"{label:>{label_width}} │" + "".join(cells))
    lines.append(" " * label_width + " └" + "─" * (len(hours) * column))
    labels = "".join((f"{hour:02d}" if (hour - hours.start) % 2 == 0 else "").ljust(column) for hour in hours)
    lines.append(" " * (label_width + 2) + labels)
    return lines


class DayChart(Widget):
    DEFAULT_CSS = "DayChart { height: auto; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.counts: dict[int, int] = {}

    def set_counts(self, counts: dict[int, int]) -> None:
        self.counts = dict(counts)
        self.refresh(layout=True)

    def get_content_height(self, container, viewport, width: int) -> int:
        return 7

    def render(self) -> Text:
        return Text("calls per hour\n" + "\n".join(chart_lines(self.counts)), no_wrap=True, overflow="crop")
