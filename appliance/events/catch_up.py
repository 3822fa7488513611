"""A recorded call as the entries the engine wrote: the same stream, read back from SQLite.

Used to catch a publisher up on a call that started before it was watching,
and by the monitor to show a past call exactly as it shows a live one. Within
a turn, each tool call follows the transition into the state it ran in, which
is the order the engine wrote them.
"""

from __future__ import annotations

from typing import Any

from ..store.records import TIMING_COLUMNS


def _trigger(row: dict[str, Any]) -> list[str] | None:
    if row.get("trigger_route") is None:
        return None
    return [row["trigger_route"], row.get("trigger_confidence"), row.get("trigger_evidence")]


def record_entries(record: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """`CallRecorder.call_record(call_id)` as (method, fields) entries, in writing order."""
    call = record.get("call")
    if not call:
        return []
    call_id = call["id"]
    entries: list[tuple[str, dict[str, Any]]] = [
        ("call_started", {"call_id": call_id, "clinic": call.get("clinic"), "caller_id": call.get("caller_id"),
                          "started_at": call.get("started_at")})]
    transitions = record.get("transitions", [])
    tools = record.get("tool_calls", [])
    turns = {turn["seq"]: turn for turn in record.get("turns", [])}
    seqs = sorted(set(turns) | {t.get("turn_seq") for t in transitions if t.get("turn_seq") is not None}
                  | {t.get("turn_seq") for t in tools if t.get("turn_seq") is not None})
    for seq in seqs:
        pending_tools = [t for t in tools if t.get("turn_seq") == seq]
        for transition in (t for t in transitions if t.get("turn_seq") == seq):
            entries.append(("transition", {
                "call_id": call_id, "turn_seq": seq, "from_state": transition.get("from_state"),
                "to_state": transition.get("to_state"), "trigger": _trigger(transition), "at": transition.get("at")}))
            ran_here = [t for t in pending_tools if t.get("state") == transition.get("to_state")]
            for tool in ran_here:
                entries.append(("tool_call", _tool_fields(call_id, seq, tool)))
                pending_tools.remove(tool)
        for tool in pending_tools:
            entries.append(("tool_call", _tool_fields(call_id, seq, tool)))
        turn = turns.get(seq)
        if turn is not None:
            entries.append(("turn", {
                "call_id": call_id, "seq": seq, "caller_text": turn.get("caller_text"),
                "agent_text": turn.get("agent_text"), "state": turn.get("state"),
                "waiting_for": turn.get("waiting_for"), "trigger": _trigger(turn), "at": turn.get("at")}))
            timings = {name: turn[name] for name in TIMING_COLUMNS if turn.get(name) is not None}
            if timings:
                entries.append(("turn_timing", {"call_id": call_id, "seq": seq, **timings}))
    if call.get("ended_at"):
        entries.append(("call_ended", {"call_id": call_id, "ended_at": call["ended_at"], "outcome": call.get("outcome"),
                                       "final_state": call.get("final_state"), "end_action": call.get("end_action")}))
    return entries


def _tool_fields(call_id: str, seq: int, tool: dict[str, Any]) -> dict[str, Any]:
    return {"call_id": call_id, "turn_seq": seq, "state": tool.get("state"), "name": tool["name"],
            "arguments": tool.get("arguments") or {}, "result_kind": tool["result_kind"],
            "result": tool.get("result") or {}, "duration_ms": tool.get("duration_ms"), "at": tool.get("at")}
