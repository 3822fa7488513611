"""Today: the day's calls and what they did, turn latency, the calls to review, and calls per hour."""

from __future__ import annotations

from datetime import date

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from ..call_reviews import ReviewCounts
from ..day_summary import DaySummary
from ..turn_latency import format_ms
from .day_chart import DayChart
from .review_view import counts_text


def summary_text(summary: DaySummary) -> Text:
    """Three columns of label and number (plain text: it reads the same in any terminal)."""
    columns = [
        [("Calls", summary.calls), ("In progress", summary.in_progress), ("Callbacks", summary.callbacks)],
        [("Bookings", summary.bookings), ("Reschedules", summary.reschedules),
         ("Cancellations", summary.cancellations)],
        [("Transfers", summary.transfers), ("Abandoned", summary.abandoned), ("Emergency", summary.emergencies),
         ("Failed", summary.failed)],
    ]
    rows = max(len(column) for column in columns)
    lines = []
    for row in range(rows):
        cells = []
        for column in columns:
            label, value = column[row] if row < len(column) else ("", "")
            cells.append(f"{label:<14}{value!s:>4}" if label else " " * 18)
        lines.append("    ".join(cells).rstrip())
    return Text("\n".join(lines))


class TodayView(VerticalScroll):
    BINDINGS = [
        Binding("left_square_bracket", "day(-1)", "Day before"),
        Binding("right_square_bracket", "day(1)", "Day after"),
        Binding("0", "day(0)", "Today"),
    ]

    class ChangeDay(Message):
        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.can_focus = True

    def compose(self) -> ComposeResult:
        yield Static(id="today-title", classes="section-title")
        yield Static(id="today-numbers")
        yield Static(id="today-latency")
        yield Static(id="today-review")
        yield DayChart(id="today-chart")

    def show(self, summary: DaySummary, *, today: date, review: ReviewCounts | None = None) -> None:
        which = "today" if summary.day == today else ("yesterday" if (today - summary.day).days == 1 else "")
        title = summary.day.strftime("%A %d %B %Y") + (f" ({which})" if which else "")
        self.query_one("#today-title", Static).update(title)
        self.query_one("#today-numbers", Static).update(summary_text(summary))
        if summary.turns_measured:
            latency = Text(f"Turn latency: average {format_ms(summary.avg_latency_ms)} · "
                           f"p95 {format_ms(summary.p95_latency_ms)} over {summary.turns_measured} caller turns")
        else:
            latency = Text("Turn latency: no caller turns measured on this day")
        self.query_one("#today-latency", Static).update(latency)
        self.query_one("#today-review", Static).update(
            Text(f"To review (7): {counts_text(review)}" if review is not None else ""))
        self.query_one("#today-chart", DayChart).set_counts(summary.calls_by_hour)

    def action_day(self, step: int) -> None:
        self.post_message(self.ChangeDay(step))
