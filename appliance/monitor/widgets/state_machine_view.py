"""State machine: the loaded flow's states against what the calls did (the FSM State Guide).

Five tables, one at a time: states (s), routing triggers observed (g), tools
observed (o), the commonest paths (p) and where calls handed to a call back or
a person left the happy path (h). Never-observed states say so; states the
records name that the flow does not have are flagged `⚑ NOT IN FLOW`.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import ContentSwitcher, Static

from ..flow_observations import FlowObservations
from .row_table import ReadOnlyTable, RowTable, fit

STATE_COLUMNS = (("State", "state", 22), ("Kind", "kind", 8), ("Visits", "visits", 6), ("Calls", "calls", 5),
                 ("Last seen", "seen", 11), ("Note", "note", None))
TRIGGER_COLUMNS = (("Route/confidence", "route", 26), ("Count", "count", 5), ("Last seen", "seen", 11),
                   ("Evidence", "evidence", None))
TOOL_COLUMNS = (("Tool", "tool", 23), ("Calls", "calls", 5), ("OK", "ok", 4), ("Guard", "guard", 5), ("PMS", "pms", 4),
                ("Other", "other", 5), ("Err %", "err", 5), ("Last seen", "seen", None))
PATH_COLUMNS = (("Calls", "calls", 5), ("Outcomes", "outcomes", 16), ("Path", "path", None))
DEPARTURE_COLUMNS = (("Left at", "at", 18), ("Why", "why", 24), ("Ended", "outcome", 11), ("Calls", "calls", 5),
                     ("Went to", "to", None))
VIEWS = (("states", "s", "States"), ("triggers", "g", "Triggers"), ("tools", "o", "Tools"), ("paths", "p", "Paths"),
         ("departures", "h", "Handoffs"))


def seen(text: str | None) -> Text:
    return Text(text.replace("T", " ")[5:16] if text and len(text) >= 16 else (text or "-"))


def state_note(in_flow: bool, observed: bool) -> str:
    if not in_flow:
        return "⚑ NOT IN FLOW"
    return "observed" if observed else "never observed"


class StateMachineView(Vertical):
    BINDINGS = [Binding(key, f"show('{view}')", label) for view, key, label in VIEWS]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.observations: FlowObservations | None = None
        self.current = "states"
        self.flow_name = "flow"

    def compose(self) -> ComposeResult:
        yield Static(id="flow-summary", classes="section-lines")
        with ContentSwitcher(initial="states", id="flow-switcher"):
            yield ReadOnlyTable(STATE_COLUMNS, id="states")
            yield ReadOnlyTable(TRIGGER_COLUMNS, id="triggers")
            yield ReadOnlyTable(TOOL_COLUMNS, min_flex=11, id="tools")
            yield ReadOnlyTable(PATH_COLUMNS, id="paths")
            yield ReadOnlyTable(DEPARTURE_COLUMNS, id="departures")

    def show(self, observations: FlowObservations, *, flow_name: str) -> None:
        self.observations = observations
        self.flow_name = flow_name
        states = self.query_one("#states", RowTable)
        states.clear()
        for row in observations.states:
            states.add_row(Text(row.name), Text(row.kind if row.in_flow else "?"),
                           Text(str(row.visits) if row.observed else "—"), Text(str(row.calls) if row.observed else "—"),
                           seen(row.last_seen), Text(state_note(row.in_flow, row.observed)), key=row.name)
        triggers = self.query_one("#triggers", RowTable)
        triggers.clear()
        for index, row in enumerate(observations.triggers):
            triggers.add_row(fit(f"{row.route}/{row.confidence}", 26), Text(str(row.count)), seen(row.last_seen),
                             fit(row.evidence, triggers.flex_width()), key=str(index))
        tools = self.query_one("#tools", RowTable)
        tools.clear()
        for row in observations.tools:
            tools.add_row(Text(row.name), *(Text(str(n)) for n in (row.calls, row.ok, row.guard, row.pms, row.other)),
                          Text(f"{row.error_pct:.0f}%"), seen(row.last_seen), key=row.name)
        paths = self.query_one("#paths", RowTable)
        paths.clear()
        for index, row in enumerate(observations.paths):
            paths.add_row(Text(str(row.calls)), fit(row.outcome_text, 16), fit(row.text, paths.flex_width()),
                          key=str(index))
        departures = self.query_one("#departures", RowTable)
        departures.clear()
        for index, row in enumerate(observations.departures):
            departures.add_row(fit(row.at, 18), fit(row.route, 24), Text(row.outcome), Text(str(row.calls)),
                               fit(row.went_to, departures.flex_width()), key=str(index))
        self._summary()

    def _summary(self) -> None:
        o = self.observations
        if o is None:
            return
        flagged = f" · ⚑ {o.not_in_flow} not in flow" if o.not_in_flow else ""
        counts = {"states": len(o.states), "triggers": len(o.triggers), "tools": len(o.tools), "paths": len(o.paths),
                  "departures": len(o.departures)}
        tabs = "  ".join(f"{'▸' if view == self.current else ' '} {key} {label} {counts[view]}"
                          for view, key, label in VIEWS)
        head = (f"Last {o.calls_considered} calls: {o.observed} of {o.canonical} states observed, "
                f"{o.canonical - o.observed} never{flagged}")
        room = (self.size.width or 80) - 2
        flow = f" · {self.flow_name}"
        if len(head + flow) <= room:
            head += flow
        elif len(tabs + flow) <= room:
            tabs += flow
        self.query_one("#flow-summary", Static).update(Text(f"{head}\n{tabs}"))

    def action_show(self, which: str) -> None:
        self.current = which
        self.query_one("#flow-switcher", ContentSwitcher).current = which
        self.query_one(f"#{which}", RowTable).focus()
        self._summary()

    def focus_table(self) -> None:
        self.query_one(f"#{self.current}", RowTable).focus()
