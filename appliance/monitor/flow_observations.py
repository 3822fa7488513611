"""The flow as designed against the flow as the calls lived it (the customer's FSM State Guide).

Over the most recent calls: every canonical state of the loaded flow with how
often calls entered it (never-observed states included), states the records
name that the flow does not have (flagged), the routing triggers the caller
turns fired (route, confidence, evidence, count, last seen), and the tools
run with their result kinds: ok, guard (the flow's guards refused), pms (the
clinic system refused or failed) and other (anything else); the commonest paths
calls took, and where those that ended in a call back or a transfer left the
happy path (call_paths.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.flow import Flow
from .call_paths import DepartureRow, PathRow, common_paths, departures
from .database_access import Connection, rows

LAST_CALLS = 500


@dataclass(frozen=True)
class StateRow:
    name: str
    kind: str            # decision | action | terminal | "not in flow"
    in_flow: bool
    visits: int
    calls: int
    last_seen: str | None

    @property
    def observed(self) -> bool:
        return self.visits > 0


@dataclass(frozen=True)
class TriggerRow:
    route: str
    confidence: str
    evidence: str
    count: int
    last_seen: str | None


@dataclass(frozen=True)
class ToolRow:
    name: str
    calls: int
    ok: int
    guard: int
    pms: int
    other: int
    last_seen: str | None

    @property
    def error_pct(self) -> float:
        return 100.0 * (self.calls - self.ok) / self.calls if self.calls else 0.0


@dataclass
class FlowObservations:
    calls_considered: int
    states: list[StateRow] = field(default_factory=list)
    triggers: list[TriggerRow] = field(default_factory=list)
    tools: list[ToolRow] = field(default_factory=list)
    paths: list[PathRow] = field(default_factory=list)
    departures: list[DepartureRow] = field(default_factory=list)

    @property
    def canonical(self) -> int:
        return sum(1 for s in self.states if s.in_flow)

    @property
    def observed(self) -> int:
        return sum(1 for s in self.states if s.in_flow and s.observed)

    @property
    def not_in_flow(self) -> int:
        return sum(1 for s in self.states if not s.in_flow)


def _count_kind(kind: str) -> str:
    """How many of the group's tool calls had the result `kind` (one way for both back ends)."""
    return f"count(CASE WHEN result_kind = '{kind}' THEN 1 END)"


def observe_flow(conn: Connection, flow: Flow | None, *, last_calls: int = LAST_CALLS) -> FlowObservations:
    recent = "call_id IN (SELECT id FROM calls ORDER BY started_at DESC, rowid DESC LIMIT ?)"
    considered = int(conn.execute("SELECT count(*) FROM (SELECT id FROM calls ORDER BY started_at DESC LIMIT ?) "
                                  "AS recent", [last_calls]).fetchone()[0])
    visits = {row["to_state"]: row for row in rows(conn, f"""
        SELECT to_state, count(*) AS visits, count(DISTINCT call_id) AS calls, max(at) AS last_seen
        FROM transitions WHERE {recent} AND to_state IS NOT NULL GROUP BY to_state""", [last_calls])}
    observations = FlowObservations(calls_considered=considered)
    states = flow.states if flow is not None else {}
    for name, state in states.items():
        seen = visits.get(name)
        observations.states.append(StateRow(name, state.kind, True, seen["visits"] if seen else 0,
                                            seen["calls"] if seen else 0, seen["last_seen"] if seen else None))
    for name in sorted(set(visits) - set(states)):
        seen = visits[name]
        observations.states.append(StateRow(name, "not in flow", False, seen["visits"], seen["calls"], seen["last_seen"]))
    observations.triggers = [TriggerRow(**row) for row in rows(conn, f"""
        SELECT trigger_route AS route, coalesce(trigger_confidence, '') AS confidence,
               coalesce(trigger_evidence, '') AS evidence, count(*) AS count, max(at) AS last_seen
        FROM turns WHERE {recent} AND seq > 0 AND trigger_route IS NOT NULL
        GROUP BY trigger_route, trigger_confidence, trigger_evidence
        ORDER BY count DESC, last_seen DESC, route""", [last_calls])]
    observations.tools = [ToolRow(**row) for row in rows(conn, f"""
        SELECT name, count(*) AS calls, {_count_kind('ok')} AS ok, {_count_kind('guard')} AS guard,
               {_count_kind('pms')} AS pms, {_count_kind('other')} AS other, max(at) AS last_seen
        FROM tool_calls WHERE {recent} GROUP BY name ORDER BY calls DESC, name""", [last_calls])]
    observations.paths = common_paths(conn, last_calls=last_calls)
    observations.departures = departures(conn, flow, last_calls=last_calls)
    return observations
