"""Needs attention: open callbacks to work through (their first note is the call's summary), bookings a caller
may not have heard, calls handed off today, calls cut off or failed (each with its summary)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from ..call_history import CallSummary
from .open_call import OpenCall
from .row_table import RowTable, fit

CALLBACK_COLUMNS = (("Who", "who", 14), ("Number", "phone", 13), ("When", "when", 11), ("Urgency", "urgency", 7),
                    ("Reason · note", "reason", None))
HANDOFF_COLUMNS = (("Who", "who", 16), ("Number", "number", 13), ("Started", "when", 11), ("Outcome", "outcome", 11),
                   ("Summary", "summary", None))
FAILED_COLUMNS = (("Who", "who", 16), ("Number", "number", 13), ("Started", "when", 11), ("Outcome", "outcome", 12),
                  ("Summary", "summary", None))
UNHEARD_COLUMNS = (("Who", "who", 16), ("Number", "phone", 13), ("Booked for", "when", 11),
                   ("With", "practitioner", None))


def when(text: str | None) -> Text:
    """"11-24 09:41" from clinic-local ISO text."""
    if not text or len(text) < 16:
        return Text(text or "-")
    return Text(text.replace("T", " ")[5:16])


def reason_and_note(callback: dict) -> str:
    reason = callback.get("reason") or "-"
    note = callback.get("note")
    return f"{reason} · note: {note}" if note else reason


class AttentionView(Vertical):
    BINDINGS = [
        Binding("d", "mark_done", "Mark done"),
        Binding("n", "add_note", "Add note"),
    ]

    class CallbackAction(Message):
        def __init__(self, action: str, callback: dict) -> None:
            super().__init__()
            self.action = action
            self.callback = callback

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.callbacks: list[dict] = []

    def compose(self) -> ComposeResult:
        yield Static(id="callbacks-title", classes="section-title")
        yield RowTable(CALLBACK_COLUMNS, min_flex=16, id="callbacks-table")
        yield Static(id="callback-detail", classes="detail")
        yield Static(id="unheard-title", classes="section-title")
        yield RowTable(UNHEARD_COLUMNS, zebra_stripes=False, id="unheard-table")
        yield Static(id="handoffs-title", classes="section-title")
        yield RowTable(HANDOFF_COLUMNS, zebra_stripes=False, id="handoffs-table")
        yield Static(id="failed-title", classes="section-title")
        yield RowTable(FAILED_COLUMNS, zebra_stripes=False, id="failed-table")

    def show(self, callbacks: list[dict], handoffs: list[CallSummary], failed: list[CallSummary], *,
             failed_days: int, unheard: list[dict] = (), summaries: dict[str, str] | None = None) -> None:
        summaries = summaries or {}
        self.callbacks = callbacks
        table = self.query_one("#callbacks-table", RowTable)
        cursor = table.cursor_row
        table.clear()
        for callback in callbacks:
            table.add_row(fit(callback.get("name"), 14), fit(callback.get("phone"), 13), when(callback.get("created_at")),
                          Text("URGENT" if callback.get("urgency") == "urgent" else "normal"),
                          fit(reason_and_note(callback), table.flex_width()), key=callback["id"])
        if callbacks:
            table.move_cursor(row=min(cursor, len(callbacks) - 1))
        self.show_detail()
        self.query_one("#callbacks-title", Static).update(
            f"Open callbacks: {len(callbacks)} (urgent first, then oldest)" if callbacks else "Open callbacks: none")
        table = self.query_one("#unheard-table", RowTable)
        table.clear()
        for booking in unheard:
            table.add_row(fit(booking.get("who"), 16), fit(booking.get("phone"), 13), when(booking.get("start")),
                          fit(booking.get("practitioner"), table.flex_width()), key=booking["call_id"])
        self.query_one("#unheard-title", Static).update(
            f"Bookings to confirm with the patient (not heard on the call): {len(unheard) or 'none'}")
        for table_id, calls in (("#handoffs-table", handoffs), ("#failed-table", failed)):
            table = self.query_one(table_id, RowTable)
            table.clear()
            for call in calls:
                cells = [fit(call.who, 16), fit(call.caller_id, 13), when(call.started_at)]
                if table_id == "#handoffs-table":
                    cells.append(Text(call.outcome or ("transfer" if call.end_action == "transfer" else "-")))
                else:
                    cells.append(Text(call.outcome or "-"))
                cells.append(fit(summaries.get(call.id) or call.final_state, table.flex_width()))
                table.add_row(*cells, key=call.id)
        self.query_one("#handoffs-title", Static).update(
            f"Transferred or sent to emergency services today: {len(handoffs) or 'none'}")
        self.query_one("#failed-title", Static).update(
            f"Calls cut off or failed (last {failed_days} days): {len(failed) or 'none'}")

    def show_detail(self) -> None:
        """The highlighted callback's reason and notes in full (its first note is the call's summary)."""
        callback = self.highlighted_callback()
        self.query_one("#callback-detail", Static).update(Text(reason_and_note(callback)) if callback else "")

    def on_data_table_row_highlighted(self, event: RowTable.RowHighlighted) -> None:
        if event.data_table.id == "callbacks-table":
            self.show_detail()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("mark_done", "add_note"):
            return self.app.focused is self.query_one("#callbacks-table")
        return True

    def highlighted_callback(self) -> dict | None:
        key = self.query_one("#callbacks-table", RowTable).highlighted_key()
        return next((callback for callback in self.callbacks if callback["id"] == key), None)

    def _callback_action(self, action: str) -> None:
        callback = self.highlighted_callback()
        if callback is None:
            self.notify("No open callback is selected.", severity="warning")
            return
        self.post_message(self.CallbackAction(action, callback))

    def action_mark_done(self) -> None:
        self._callback_action("mark_callback_done")

    def action_add_note(self) -> None:
        self._callback_action("add_callback_note")

    def on_data_table_row_selected(self, event: RowTable.RowSelected) -> None:
        event.stop()
        if event.data_table.id == "callbacks-table":
            callback = self.highlighted_callback()
            if callback and callback.get("call_id"):
                self.post_message(OpenCall(callback["call_id"]))
            elif callback:
                self.notify("This callback was not made by a call.", timeout=3)
        elif event.row_key.value:
            self.post_message(OpenCall(event.row_key.value))
