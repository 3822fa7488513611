"""After a crash or a power cut: close what the dead process left open, and tell staff.

`appliance run` calls `recover()` as it starts (and tests can call it): first the
fallback journal is replayed (records and callbacks the database refused),
then every call still without an end is closed as `interrupted`, with why and
at the moment its record last moved, and the caller gets a callback request
when their number is known (the call's summary, written then, is its first note). A booking such a call made that the caller may not
have heard confirmed (`confirmed_aloud = 0`) is named in that request, so the
front desk confirms it with the patient; marking the request done marks the
booking heard (`ClinicStore.mark_callback_done`).

`ask_staff_to_confirm()` does the same for a call that ended with a booking the
caller did not hear (they hung up during the confirmation).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from ..call_review import store_review
from .backend import dialect_of
from .clinic_store import ClinicStore
from .records import this_box

log = logging.getLogger("appliance.store")

CRASH_REASON = "the service stopped during the call (a crash or a power cut); found at the next start"
CONFIRM_REASON = "confirm_booking"


@dataclass
class RecoveryReport:
    replayed: int = 0                                  # fallback-journal entries applied
    interrupted: list[str] = field(default_factory=list)   # calls closed as interrupted
    callbacks: int = 0                                 # callback requests raised for their callers
    unconfirmed: int = 0                               # bookings they made that the caller may not have heard

    def line(self) -> str:
        return (f"recovery: {self.replayed} fallback-journal entr{'y' if self.replayed == 1 else 'ies'} replayed, "
                f"{len(self.interrupted)} interrupted call(s) closed, {self.callbacks} callback request(s) raised, "
                f"{self.unconfirmed} booking(s) to confirm with the patient")


def recover(db: Any, *, journal: Any = None, reason: str = CRASH_REASON, box: str | None = None) -> RecoveryReport:
    """Replay the journal, then close every call without an end as `interrupted` (see the module docstring).
    Only for a database no live call of this process is using (at start-up). On the shared PostgreSQL store
    the other boxes' calls are live: only this box's (`box`, default this host's name) are closed, and those
    no box is named on (recorded before boxes were)."""
    report = RecoveryReport()
    if journal is not None:
        report.replayed = journal.replay(db)
    store = ClinicStore(db)
    conn = db.conn
    if dialect_of(conn).SHARED:
        open_calls = conn.execute("SELECT id, caller_id, started_at FROM calls WHERE ended_at IS NULL "
                                  "AND (box IS NULL OR box = ?) ORDER BY started_at", [box or this_box()]).fetchall()
    else:
        open_calls = conn.execute("SELECT id, caller_id, started_at FROM calls WHERE ended_at IS NULL "
                                  "ORDER BY started_at").fetchall()
    for call_id, caller_id, started_at in open_calls:
        with store.transaction():
            last = _last_moment(conn, call_id) or started_at
            final = conn.execute("SELECT to_state FROM transitions WHERE call_id = ? ORDER BY id DESC LIMIT 1",
                                 [call_id]).fetchone()
            conn.execute("UPDATE calls SET ended_at = ?, outcome = 'interrupted', final_state = ?, end_action = 'cut', "
                         "end_reason = ? WHERE id = ? AND ended_at IS NULL",
                         [last, final[0] if final else None, reason, call_id])
            unconfirmed = _unconfirmed(conn, call_id)
            raised = _callback(store, call_id, caller_id, "cut_off: " + reason, unconfirmed)
            store_review(conn, call_id)
        report.interrupted.append(call_id)
        report.callbacks += raised
        report.unconfirmed += len(unconfirmed)
        log.warning("call %s: closed as interrupted (%s)%s", call_id, reason,
                    f"; {len(unconfirmed)} booking(s) to confirm with the patient" if unconfirmed else "")
    return report


def ask_staff_to_confirm(db: Any, call_id: str, caller_id: str | None) -> bool:
    """A call over with a booking the caller may not have heard: a callback request that names it (once).
    True when one was raised."""
    store = ClinicStore(db)
    with store.transaction():
        unconfirmed = _unconfirmed(db.conn, call_id)
        if not unconfirmed:
            return False
        raised = bool(_callback(store, call_id, caller_id, CONFIRM_REASON, unconfirmed))
        if raised:
            store_review(db.conn, call_id)     # the summary now names the callback, and becomes its note
        return raised


def _last_moment(conn: Any, call_id: str) -> str | None:
    row = conn.execute(
        "SELECT max(at) FROM (SELECT at FROM turns WHERE call_id = ? UNION ALL SELECT at FROM transitions "
        "WHERE call_id = ? UNION ALL SELECT at FROM tool_calls WHERE call_id = ?) AS moments",
        [call_id, call_id, call_id]).fetchone()
    return row[0] if row else None


def _unconfirmed(conn: Any, call_id: str) -> list[tuple]:
    return conn.execute(
        "SELECT a.id, a.patient_id, a.start, p.name FROM appointments a JOIN practitioners p ON p.id = a.practitioner_id "
        "WHERE a.created_by_call = ? AND a.status = 'booked' AND a.confirmed_aloud = 0 ORDER BY a.start",
        [call_id]).fetchall()


def _callback(store: ClinicStore, call_id: str, caller_id: str | None, reason: str, unconfirmed: list[tuple]) -> int:
    """One open callback request for the call's caller (none when the call already has one that says as much)."""
    conn = store.db.conn
    patient = None
    if unconfirmed:
        patient = store.patient(unconfirmed[0][1])
    phone = caller_id or (patient.phone if patient else None)
    if not phone:
        return 0
    if unconfirmed:
        reason += "; confirm with the patient: " + ", ".join(
            f"the booking on {start.replace('T', ' ')} with {who}" for _, _, start, who in unconfirmed)
    open_reasons = [row[0] for row in conn.execute(
        "SELECT reason FROM callback_requests WHERE call_id = ? AND status = 'open'", [call_id])]
    if reason in open_reasons or (open_reasons and not unconfirmed):
        return 0        # the caller is already to be called back, and there is nothing more to tell staff
    name = f"{patient.first_name} {patient.last_name}" if patient else None
    store.add_callback_request(call_id=call_id, patient_id=patient.id if patient else None, name=name, phone=phone,
                               reason=reason)
    return 1
