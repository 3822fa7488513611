"""Live calls: one row per call in progress, updated as its events arrive (with several services watched, a
first column names the box each call is on)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from ..call_timeline import CallTimeline, clock_text
from ..turn_latency import format_ms
from .open_call import OpenCall
from .row_table import RowTable, fit

COLUMNS = (("Caller", "who", 16), ("On call", "time", 7), ("State", "state", 18), ("Latency", "latency", 7),
           ("Last said", "said", None))
BOX_COLUMN = ("Box", "box", 10)


def last_said(call: CallTimeline) -> str:
    """"C:" the caller, "R:" the receptionist (the notice above the table says so)."""
    said = call.last_said
    if said.startswith("receptionist: "):
        return "R: " + said[len("receptionist: "):]
    if said.startswith("caller: "):
        return "C: " + said[len("caller: "):]
    return said or "-"


class LiveCallsView(Vertical):
    BINDINGS = [
        Binding("t", "transfer", "Transfer now"),
        Binding("x", "end_call", "End call"),
    ]

    class CallAction(Message):
        def __init__(self, action: str, call_id: str) -> None:
            super().__init__()
            self.action = action
            self.call_id = call_id

    def __init__(self, *, boxes: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.columns = (BOX_COLUMN, *COLUMNS) if boxes else COLUMNS
        self._shown: list[CallTimeline] = []
        self._boxes: dict[str, str] = {}
        self._now = 0.0

    def compose(self) -> ComposeResult:
        yield Static(id="live-message", classes="notice")
        yield RowTable(self.columns, min_flex=20, id="live-table")

    @property
    def table(self) -> RowTable:
        return self.query_one("#live-table", RowTable)

    def on_resize(self) -> None:
        self.call_after_refresh(self._redraw)

    def _redraw(self) -> None:
        self._fill(self._shown, self._now)

    def _cells(self, call: CallTimeline, now: float) -> dict[str, Text]:
        return {
            "box": fit(self._boxes.get(call.call_id), BOX_COLUMN[2]),
            "who": fit(call.who, 16),
            "time": Text(clock_text(call.seconds_on_call(now))),
            "state": fit(call.state or "-", 18),
            "latency": Text(format_ms(call.last_latency_ms)),
            "said": fit(last_said(call), self.table.flex_width()),
        }

    def show(self, calls: list[CallTimeline], now: float, *, connected: bool,
             offline: list[tuple[str, str, str | None]], boxes: dict[str, str] | None = None) -> None:
        """Make the rows match `calls` (in order), keeping the cursor on the same call. `offline`: (box, where,
        why) of each service not connected; `boxes`: each call's box, when several services are watched."""
        message = self.query_one("#live-message", Static)
        self._boxes = boxes or {}
        if not connected and boxes is None:
            where = offline[0][1] if offline else "its socket"
            message.update(Text("The receptionist service is not running: nothing answers at\n"
                                f"{where}\n"
                                "Live calls appear here when it starts; the other screens read the database."))
        else:
            if not calls:
                lines = ["No calls in progress."]
            else:
                count = f"{len(calls)} call{'s' if len(calls) != 1 else ''} in progress"
                lines = [f"{count}. Last said: C = caller, R = receptionist."]
            lines += [f"! {box} not reachable at {where}: {why or 'not running'}; trying again."
                      for box, where, why in offline]
            message.update(Text("\n".join(lines)))
        self._fill(calls, now)

    def _fill(self, calls: list[CallTimeline], now: float) -> None:
        had_calls = bool(self._shown)
        self._shown, self._now = list(calls), now
        if had_calls != bool(calls):
            self.refresh_bindings()
        table = self.table
        wanted = [call.call_id for call in calls]
        present = table.keys()
        if present != wanted:
            selected = table.highlighted_key()
            table.clear()
            for call in calls:
                cells = self._cells(call, now)
                table.add_row(*(cells[key] for _label, key, _w in self.columns), key=call.call_id)
            if selected in wanted:
                table.move_cursor(row=wanted.index(selected))
            return
        for call in calls:
            for key, value in self._cells(call, now).items():
                if key != "box" or self._boxes:
                    table.update_cell(call.call_id, key, value)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("transfer", "end_call"):
            return self.highlighted_call() is not None   # nothing to offer without a call
        return True

    def highlighted_call(self) -> str | None:
        return self.table.highlighted_key()

    def on_data_table_row_selected(self, event: RowTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value:
            self.post_message(OpenCall(event.row_key.value))

    def _call_action(self, action: str) -> None:
        call_id = self.highlighted_call()
        if call_id:
            self.post_message(self.CallAction(action, call_id))
        else:
            self.notify("No call in progress is selected.", severity="warning")

    def action_transfer(self) -> None:
        self._call_action("transfer_now")

    def action_end_call(self) -> None:
        self._call_action("end_call")
