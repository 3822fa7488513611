"""One call as the monitor shows it, folded from call events (live, or read back from SQLite).

A `CallTimeline` keeps the caller's words, what the receptionist did in
between (states entered, tools run with their results) and the reply, turn by
turn. No Textual here: the widgets render it, the tests read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..events.messages import CallEvent
from .turn_latency import turn_latency_ms


@dataclass
class Step:
    """Something that happened inside a turn: kind "state", "tool" or another event kind."""

    kind: str
    text: str
    ok: bool = True


@dataclass
class CallTurn:
    seq: int
    caller_text: str = ""
    agent_text: str = ""
    state: str = ""
    trigger: tuple[str, ...] | None = None
    steps: list[Step] = field(default_factory=list)
    timings: dict[str, Any] = field(default_factory=dict)
    answered: bool = False     # the turn's record has arrived (its reply is known)

    @property
    def latency_ms(self) -> float | None:
        return turn_latency_ms(self.timings)


@dataclass
class CallTimeline:
    call_id: str
    caller_id: str = ""
    clinic: str = ""
    patient_name: str | None = None
    started_at: str | None = None     # clinic-local time of the engine's clock
    first_seen: float | None = None   # wall clock (event ts) when the call started
    last_event_ts: float | None = None
    state: str = ""
    turns: dict[int, CallTurn] = field(default_factory=dict)
    path: list[str] = field(default_factory=list)
    ended: bool = False
    ended_at: str | None = None
    ended_ts: float | None = None
    outcome: str | None = None
    end_action: str | None = None
    final_state: str | None = None
    last_said: str = ""
    last_latency_ms: float | None = None
    tools_run: int = 0
    extra: list[str] = field(default_factory=list)

    # ------------------------------------------------------------ reading

    @property
    def who(self) -> str:
        """The patient's name once identified, else the caller ID."""
        return self.patient_name or self.caller_id or "withheld number"

    def ordered_turns(self) -> list[CallTurn]:
        return [self.turns[seq] for seq in sorted(self.turns)]

    def seconds_on_call(self, now: float) -> float | None:
        if self.first_seen is None:
            return None
        end = self.ended_ts if self.ended and self.ended_ts is not None else now
        return max(0.0, end - self.first_seen)

    def duration_text(self) -> str | None:
        """Recorded length (clinic clock), for calls read from the database."""
        if not (self.started_at and self.ended_at):
            return None
        try:
            seconds = (datetime.fromisoformat(self.ended_at) - datetime.fromisoformat(self.started_at)).total_seconds()
        except ValueError:
            return None
        return clock_text(seconds)

    # ------------------------------------------------------------ folding events

    def _turn(self, seq: Any) -> CallTurn:
        number = int(seq) if isinstance(seq, (int, float)) else 0
        turn = self.turns.get(number)
        if turn is None:
            turn = self.turns[number] = CallTurn(seq=number)
        return turn

    def apply(self, event: CallEvent) -> None:
        f = event.fields
        if event.ts:
            self.last_event_ts = event.ts
        kind = event.kind
        if kind == "call_started":
            self.caller_id = f.get("caller_id") or self.caller_id
            self.clinic = f.get("clinic") or self.clinic
            self.started_at = f.get("started_at") or self.started_at
            if event.ts:
                self.first_seen = event.ts
        elif kind == "transition":
            to_state = f.get("to_state") or ""
            self.state = to_state
            self.path.append(to_state)
            trigger = f.get("trigger")
            why = f" ({trigger_text(trigger)})" if trigger else ""
            self._turn(f.get("turn_seq")).steps.append(Step("state", f"→ {to_state}{why}"))
        elif kind == "tool_call":
            self.tools_run += 1
            ok = f.get("result_kind") == "ok"
            self._notice_patient(f)
            self._turn(f.get("turn_seq")).steps.append(Step("tool", tool_text(f), ok))
        elif kind == "turn":
            turn = self._turn(f.get("seq"))
            turn.caller_text = f.get("caller_text") or ""
            turn.agent_text = f.get("agent_text") or ""
            turn.state = f.get("state") or ""
            trigger = f.get("trigger")
            turn.trigger = tuple(trigger) if trigger else None
            turn.answered = True
            if turn.state:
                self.state = turn.state
            if turn.agent_text:
                self.last_said = f"receptionist: {turn.agent_text}"
            elif turn.caller_text:
                self.last_said = f"caller: {turn.caller_text}"
        elif kind == "turn_timing":
            turn = self._turn(f.get("seq"))
            turn.timings.update({k: v for k, v in f.items() if k not in ("call_id", "seq")})
            latency = turn.latency_ms
            if latency is not None:
                self.last_latency_ms = latency
        elif kind == "latency":
            total = f.get("total_ms")
            if isinstance(total, (int, float)):
                self.last_latency_ms = float(total)
        elif kind == "call_ended":
            self.ended = True
            self.ended_at = f.get("ended_at")
            self.ended_ts = event.ts or self.last_event_ts
            self.outcome = f.get("outcome")
            self.end_action = f.get("end_action")
            self.final_state = f.get("final_state")
            if self.final_state:
                self.state = self.final_state
        else:
            text = other_event_text(kind, f)
            self.extra.append(text)
            seq = f.get("turn_seq", f.get("seq"))
            if seq is not None:
                self._turn(seq).steps.append(Step(kind, text, kind not in ("escalation", "error")))

    def _notice_patient(self, f: dict[str, Any]) -> None:
        if f.get("result_kind") != "ok":
            return
        result = f.get("result") or {}
        args = f.get("arguments") or {}
        if f.get("name") == "GetPatientDetails" and result.get("status") == "matched":
            name = " ".join(part for part in (args.get("first_name"), args.get("last_name")) if part)
            self.patient_name = name or self.patient_name
        elif f.get("name") == "CreatePatient":
            patient = result.get("patient") or {}
            name = " ".join(part for part in (patient.get("first_name"), patient.get("last_name")) if part)
            self.patient_name = name or self.patient_name


def trigger_text(trigger: Any) -> str:
    """The customer's `route/confidence evidence` form."""
    if not trigger:
        return ""
    parts = list(trigger) + [None, None, None]
    route, confidence, evidence = parts[:3]
    return f"{route}/{confidence} {evidence}".strip()


def tool_text(f: dict[str, Any]) -> str:
    name = f.get("name") or "?"
    kind = f.get("result_kind") or "?"
    result = f.get("result") or {}
    mark = "✓" if kind == "ok" else "✗"
    summary = result_summary(name, kind, result)
    duration = f.get("duration_ms")
    took = f" {duration:.1f} ms" if isinstance(duration, (int, float)) else ""
    return f"{mark} {name}: {kind}{took}" + (f" — {summary}" if summary else "")


def result_summary(name: str, kind: str, result: dict[str, Any]) -> str:
    if kind != "ok":
        return str(result.get("error") or "")
    if name == "GetPatientDetails":
        if result.get("by") == "phone":
            matches = result.get("matches", 0)
            return f"{matches} patient{'s' if matches != 1 else ''} on this number"
        return str(result.get("status") or "")
    if name == "CheckAvailability":
        slots = result.get("slots") or []
        first = slots[0].get("start") if slots and isinstance(slots[0], dict) else None
        text = f"{len(slots)} slot{'s' if len(slots) != 1 else ''}"
        return text + (f", first {first}" if first else "")
    if name in ("CreateAppointment", "RescheduleAppointment"):
        appt = result.get("appointment")
        if isinstance(appt, dict) and appt.get("start"):
            return f"{appt.get('id', '')} at {appt['start']}".strip()
    if name in ("CancelAppt", "CancelAppointments"):
        cancelled = result.get("cancelled") or []
        return "cancelled " + ", ".join(str(a.get("id")) for a in cancelled if isinstance(a, dict))
    if name == "CreateCallbackRequest":
        return f"callback {result.get('callback_id')}"
    if name == "TransferCall":
        return f"to {result.get('number')}"
    if name == "DeskLeg":       # the phone line called the front desk (warm transfer, listen-in, take-over)
        text = f"{result.get('answer')} after {result.get('waited_s')} s"
        text += ", connected with the caller" if result.get("connected") else ", not connected"
        return text + (f"; brief to the desk: {result['brief']}" if result.get("brief") else "")
    if name == "GetCurrentlyBookedAppts":
        appts = result.get("appointments") or []
        return f"{len(appts)} upcoming"
    if result.get("repeated"):
        return "repeated (already done this call)"
    keys = [k for k in result if not isinstance(result[k], (dict, list))]
    return ", ".join(f"{k} {result[k]}" for k in keys[:3])


def other_event_text(kind: str, f: dict[str, Any]) -> str:
    shown = {k: v for k, v in f.items() if k not in ("call_id", "seq", "turn_seq") and v is not None}
    detail = ", ".join(f"{k} {v}" for k, v in list(shown.items())[:4])
    return f"! {kind}" + (f": {detail}" if detail else "")


def clock_text(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    return f"{seconds // 60}:{seconds % 60:02d}"
