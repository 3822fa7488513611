"""The diary screen's staff actions, done through `ClinicStore` with the phone path's own guards.

Blocking or unblocking time, cancelling, moving and booking an appointment:
each goes through the store method a call would use (no overlap, no booking in
a block, only slots the slot policy could offer, no write for a patient not
found), as `user`. The result's message names ids and times, never a
patient's name or date of birth: it is kept in the staff action log.
"""

from __future__ import annotations

from datetime import date, datetime

from ..domain import Slot
from ..store.clinic_store import ClinicStore, StoreError
from .messages import (BLOCK_TIME, BOOK_APPOINTMENT, CANCEL_APPOINTMENT, MOVE_APPOINTMENT, UNBLOCK_TIME,
                       CommandResult, StaffCommand)


class _Refused(Exception):
    """A diary action that cannot be done as asked; the message says why."""


def apply_diary_command(store: ClinicStore, command: StaffCommand, *, user: str) -> CommandResult:
    details = command.details or {}
    do = {BLOCK_TIME: _block, UNBLOCK_TIME: _unblock, CANCEL_APPOINTMENT: _cancel, MOVE_APPOINTMENT: _move,
          BOOK_APPOINTMENT: _book}.get(command.action)
    if do is None:
        return CommandResult(False, f"{command.action} is not a diary action", command.id)
    try:
        return CommandResult(True, do(store, details, user), command.id)
    except (StoreError, _Refused) as exc:
        return CommandResult(False, str(exc), command.id)


def _moment(details: dict[str, str], name: str) -> datetime:
    text = details.get(name, "").strip()
    try:
        return datetime.fromisoformat(text).replace(second=0, microsecond=0)
    except ValueError:
        raise _Refused(f"{name} {text!r} is not a date and time (YYYY-MM-DDTHH:MM)") from None


def _when(moment: datetime) -> str:
    return f"{moment:%a %d %b %H:%M}"


def _practitioner_name(store: ClinicStore, practitioner_id: str | None) -> str:
    if practitioner_id is None:
        return "the whole clinic"
    return next((p.name for p in store.catalog().practitioners if p.id == practitioner_id), practitioner_id)


def _block(store: ClinicStore, details: dict[str, str], user: str) -> str:
    practitioner_id = details.get("practitioner", "").strip() or None
    block, clashes = store.add_block(practitioner_id=practitioner_id, start=_moment(details, "start"),
                                     end=_moment(details, "end"), reason=details.get("reason"), created_by=user)
    message = (f"blocked {_practitioner_name(store, practitioner_id)} {_when(block.start)} to {_when(block.end)}"
               + (f" ({block.reason})" if block.reason else "") + f" by {user} [{block.id}]")
    if clashes:
        times = ", ".join(f"{_when(a.start)} [{a.id}]" for a in clashes)
        message += f"; still booked in it, to move or cancel: {times}"
    return message


def _unblock(store: ClinicStore, details: dict[str, str], user: str) -> str:
    block = store.remove_block(details["block_id"], removed_by=user)
    return (f"unblocked {_practitioner_name(store, block.practitioner_id)} {_when(block.start)} to "
            f"{_when(block.end)} by {user} [{block.id}]")


def _cancel(store: ClinicStore, details: dict[str, str], user: str) -> str:
    cancelled = store.cancel_appointment(details["appointment_id"])
    return (f"cancelled the {_when(cancelled.start)} appointment with "
            f"{_practitioner_name(store, cancelled.practitioner_id)} by {user} [{cancelled.id}]")


def _move(store: ClinicStore, details: dict[str, str], user: str) -> str:
    current = store.appointment(details["appointment_id"])
    if current is None:
        raise _Refused(f"no appointment {details['appointment_id']!r}")
    slot = Slot(start=_moment(details, "start"), service_id=current.service_id,
                practitioner_id=details.get("practitioner") or current.practitioner_id,
                location_id=details.get("location") or current.location_id, minutes=current.minutes)
    old, new = store.reschedule_appointment(current.id, slot)
    return (f"moved the {_when(old.start)} appointment to {_when(new.start)} with "
            f"{_practitioner_name(store, new.practitioner_id)} at {new.location_id} by {user} [{old.id} -> {new.id}]")


def _book(store: ClinicStore, details: dict[str, str], user: str) -> str:
    words = details["name"].split()
    try:
        born = date.fromisoformat(details["dob"].strip())
    except ValueError:
        raise _Refused("the date of birth is not a date (YYYY-MM-DD): nothing was booked") from None
    if len(words) < 2:
        raise _Refused("give the patient's first and last name: nothing was booked")
    found = [p for p in store.patients_named(" ".join(words[:-1]), words[-1]) if p.dob == born]
    if not found:
        raise _Refused("no patient with that name and date of birth: nothing was booked (a new patient is "
                       "registered on a call, or in the practice system)")
    if len(found) > 1:
        raise _Refused(f"{len(found)} patients have that name and date of birth: nothing was booked")
    service = next((s for s in store.catalog().services if s.id == details["service"]), None)
    if service is None:
        known = ", ".join(s.id for s in store.catalog().services)
        raise _Refused(f"unknown service {details['service']!r} (known: {known}): nothing was booked")
    slot = Slot(start=_moment(details, "start"), service_id=service.id, practitioner_id=details["practitioner"],
                location_id=details["location"], minutes=service.minutes)
    booked = store.create_appointment(patient_id=found[0].id, slot=slot)
    return (f"booked {service.name} {_when(booked.start)} with {_practitioner_name(store, booked.practitioner_id)} "
            f"at {booked.location_id} for patient {booked.patient_id} by {user} [{booked.id}]")
