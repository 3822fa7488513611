"""What a played call must satisfy: the always-on rules and the scenario's `expect`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..domain import fold_name
from ..engine.engine import DESK_LEG
from ..engine.flow import Flow
from ..engine.tools import WRITE_TOOLS

if TYPE_CHECKING:
    from .runner import PlayedCall

APPOINTMENT_WRITES = ("CreateAppointment", "RescheduleAppointment")


@dataclass
class CallFacts:
    call: dict | None
    turns: list[dict]
    transitions: list[dict]
    tool_calls: list[dict]
    outcome: str | None
    appointments: list[dict]           # rows created or changed, as in `expect`
    patients_created: list[str]
    callbacks: int
    transferred: bool
    identified: str | None             # the patient the last name + date of birth lookup matched


def _loads(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def call_facts(played: "PlayedCall") -> CallFacts:
    record = played.recorder.call_record(played.call_id)
    tool_calls = []
    for row in record["tool_calls"]:
        row = dict(row)
        row["arguments"] = _loads(row.get("arguments"))
        row["result"] = _loads(row.get("result"))
        tool_calls.append(row)
    db = played.store.db
    clinic_patients = {p.id for p in played.clinic.patients} if hasattr(played.clinic, "patients") else set()
    names = {row["id"]: f"{row['first_name']} {row['last_name']}" for row in db["patients"].rows}

    def label(patient_id: str) -> str:
        return patient_id if patient_id in clinic_patients else names.get(patient_id, patient_id)

    changed = []
    for row in db["appointments"].rows:
        old = played.before.get(row["id"])
        if old is not None and old["status"] == row["status"] and old["start"] == row["start"]:
            continue
        changed.append({
            "patient": label(row["patient_id"]), "service": row["service_id"],
            "practitioner": row["practitioner_id"], "location": row["location_id"],
            "start": str(row["start"])[:16], "status": row["status"],
        })
    created = [names[row["id"]] for row in db["patients"].rows if row.get("created_by_call") == played.call_id]
    callbacks = db.execute("SELECT COUNT(*) FROM callback_requests WHERE call_id = ?", [played.call_id]).fetchone()[0]
    call = record["call"]
    outcome = call.get("outcome") if call else None
    transferred = any(t["name"] == "TransferCall" and t["result_kind"] == "ok" for t in tool_calls) and outcome == "transferred"
    matched = [t["result"].get("patient_id") for t in tool_calls if t["name"] == "GetPatientDetails"
               and isinstance(t["result"], dict) and t["result"].get("status") == "matched"]
    return CallFacts(call, record["turns"], record["transitions"], tool_calls, outcome, changed, created,
                     callbacks, transferred, matched[-1] if matched else None)


# ---------------------------------------------------------------- always-on rules

def always_on_failures(played: "PlayedCall", flow: Flow, facts: CallFacts) -> list[str]:
    failures: list[str] = []
    turns_by_seq = {t["seq"]: t for t in facts.turns}
    offered: set[tuple] = set()
    identified: set[str] = set()
    for tool in facts.tool_calls:
        name, state, kind = tool["name"], tool["state"], tool["result_kind"]
        result = tool["result"] if isinstance(tool["result"], dict) else {}
        if name == "CheckAvailability" and kind == "ok":
            for slot in result.get("slots", []):
                offered.add((slot["start"][:16], slot["service_id"], slot["practitioner_id"], slot["location_id"]))
        if name == "GetPatientDetails" and kind == "ok" and result.get("status") == "matched":
            identified.add(result["patient_id"])
        if name not in WRITE_TOOLS or kind != "ok":
            continue
        if state not in flow.states or name not in flow.states[state].tools:
            failures.append(f"write {name} ran in state {state!r}, which does not allow it")
        asked = turns_by_seq.get(tool["turn_seq"] - 1)
        answer = turns_by_seq.get(tool["turn_seq"])
        read_back = asked is not None and asked["waiting_for"] in flow.questions \
            and flow.questions[asked["waiting_for"]].reported == "confirm"
        confirmed = (read_back and answer is not None
                     and (answer.get("trigger_route") in ("confirmation", "llm")))
        if not confirmed:
            failures.append(f"write {name} ran in turn {tool['turn_seq']} without the caller confirming it")
        args = tool["arguments"] if isinstance(tool["arguments"], dict) else {}
        if name in APPOINTMENT_WRITES:
            slot = args.get("slot") or {}
            key = (str(slot.get("start", ""))[:16], slot.get("service_id"), slot.get("practitioner_id"), slot.get("location_id"))
            if key not in offered:
                failures.append(f"{name} used a slot no availability check returned in this call: {key[0]}")
        if name == "CreateAppointment" and args.get("patient_id") not in identified:
            failures.append(f"CreateAppointment for a patient not identified in this call")
        if name == "CreatePatient":
            identified.add(result.get("patient_id"))
    for row in facts.appointments:
        if row["status"] != "booked":
            continue
        if not any(o[0] == row["start"] and o[1] == row["service"] and o[2] == row["practitioner"] and o[3] == row["location"]
                   for o in offered):
            failures.append(f"appointment at {row['start']} was written without an availability check returning it")
    for i, result in enumerate(played.results):
        if not result.reply.strip():
            failures.append(f"the agent said nothing in turn {i}")
    if facts.call is None:
        failures.append("no call record in the database")
    else:
        if not facts.call.get("outcome") or not facts.call.get("ended_at"):
            failures.append("the call record has no outcome or end time")
        if len(facts.turns) != len(played.results):
            failures.append(f"the call record has {len(facts.turns)} turns, the call had {len(played.results)}")
        if not facts.transitions:
            failures.append("the call record has no state transitions")
        tools_run = sum(len(r.tools) for r in played.results)
        # a desk leg is the phone line's record (it rang the front desk), not a tool the engine ran
        recorded = [t for t in facts.tool_calls if t["name"] != DESK_LEG]
        if len(recorded) != tools_run:
            failures.append(f"the call record has {len(recorded)} tool calls, the engine ran {tools_run}")
    return failures


# ---------------------------------------------------------------- expectations

def _same_name(expected: str, actual: str, by_ear: bool) -> bool:
    """Names as the scenario and the store hold them, case aside; for a call heard by ear, accents aside too
    (no one hears the accent in "Janée": a receptionist writes what they can hear, and the spelling the caller
    gives has none)."""
    if by_ear:
        return fold_name(expected) == fold_name(actual)
    return expected.lower() == actual.lower()


def _matches(expected: Any, actual: dict, by_ear: bool = False) -> bool:
    if not _same_name(expected.patient, str(actual["patient"]), by_ear):
        return False
    if expected.service != actual["service"] or expected.status != actual["status"]:
        return False
    if expected.start.strftime("%Y-%m-%dT%H:%M") != actual["start"]:
        return False
    if expected.practitioner is not None and expected.practitioner != actual["practitioner"]:
        return False
    if expected.location is not None and expected.location != actual["location"]:
        return False
    return True


def _describe(row: dict) -> str:
    return f"{row['patient']} {row['service']} {row['start']} {row['status']}"


def expectation_failures(played: "PlayedCall", facts: CallFacts) -> list[str]:
    expect = played.scenario.expect
    failures: list[str] = []
    outcomes = expect.outcomes
    if outcomes is not None and facts.outcome not in outcomes:
        failures.append(f"outcome {facts.outcome!r}, expected {' or '.join(outcomes)}")
    if expect.appointments is not None:
        unmatched = list(facts.appointments)
        for wanted in expect.appointments:
            hit = next((row for row in unmatched if _matches(wanted, row, played.by_ear)), None)
            if hit is None:
                failures.append(f"missing appointment {wanted.patient} {wanted.service} "
                                f"{wanted.start:%Y-%m-%dT%H:%M} {wanted.status}")
            else:
                unmatched.remove(hit)
        for row in unmatched:
            failures.append(f"unexpected appointment change {_describe(row)}")
    if expect.patients_created is not None:
        as_compared = fold_name if played.by_ear else str.lower
        want = sorted(as_compared(n) for n in expect.patients_created)
        got = sorted(as_compared(n) for n in facts.patients_created)
        if want != got:
            failures.append(f"patients created {facts.patients_created}, expected {expect.patients_created}")
    if expect.callbacks is not None and facts.callbacks != expect.callbacks:
        failures.append(f"{facts.callbacks} callback requests, expected {expect.callbacks}")
    if expect.transferred is not None and facts.transferred != expect.transferred:
        failures.append(f"transferred is {facts.transferred}, expected {expect.transferred}")
    said = " ".join(r.reply for r in played.results).lower()
    for text in expect.says:
        if text.lower() not in said:
            failures.append(f"never said {text!r}")
    for text in expect.never_says:
        if text.lower() in said:
            failures.append(f"said {text!r}")
    return failures
