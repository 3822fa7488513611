"""Running one named tool for one call, behind its guards, and recording it.

A refused call returns kind `guard`, a store failure `pms`, anything else
`other`; every call is recorded. A write repeated with the same arguments
(the caller said yes twice) returns the first result rather than writing
twice.
"""

from __future__ import annotations

import json
import sqlite3
import time
from datetime import date, datetime
from typing import Any, Callable

from ...domain import AppointmentRecord, Slot, TimeWindow
from ...store.clinic_store import ClinicStore, SlotTaken, StoreError
from ..types import ToolRun
from .base import GuardRefusal, Ledger, ToolEnv, ToolKind
from .registry import TOOLS


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
                 now: Callable[[], datetime], record: Callable[[ToolRun], None]):
        self.env = ToolEnv(store=store, ledger=ledger, now=now, call_id=call_id)
        self.ledger = ledger
        self.record = record

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
            result = tool.call(self.env, **args)
            kind = "ok"
        except GuardRefusal as exc:
            kind, result = "guard", {"error": str(exc)}
        except SlotTaken as exc:
            kind, result = "pms", {"error": str(exc) or "slot no longer free", "code": "slot_taken"}
        except (StoreError, sqlite3.Error) as exc:
            kind, result = "pms", {"error": f"{type(exc).__name__}: {exc}"}
        except Exception as exc:  # a crashed tool must not end the call
            kind, result = "other", {"error": f"{type(exc).__name__}: {exc}"}
        run = ToolRun(name, state, safe_args, kind, json_safe(result), (time.perf_counter() - started) * 1000)
        if memo_key is not None and kind == "ok":
            self.ledger.writes[memo_key] = (run, result)
        self.record(run)
        return run, (result if kind == "ok" else None)
