"""What goes over the monitor socket: one module every side imports.

The socket carries newline-delimited JSON objects, each with a "type":

server -> monitor
    hello           {"type": "hello", "protocol": 1, "server": id, "database": path, "replay": n}
    event           {"type": "event", "kind": ..., "call_id": ..., "seq": n, "ts": seconds, "fields": {...}}
    replay_done     {"type": "replay_done", "seq": last replayed seq (0 when none)}
    command_result  {"type": "command_result", "id": ..., "ok": bool, "message": text}

monitor -> server
    command         {"type": "command", "id": ..., "action": ..., "user": ..., "call_id"/"callback_id"/"note": ...,
                     "details": {...} (a diary action's arguments, text values: see DIARY_DETAILS),
                     "staff": name (only from the browser monitor: the staff account signed in there)}

A call event is one call-record entry the engine queued (`call_started`, `turn`,
`transition`, `tool_call`, `turn_timing`, `call_ended`) with the same keyword
fields the recorder was given, so the records and the events are one stream.
Kinds are open-ended: the voice layer adds its own (`escalation`, `latency`,
`tool_started`, ...) in the same envelope, and a monitor shows kinds it does
not know as they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..store.records import to_json

PROTOCOL = 1

# The call-record entries the engine writes, in the order a turn writes them.
RECORD_KINDS = ("call_started", "transition", "tool_call", "turn", "turn_timing", "call_ended")

# Kinds the voice layer is expected to add; listed for readers, not enforced.
VOICE_KINDS = ("escalation", "latency", "tool_started")

# What staff can do from the monitor.
TRANSFER_NOW = "transfer_now"
END_CALL = "end_call"
LISTEN_IN = "listen_in"        # ring the desk's phone and let it hear the call, muted
TAKE_OVER = "take_over"        # the desk's phone joins the caller and the receptionist stops
MARK_CALLBACK_DONE = "mark_callback_done"
ADD_CALLBACK_NOTE = "add_callback_note"
CALL_ACTIONS = (TRANSFER_NOW, END_CALL, LISTEN_IN, TAKE_OVER)
CALLBACK_ACTIONS = (MARK_CALLBACK_DONE, ADD_CALLBACK_NOTE)

# The diary screen's actions; times are clinic-local "YYYY-MM-DDTHH:MM". Each names the details it needs
# (required, optional). A booking names its patient by name and date of birth, never by id: the store finds them.
BLOCK_TIME = "block_time"
UNBLOCK_TIME = "unblock_time"
CANCEL_APPOINTMENT = "cancel_appointment"
MOVE_APPOINTMENT = "move_appointment"
BOOK_APPOINTMENT = "book_appointment"
DIARY_DETAILS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    BLOCK_TIME: (("start", "end"), ("practitioner", "reason")),     # no practitioner: the whole clinic
    UNBLOCK_TIME: (("block_id",), ()),
    CANCEL_APPOINTMENT: (("appointment_id",), ()),
    MOVE_APPOINTMENT: (("appointment_id", "start"), ("practitioner", "location")),
    BOOK_APPOINTMENT: (("name", "dob", "service", "practitioner", "location", "start"), ()),
}
DIARY_ACTIONS = tuple(DIARY_DETAILS)
# details that identify a patient: used to find them, never written to the staff action log
PATIENT_DETAILS = ("name", "dob")
STAFF_ACTIONS = CALL_ACTIONS + CALLBACK_ACTIONS + DIARY_ACTIONS


class BadMessage(ValueError):
    """A line on the socket that is not a message this protocol knows."""


def wire_line(message: dict[str, Any]) -> bytes:
    """One message as the bytes of one line."""
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def read_line(line: bytes | str) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadMessage(f"not JSON: {exc}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise BadMessage("a message is a JSON object with a \"type\"")
    return message


def jsonable(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields as plain JSON values (datetimes as ISO text, tuples as lists), as the records store them."""
    return json.loads(to_json(fields))


@dataclass(frozen=True)
class CallEvent:
    kind: str
    call_id: str | None
    fields: dict[str, Any] = field(default_factory=dict)
    seq: int = 0          # monotonic per publishing process (restarts with it: see hello's "server")
    ts: float = 0.0       # wall-clock seconds when published (time.time())

    def to_wire(self) -> dict[str, Any]:
        return {"type": "event", "kind": self.kind, "call_id": self.call_id, "seq": self.seq, "ts": self.ts,
                "fields": self.fields}

    @classmethod
    def from_wire(cls, message: dict[str, Any]) -> "CallEvent":
        kind = message.get("kind")
        if not isinstance(kind, str) or not kind:
            raise BadMessage("an event needs a \"kind\"")
        fields = message.get("fields") or {}
        if not isinstance(fields, dict):
            raise BadMessage("an event's \"fields\" is an object")
        call_id = message.get("call_id")
        return cls(kind=kind, call_id=str(call_id) if call_id is not None else None, fields=fields,
                   seq=int(message.get("seq") or 0), ts=float(message.get("ts") or 0.0))


@dataclass(frozen=True)
class StaffCommand:
    action: str
    user: str
    call_id: str | None = None
    callback_id: str | None = None
    note: str | None = None
    id: str = ""          # the sender's id for the command, echoed in its result
    details: dict[str, str] | None = None   # a diary action's arguments (DIARY_DETAILS)
    # the staff account signed in to the browser monitor that asked (`appliance monitor --serve`); the server
    # honours it only from the web monitor's own processes (socket_file.peer_may_name_staff)
    staff: str | None = None

    def __post_init__(self) -> None:
        if self.action not in STAFF_ACTIONS:
            raise BadMessage(f"unknown staff action {self.action!r}: known are {', '.join(STAFF_ACTIONS)}")
        if self.action in CALL_ACTIONS and not self.call_id:
            raise BadMessage(f"{self.action} needs a call_id")
        if self.action in CALLBACK_ACTIONS and not self.callback_id:
            raise BadMessage(f"{self.action} needs a callback_id")
        if self.action == ADD_CALLBACK_NOTE and not (self.note or "").strip():
            raise BadMessage("add_callback_note needs a note")
        if self.action in DIARY_ACTIONS:
            required, optional = DIARY_DETAILS[self.action]
            details = self.details or {}
            missing = [name for name in required if not str(details.get(name) or "").strip()]
            unknown = sorted(set(details) - set(required) - set(optional))
            if missing or unknown:
                raise BadMessage(f"{self.action} needs {', '.join(required)}"
                                 + (f" (optional: {', '.join(optional)})" if optional else "")
                                 + (f"; missing {', '.join(missing)}" if missing else "")
                                 + (f"; unknown {', '.join(unknown)}" if unknown else ""))

    def to_wire(self) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "command", "id": self.id, "action": self.action, "user": self.user}
        for name in ("call_id", "callback_id", "note", "details", "staff"):
            if getattr(self, name) is not None:
                message[name] = getattr(self, name)
        return message

    @classmethod
    def from_wire(cls, message: dict[str, Any]) -> "StaffCommand":
        def text(name: str) -> str | None:
            value = message.get(name)
            return None if value is None else str(value)

        details = message.get("details")
        if details is not None and not isinstance(details, dict):
            raise BadMessage("a command's \"details\" is an object")
        return cls(action=str(message.get("action") or ""), user=str(message.get("user") or ""),
                   call_id=text("call_id"), callback_id=text("callback_id"), note=text("note"),
                   id=str(message.get("id") or ""), staff=text("staff") or None,
                   details={str(k): str(v) for k, v in details.items() if v is not None} if details else None)

    def describe(self) -> str:
        if self.action in DIARY_ACTIONS:
            return f"{self.action} {self.recorded_note()}"
        target = self.call_id if self.action in CALL_ACTIONS else self.callback_id
        return f"{self.action} {target}"

    def recorded_note(self) -> str | None:
        """What the staff action log keeps as the note: a diary action's details without the patient's name and
        date of birth (the result names the patient's id instead)."""
        if self.action not in DIARY_ACTIONS:
            return self.note
        kept = {k: v for k, v in (self.details or {}).items() if k not in PATIENT_DETAILS}
        return " ".join(f"{k}={v}" for k, v in kept.items())


@dataclass(frozen=True)
class CommandResult:
    ok: bool
    message: str
    id: str = ""

    def to_wire(self) -> dict[str, Any]:
        return {"type": "command_result", "id": self.id, "ok": self.ok, "message": self.message}

    @classmethod
    def from_wire(cls, message: dict[str, Any]) -> "CommandResult":
        return cls(ok=bool(message.get("ok")), message=str(message.get("message") or ""), id=str(message.get("id") or ""))
