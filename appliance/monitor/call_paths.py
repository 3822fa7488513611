"""The paths calls took through the flow, and where those that ended in a call back or a transfer left it.

A call's path is the states where the receptionist waited for the caller, turn by turn (a state kept over
several turns counts once), then the state the call ended in: what the caller lived, without the routing
between. Over the most recent calls the commonest paths are counted, with their outcomes.

A call that ended in a call back or a transfer left the happy path at its first *departure* before the handoff:
a transition along a flow edge that gives a callback reason, or along a global edge that is not a side trip
(a person, a call back, a crisis); or the engine's own ways off: stuck after repeated misunderstandings, a tool
that failed, a transfer that failed, an engine error. Without a flow only the engine's own ways are known; a
call with no departure in its record is shown at its last routed move. A call staff took over left where it
was when they did.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from ..engine.flow import Flow
from .database_access import Connection, rows

HANDOFF_OUTCOMES = ("callback", "transferred", "transferred_by_staff", "taken_over")
HANDOFF_TOOLS = ("CreateCallbackRequest", "TransferCall")
ENGINE_DEPARTURES = ("tool_failed", "transfer_failed", "engine_error")
TOP_PATHS = 20


@dataclass(frozen=True)
class PathRow:
    states: tuple[str, ...]
    calls: int
    outcomes: dict[str, int]

    @property
    def text(self) -> str:
        return " › ".join(self.states)

    @property
    def outcome_text(self) -> str:
        return ", ".join(f"{name} {count}" if len(self.outcomes) > 1 else name
                         for name, count in sorted(self.outcomes.items(), key=lambda kv: (-kv[1], kv[0])))


@dataclass(frozen=True)
class DepartureRow:
    at: str           # the state the caller was answering when the call left the path
    route: str        # why: the trigger of the move (route, and evidence where it says more)
    went_to: str      # the state it moved to
    outcome: str
    calls: int
    last_seen: str | None


def _recent(last_calls: int) -> str:
    return f"call_id IN (SELECT id FROM calls ORDER BY started_at DESC, rowid DESC LIMIT {int(last_calls)})"


def common_paths(conn: Connection, *, last_calls: int, top: int = TOP_PATHS) -> list[PathRow]:
    by_call: dict[str, list[str]] = defaultdict(list)
    for row in rows(conn, f"SELECT call_id, state FROM turns WHERE {_recent(last_calls)} AND state IS NOT NULL "
                          "ORDER BY call_id, seq"):
        path = by_call[row["call_id"]]
        if not path or path[-1] != row["state"]:
            path.append(row["state"])
    outcomes = {row["id"]: row["outcome"] or ("in progress" if not row["ended_at"] else "unknown")
                for row in rows(conn, "SELECT id, outcome, ended_at FROM calls WHERE id IN "
                                      f"(SELECT id FROM calls ORDER BY started_at DESC, rowid DESC LIMIT {int(last_calls)})")}
    counted: Counter[tuple[str, ...]] = Counter()
    by_outcome: dict[tuple[str, ...], Counter[str]] = defaultdict(Counter)
    for call_id, path in by_call.items():
        key = tuple(path)
        counted[key] += 1
        by_outcome[key][outcomes.get(call_id, "unknown")] += 1
    ordered = sorted(counted.items(), key=lambda kv: (-kv[1], len(kv[0]), kv[0]))[:top]
    return [PathRow(path, calls, dict(by_outcome[path])) for path, calls in ordered]


def _departure_edges(flow: Flow | None) -> tuple[set[tuple[str, str]], set[str]]:
    """(from, to) of the states' edges that give a callback reason; the targets of global edges that hand off
    (a reason, or a way on that is not a side trip and not straight to an ending without a handoff)."""
    if flow is None:
        return set(), set()
    edges = {(name, edge.to) for name, state in flow.states.items() for edge in state.edges if edge.reason}

    def hands_off(target: str) -> bool:
        state = flow.states.get(target)
        if state is None:
            return False
        return state.kind != "terminal" or bool(set(state.tools) & set(HANDOFF_TOOLS))

    targets = {edge.to for edge in flow.global_edges if not edge.side_trip and (edge.reason or hands_off(edge.to))}
    return edges, targets


def _is_departure(move: dict, edges: set[tuple[str, str]], global_targets: set[str]) -> bool:
    route, evidence = move.get("trigger_route") or "", move.get("trigger_evidence") or ""
    if route in ENGINE_DEPARTURES or (route == "unknown" and "repeated" in evidence):
        return True
    if (move.get("from_state"), move["to_state"]) in edges:
        return True
    return move["to_state"] in global_targets and route not in ("", "always") and evidence != "context"


def departures(conn: Connection, flow: Flow | None, *, last_calls: int) -> list[DepartureRow]:
    edges, global_targets = _departure_edges(flow)
    calls = rows(conn, f"""SELECT id, outcome, end_action, final_state, started_at FROM calls
        WHERE id IN (SELECT id FROM calls ORDER BY started_at DESC, rowid DESC LIMIT {int(last_calls)})
          AND (outcome IN ({", ".join("?" for _ in HANDOFF_OUTCOMES)}) OR end_action = 'transfer')""",
                 list(HANDOFF_OUTCOMES))
    counted: Counter[tuple[str, str, str, str]] = Counter()
    seen: dict[tuple[str, str, str, str], str] = {}
    for call in calls:
        outcome = call["outcome"] or "transferred"
        key = _departure_of(conn, call, outcome, edges, global_targets)
        counted[key] += 1
        seen[key] = max(seen.get(key) or "", call["started_at"] or "")
    return [DepartureRow(at, route, went, outcome, count, seen.get((at, route, went, outcome)) or None)
            for (at, route, went, outcome), count in sorted(counted.items(), key=lambda kv: (-kv[1], kv[0]))]


def _departure_of(conn: Connection, call: dict, outcome: str, edges: set[tuple[str, str]],
                  global_targets: set[str]) -> tuple[str, str, str, str]:
    call_id = call["id"]
    if outcome in ("transferred_by_staff", "taken_over"):
        return (call["final_state"] or "-", "staff took the call", "-", outcome)
    marks = ", ".join("?" for _ in HANDOFF_TOOLS)
    handed = conn.execute(f"SELECT min(turn_seq) FROM tool_calls WHERE call_id = ? AND name IN ({marks}) "
                          "AND result_kind = 'ok'", [call_id, *HANDOFF_TOOLS]).fetchone()[0]
    moves = rows(conn, "SELECT turn_seq, from_state, to_state, trigger_route, trigger_evidence FROM transitions "
                       "WHERE call_id = ? AND (? IS NULL OR turn_seq <= ?) ORDER BY id", [call_id, handed, handed])
    chosen = next((m for m in moves if _is_departure(m, edges, global_targets)), None)
    if chosen is None:
        chosen = next((m for m in reversed(moves) if (m.get("trigger_evidence") or "context") != "context"), None)
    if chosen is None:
        return (call["final_state"] or "-", "-", "-", outcome)
    waiting = conn.execute("SELECT state FROM turns WHERE call_id = ? AND seq < ? ORDER BY seq DESC LIMIT 1",
                           [call_id, chosen["turn_seq"] or 0]).fetchone()
    at = waiting[0] if waiting and waiting[0] else (chosen["from_state"] or "-")
    route = chosen["trigger_route"] or "-"
    evidence = chosen["trigger_evidence"] or ""
    if evidence and evidence != "context":
        route += f" ({evidence})"
    return (at, route, chosen["to_state"], outcome)
