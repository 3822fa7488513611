"""Running one named tool for one call, behind its guards, and recording it.

A refused call returns kind `guard`, a store failure `pms`, anything else
`other`; every call is recorded. A write repeated with the same arguments
(the caller said yes twice) returns the first result rather than writing
twice.

A tool that changes the store runs through `commit` when the engine gives one:
the write and its tool-call record (with the rest of the turn so far) commit in
one transaction, so a crash can never leave a booking without its record. When
the database refuses (locked, full: `code` `store_refused`), a tool that is
`journaled_when_refused` (a callback request) is called again on the `fallback`
store, the fallback journal, and counts as done.
"""

from __future__ import annotations

import json
import time
from datetime import date, datetime
from typing import Any, Callable

from ...domain import AppointmentRecord, Slot, TimeWindow
from ...store.backend import DATABASE_ERRORS
from ...store.clinic_store import ClinicStore, SlotTaken, StoreError
from ...store.records import RecordError
from ...store.write_budget import is_refusal
from ..types import ToolRun
from .base import GuardRefusal, Ledger, ToolEnv, ToolKind
from .registry import TOOLS

STORE_REFUSED = "store_refused"     # a tool result's `code` when the database could not take the write

# commit(work): work() -> (run, raw) is the tool's store write; commit runs it and records `run` in one transaction
Commit = Callable[[Callable[[], tuple[ToolRun, Any]]], tuple[ToolRun, Any]]


def json_safe(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Slot):
        return {"start": value.start.isoformat(timespec="minutes"), "service_id": value.service_id,
                "practitioner_id": value.practitioner_id, "location_id": value.location_id,
                "minutes": value.minutes}
    if isinstance(value, AppointmentRecord):
        return {"id": value.id, "patient_id": value.patient_id, "service_id": value.service_id,
                "practitioner_id": value.practitioner_id, "location_id": value.location_id,
                "start": value.start.isoformat(timespec="minutes"), "status": value.status}
    if isinstance(value, TimeWindow):
        return {k: json_safe(getattr(value, k)) for k in ("label", "start", "end", "time_from", "time_to", "not_on")
                if k != "not_on" or value.not_on}
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_safe(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


class ToolRunner:
    """Runs one named tool for one call, behind its guards, and records it."""

    def __init__(self, *, store: ClinicStore, ledger: Ledger, call_id: str,
                 now: Callable[[], datetime], record: Callable[[ToolRun], None],
                 commit: Commit | None = None, fallback: Any = None):
        self.env = ToolEnv(store=store, ledger=ledger, now=now, call_id=call_id)
        self.ledger = ledger
        self.record = record
        self.commit = commit
        self.fallback = fallback

    def run(self, name: str, args: dict[str, Any], *, state: str,
            state_tools: tuple[str, ...]) -> tuple[ToolRun, dict | None]:
        """Returns the recorded run and the raw result (domain objects) for the engine."""
        started = time.perf_counter()
        safe_args = json_safe(args)
        tool = TOOLS.get(name)
        memo_key = None
        if tool is not None and tool.kind is ToolKind.WRITE:
            memo_key = name + json.dumps(safe_args, sort_keys=True)
            if memo_key in self.ledger.writes:
                first, first_raw = self.ledger.writes[memo_key]
                run = ToolRun(name, state, safe_args, first.kind, {**first.result, "repeated": True},
                              (time.perf_counter() - started) * 1000)
                self.record(run)
                return run, first_raw
        try:
            if tool is None:
                raise GuardRefusal(f"Blocked: unknown tool {name}")
            if name not in state_tools:
                raise GuardRefusal(f"Blocked: {name} is not allowed in state {state}")
            if tool.transactional and self.commit is not None:
                def work() -> tuple[ToolRun, Any]:
                    raw = tool.call(self.env, **args)
                    return ToolRun(name, state, safe_args, "ok", json_safe(raw),
                                   (time.perf_counter() - started) * 1000), raw

                run, result = self.commit(work)      # recorded in the same transaction
                if memo_key is not None:
                    self.ledger.writes[memo_key] = (run, result)
                return run, result
            result = tool.call(self.env, **args)
            kind = "ok"
        except GuardRefusal as exc:
            kind, result = "guard", {"error": str(exc)}
        except SlotTaken as exc:
            kind, result = "pms", {"error": str(exc) or "slot no longer free", "code": "slot_taken"}
            if isinstance(args.get("slot"), Slot):
                self.ledger.taken.add(args["slot"].key)
        except (StoreError, RecordError, *DATABASE_ERRORS) as exc:
            kind, result = "pms", {"error": f"{type(exc).__name__}: {exc}"}
            if is_refusal(exc):
                kind, result = self._refused(tool, args, result)
        except Exception as exc:  # a crashed tool must not end the call
            kind, result = "other", {"error": f"{type(exc).__name__}: {exc}"}
        run = ToolRun(name, state, safe_args, kind, json_safe(result), (time.perf_counter() - started) * 1000)
        if memo_key is not None and kind == "ok":
            self.ledger.writes[memo_key] = (run, result)
        self.record(run)
        return run, (result if kind == "ok" else None)

    def _refused(self, tool: Any, args: dict[str, Any], failure: dict) -> tuple[str, dict]:
        """The database refused the write: into the fallback journal when the tool allows it, else a failure."""
        failure = {**failure, "code": STORE_REFUSED}
        if not tool.journaled_when_refused or self.fallback is None:
            return "pms", failure
        env = ToolEnv(store=self.fallback, ledger=self.ledger, now=self.env.now, call_id=self.env.call_id)
        try:
            return "ok", {**tool.call(env, **args), "journaled": True, "code": STORE_REFUSED}
        except Exception as exc:      # the journal refused too
            return "pms", {**failure, "journal": f"{type(exc).__name__}: {exc}"}
