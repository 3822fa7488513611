"""Review: the calls whose record has something a person should look at (call_review's flags), newest first,
with the highlighted call's reasons and summary under the list; Enter opens the call."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ...call_review import FLAG_LABELS
from ..call_reviews import ReviewCounts, ReviewRow
from .attention_view import when
from .open_call import OpenCall
from .row_table import RowTable, fit

REVIEW_COLUMNS = (("Started", "when", 11), ("Who", "who", 16), ("Outcome", "outcome", 11), ("Flags", "flags", None))


def flag_labels(kinds: list[str]) -> str:
    return ", ".join(FLAG_LABELS.get(kind, kind) for kind in kinds)


def counts_text(counts: ReviewCounts) -> str:
    """"2 calls: asked for a person 1, tool failed 1"."""
    if not counts.calls:
        return "none"
    kinds = ", ".join(f"{FLAG_LABELS.get(kind, kind)} {n}" for kind, n in counts.by_kind.items())
    return f"{counts.calls} call{'s' if counts.calls != 1 else ''}: {kinds}"


class ReviewView(Vertical):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: list[ReviewRow] = []

    def compose(self) -> ComposeResult:
        yield Static(id="review-title", classes="section-title")
        yield RowTable(REVIEW_COLUMNS, id="review-table")
        yield Static(id="review-detail", classes="detail")

    def show(self, rows: list[ReviewRow], *, days: int) -> None:
        self.rows = rows
        table = self.query_one("#review-table", RowTable)
        cursor = table.cursor_row
        table.clear()
        for row in rows:
            call = row.call
            table.add_row(when(call.started_at), fit(call.who, 16),
                          Text(call.outcome or ("in progress" if not call.ended_at else "-")),
                          fit(flag_labels(row.review.kinds), table.flex_width()), key=call.id)
        if rows:
            table.move_cursor(row=min(cursor, len(rows) - 1))
        self.query_one("#review-title", Static).update(
            f"Calls to review (last {days} days): {len(rows) or 'none'}" + (", newest first" if rows else ""))
        self.show_detail()

    def highlighted(self) -> ReviewRow | None:
        key = self.query_one("#review-table", RowTable).highlighted_key()
        return next((row for row in self.rows if row.call.id == key), None)

    def show_detail(self) -> None:
        row = self.highlighted()
        if row is None:
            self.query_one("#review-detail", Static).update("")
            return
        lines = [f"⚑ {FLAG_LABELS.get(flag.kind, flag.kind)}: {flag.reason}" for flag in row.review.flags]
        lines.append(row.review.summary)
        self.query_one("#review-detail", Static).update(Text("\n".join(lines)))

    def on_data_table_row_highlighted(self, event: RowTable.RowHighlighted) -> None:
        event.stop()
        self.show_detail()

    def on_data_table_row_selected(self, event: RowTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value:
            self.post_message(OpenCall(event.row_key.value))
