"""History: past calls searchable by date, outcome and caller, each with its summary (the highlighted call's
whole summary and review flags under the list); Enter opens one."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from rich.text import Text
from textual.widgets import Input, Select, Static

from ..call_history import OUTCOMES, CallSummary
from ..call_reviews import CallReview
from .open_call import OpenCall
from .row_table import RowTable, fit

COLUMNS = (("Started", "when", 16), ("Caller", "who", 16), ("Outcome", "outcome", 11), ("Length", "length", 6),
           ("Turns", "turns", 5), ("Summary", "summary", None))


class DateNotUnderstood(ValueError):
    pass


def parse_day(text: str, today: date) -> date | None:
    """"" (any day), "today", "yesterday", "2026-11-24", "24/11/2026" or "24/11" (this year)."""
    text = text.strip().lower()
    if not text:
        return None
    if text == "today":
        return today
    if text == "yesterday":
        return today - timedelta(days=1)
    for pattern in ("%Y-%m-%d", "%d/%m/%Y"):
        try:
            return datetime.strptime(text, pattern).date()
        except ValueError:
            pass
    try:
        return datetime.strptime(f"{text}/{today.year}", "%d/%m/%Y").date()
    except ValueError:
        raise DateNotUnderstood(f"date {text!r}: use YYYY-MM-DD, DD/MM, today or yesterday") from None


def review_lines(review: CallReview) -> str:
    """The summary, then a line per review flag."""
    return "\n".join([review.summary] + [f"⚑ {flag.reason}" for flag in review.flags])


class HistoryView(Vertical):
    BINDINGS = [
        Binding("slash", "focus_search", "Search"),
        Binding("escape", "focus_table", "To list", show=False),
    ]

    class Search(Message):
        def __init__(self, day_text: str, outcome: str | None, caller: str) -> None:
            super().__init__()
            self.day_text = day_text
            self.outcome = outcome
            self.caller = caller

    reviews: dict[str, CallReview] = {}

    def compose(self) -> ComposeResult:
        with Horizontal(id="history-filters"):
            yield Input(placeholder="date YYYY-MM-DD", id="history-date")
            yield Select([(o, o) for o in OUTCOMES + ("in progress",)], prompt="any outcome", id="history-outcome")
            yield Input(placeholder="caller number or name", id="history-caller")
        yield Static(id="history-count", classes="section-title")
        yield RowTable(COLUMNS, id="history-table")
        yield Static(id="history-detail", classes="detail")

    def criteria(self) -> Search:
        outcome = self.query_one("#history-outcome", Select).value
        return self.Search(self.query_one("#history-date", Input).value,
                           outcome if isinstance(outcome, str) else None,
                           self.query_one("#history-caller", Input).value)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.criteria())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.criteria())
        self.query_one("#history-table", RowTable).focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self.post_message(self.criteria())

    def show(self, calls: list[CallSummary], *, note: str = "", reviews: dict[str, CallReview] | None = None) -> None:
        self.reviews = reviews or {}
        table = self.query_one("#history-table", RowTable)
        table.clear()
        for call in calls:
            review = self.reviews.get(call.id)
            table.add_row(Text((call.started_at or "-").replace("T", " ")[:16]), fit(call.who, 16),
                          Text(call.outcome or ("in progress" if not call.ended_at else "-")), Text(call.duration),
                          Text(str(call.turns)), fit(review.summary if review else call.final_state, table.flex_width()),
                          key=call.id)
        count = f"{len(calls)} call{'s' if len(calls) != 1 else ''}" + (", newest first" if calls else "")
        self.query_one("#history-count", Static).update(Text(f"{count}{' · ' + note if note else ''}"))
        self.show_detail()

    def show_detail(self) -> None:
        review = self.reviews.get(self.query_one("#history-table", RowTable).highlighted_key() or "")
        self.query_one("#history-detail", Static).update(Text(review_lines(review)) if review else "")

    def on_data_table_row_highlighted(self, event: RowTable.RowHighlighted) -> None:
        event.stop()
        self.show_detail()

    def action_focus_search(self) -> None:
        self.query_one("#history-date", Input).focus()

    def action_focus_table(self) -> None:
        self.query_one("#history-table", RowTable).focus()

    def on_data_table_row_selected(self, event: RowTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value:
            self.post_message(OpenCall(event.row_key.value))
