"""The clinic tools and their guards.

Guards are code: a write runs only for data this call looked up, for the
patient this call identified, after the caller confirmed exactly that. The
`Ledger` is the call's evidence of what was looked up and confirmed; the
engine adds to it only from tool results and the caller's yes. A refused call
returns kind `guard`, a store failure `pms`, anything else `other`; every call
is recorded.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Callable

import jellyfish
from rapidfuzz import fuzz

from ..domain import ANYONE, AppointmentRecord, PatientRecord, Slot, TimeWindow
from ..store.clinic_store import ClinicStore, SlotTaken, StoreError
from .tool_catalog import TOOLS, WRITE_TOOLS
from .types import ToolRun

# how alike a spoken name must be to the record, given an exact date of birth
NAME_MATCH_THRESHOLD = 85
# A patient on the caller's number with exactly the date of birth given may be
# identified by a name that only sounds close: speech-to-text splits and
# bends names ("Linda Park" -> "Blend apart") far more than callers misspell
# them. Compared with spaces removed, so a moved word break costs nothing.
HEARD_NAME_THRESHOLD = 70
# A surname counts as heard when a word said for the name is this alike (a candidate only: see below)
HEARD_SURNAME_THRESHOLD = 90


class GuardRefusal(Exception):
    """A tool call the guards will not allow."""


@dataclass
class Ledger:
    identified_patient: str | None = None
    offered: dict[str, Slot] = field(default_factory=dict)            # slot key -> slot, from CheckAvailability
    looked_up: dict[str, AppointmentRecord] = field(default_factory=dict)  # from GetCurrentlyBookedAppts
    confirmed: set[tuple] = field(default_factory=set)                 # read-backs the caller said yes to
    writes: dict[str, tuple[ToolRun, Any]] = field(default_factory=dict)  # identical write -> first result

    def confirm(self, token: tuple) -> None:
        self.confirmed.add(token)


def _json_safe(value: Any) -> Any:
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
        return {k: _json_safe(getattr(value, k)) for k in ("label", "start", "end", "time_from", "time_to")}
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_safe(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


class ToolRunner:
    """Runs one named tool for one call, behind its guards, and records it."""

    def __init__(self, *, store: ClinicStore, ledger: Ledger, call_id: str,
                 now: Callable[[], datetime], record: Callable[[ToolRun], None]):
        self.store = store
        self.ledger = ledger
        self.call_id = call_id
        self.now = now
        self.record = record

    def run(self, name: str, args: dict[str, Any], *, state: str,
            state_tools: tuple[str, ...]) -> tuple[ToolRun, dict | None]:
        """Returns the recorded run and the raw result (domain objects) for the engine."""
        started = time.perf_counter()
        safe_args = _json_safe(args)
        memo_key = None
        if name in WRITE_TOOLS:
            memo_key = name + json.dumps(safe_args, sort_keys=True)
            if memo_key in self.ledger.writes:
                first, first_raw = self.ledger.writes[memo_key]
                run = ToolRun(name, state, safe_args, first.kind, {**first.result, "repeated": True},
                              (time.perf_counter() - started) * 1000)
                self.record(run)
                return run, first_raw
        try:
            if name not in TOOLS:
                raise GuardRefusal(f"Blocked: unknown tool {name}")
            if name not in state_tools:
                raise GuardRefusal(f"Blocked: {name} is not allowed in state {state}")
            result = getattr(self, "_" + name)(**args)
            kind = "ok"
        except GuardRefusal as exc:
            kind, result = "guard", {"error": str(exc)}
        except SlotTaken as exc:
            kind, result = "pms", {"error": str(exc) or "slot no longer free", "code": "slot_taken"}
        except (StoreError, sqlite3.Error) as exc:
            kind, result = "pms", {"error": f"{type(exc).__name__}: {exc}"}
        except Exception as exc:  # a crashed tool must not end the call
            kind, result = "other", {"error": f"{type(exc).__name__}: {exc}"}
        run = ToolRun(name, state, safe_args, kind, _json_safe(result), (time.perf_counter() - started) * 1000)
        if memo_key is not None and kind == "ok":
            self.ledger.writes[memo_key] = (run, result)
        self.record(run)
        return run, (result if kind == "ok" else None)

    # ------------------------------------------------------------ guards

    def _require_identified(self, patient_id: str | None, what: str) -> None:
        if not patient_id or patient_id != self.ledger.identified_patient:
            raise GuardRefusal(f"{what} blocked: patient {patient_id or '(none)'} was not identified by name and date of birth in this call")

    def _require_offered(self, slot: Slot, what: str) -> None:
        if self.ledger.offered.get(slot.key) != slot:
            raise GuardRefusal(f"{what} blocked: {slot.key} was not returned by CheckAvailability in this call")

    def _require_confirmed(self, token: tuple, what: str) -> None:
        if token not in self.ledger.confirmed:
            raise GuardRefusal(f"{what} blocked: the caller has not confirmed exactly this")

    def _require_looked_up(self, appointment_id: str, what: str) -> AppointmentRecord:
        appt = self.ledger.looked_up.get(appointment_id)
        if appt is None:
            raise GuardRefusal(f"{what} blocked: appointment {appointment_id} was not returned by GetCurrentlyBookedAppts in this call")
        if appt.patient_id != self.ledger.identified_patient:
            raise GuardRefusal(f"{what} blocked: appointment {appointment_id} belongs to another patient")
        return appt

    # ------------------------------------------------------------ reads

    def _GetPatientDetails(self, *, phone: str | None = None, first_name: str | None = None,
                           last_name: str | None = None, dob: date | None = None,
                           prefer: tuple[str, ...] = (), heard: tuple[str, ...] = (),
                           not_again: tuple[str, ...] = ()) -> dict:
        if dob is None or not last_name:
            # caller ID alone: how many records share it, never who the caller is
            candidates = self.store.patients_with_phone(phone) if phone else []
            return {"by": "phone", "matches": len(candidates), "patient_ids": [p.id for p in candidates]}
        born = self.store.patients_born_on(dob)
        scored = []
        for p in born:
            last_score = fuzz.ratio(p.last_name.lower(), last_name.lower())
            first_score = fuzz.ratio(p.first_name.lower(), first_name.lower()) if first_name else 100
            if min(last_score, first_score) >= NAME_MATCH_THRESHOLD:
                scored.append((last_score + first_score + (5 if p.id in prefer else 0), p))
            elif p.id in prefer and first_name and _heard_alike(f"{p.first_name} {p.last_name}",
                                                                f"{first_name} {last_name}"):
                scored.append((last_score + first_score, p))
        if not scored:
            # The caller's own number, exactly this date of birth, and a surname that was heard or sounds
            # heard ("Ali Marie" for Eilidh Murray, "Lifeline Reid" for Lachlan Reid): three things that
            # agree, where speech to text bends the first name. Only when one patient fits.
            fits = _surnames_heard([p for p in born if p.id in prefer], heard)
            if len(fits) == 1:
                scored.append((0, fits[0]))
        if scored:
            scored.sort(key=lambda item: -item[0])
            patient = scored[0][1]
            self.ledger.identified_patient = patient.id
            return {"by": "name_dob", "status": "matched", "patient_id": patient.id}
        named = self.store.patients_named(first_name, last_name)
        if named:
            return {"by": "name_dob", "status": "dob_mismatch", "patient_id": None}
        # Nobody by that name, but the date of birth is exactly one patient's and their surname was among the
        # words said for the name ("I'll love you Bennett" for Olivia Bennett): speech-to-text bends first
        # names far more than surnames. That patient is a candidate, never identified here: the caller is
        # asked "am I speaking with ...?" and only a yes leads to a lookup by that name and date of birth.
        candidate = _surname_heard([p for p in born if p.id not in not_again], heard)
        return {"by": "name_dob", "status": "not_found", "patient_id": None,
                "candidate_id": candidate.id if candidate else None}

    def _GetServicesAndPricing(self, *, service_ids: list[str] | None = None) -> dict:
        catalog = self.store.catalog()
        services = [s for s in catalog.services if not service_ids or s.id in service_ids]
        return {"services": [{"id": s.id, "name": s.name, "minutes": s.minutes, "price": s.price} for s in services]}

    def _GetAppointmentTypes(self, *, service_ids: list[str] | None = None) -> dict:
        catalog = self.store.catalog()
        services = [s for s in catalog.services if not service_ids or s.id in service_ids]
        return {"types": [{"id": s.id, "name": s.name, "minutes": s.minutes, "description": s.description}
                          for s in services]}

    def _CheckAvailability(self, *, service_id: str, location_id: str, practitioner_id: str | None,
                           window: TimeWindow) -> dict:
        offer = self.store.find_slots(
            service_id=service_id, location_id=location_id,
            practitioner_id=None if practitioner_id in (None, ANYONE) else practitioner_id,
            window=window, now=self.now(),
        )
        for slot in offer.slots:
            self.ledger.offered[slot.key] = slot
        return {"slots": list(offer.slots), "in_window": offer.in_window}

    def _GetCurrentlyBookedAppts(self, *, patient_id: str) -> dict:
        self._require_identified(patient_id, "Lookup")
        appts = self.store.upcoming_appointments(patient_id, self.now())
        for appt in appts:
            self.ledger.looked_up[appt.id] = appt
        return {"appointments": appts}

    # ------------------------------------------------------------ writes

    def _CreatePatient(self, *, first_name: str, last_name: str, dob: date, phone: str | None) -> dict:
        if not (first_name and last_name and dob):
            raise GuardRefusal("Patient creation blocked: name and date of birth were not collected")
        self._require_confirmed(("patient", first_name, last_name, dob, phone), "Patient creation")
        patient = self.store.create_patient(first_name=first_name, last_name=last_name, dob=dob,
                                            phone=phone, call_id=self.call_id)
        self.ledger.identified_patient = patient.id
        return {"patient_id": patient.id, "patient": _patient_dict(patient)}

    def _CreateAppointment(self, *, patient_id: str, slot: Slot) -> dict:
        self._require_identified(patient_id, "Booking")
        self._require_offered(slot, "Booking")
        self._require_confirmed(("book", patient_id, slot.key), "Booking")
        appt = self.store.create_appointment(patient_id=patient_id, slot=slot, call_id=self.call_id)
        return {"appointment": appt}

    def _RescheduleAppointment(self, *, appointment_id: str, slot: Slot) -> dict:
        self._require_looked_up(appointment_id, "Reschedule")
        self._require_offered(slot, "Reschedule")
        self._require_confirmed(("reschedule", appointment_id, slot.key), "Reschedule")
        old, new = self.store.reschedule_appointment(appointment_id, slot, call_id=self.call_id)
        return {"cancelled": old, "appointment": new}

    def _CancelAppt(self, *, appointment_id: str) -> dict:
        self._require_looked_up(appointment_id, "Cancellation")
        self._require_confirmed(("cancel", appointment_id), "Cancellation")
        return {"cancelled": [self.store.cancel_appointment(appointment_id, call_id=self.call_id)]}

    def _CancelAppointments(self, *, appointment_ids: list[str]) -> dict:
        if not appointment_ids:
            raise GuardRefusal("Cancellation blocked: no appointments named")
        for appointment_id in appointment_ids:
            self._require_looked_up(appointment_id, "Cancellation")
        self._require_confirmed(("cancel_all", tuple(sorted(appointment_ids))), "Cancellation")
        cancelled = []
        for appointment_id in appointment_ids:
            cancelled.append(self.store.cancel_appointment(appointment_id, call_id=self.call_id))
        return {"cancelled": cancelled}

    # ------------------------------------------------------------ handoffs

    def _AddToWaitlist(self, *, patient_id: str | None, service_id: str, location_id: str | None, note: str) -> dict:
        self._require_identified(patient_id, "Waitlist")
        self._require_confirmed(("waitlist", patient_id, service_id), "Waitlist")
        waitlist_id = self.store.add_to_waitlist(call_id=self.call_id, patient_id=patient_id,
                                                 service_id=service_id, location_id=location_id, note=note)
        return {"waitlist_id": waitlist_id}

    def _CreateCallbackRequest(self, *, reason: str, message: str | None, name: str | None,
                               phone: str | None, patient_id: str | None, urgency: str = "normal") -> dict:
        if patient_id is not None and patient_id != self.ledger.identified_patient:
            patient_id = None  # never attach a record the caller did not prove is theirs
        full_reason = reason if not message else f"{reason}: {message}"
        callback_id = self.store.add_callback_request(call_id=self.call_id, patient_id=patient_id, name=name,
                                                      phone=phone, reason=full_reason, urgency=urgency)
        return {"callback_id": callback_id}

    def _TransferCall(self, *, number: str) -> dict:
        if not number:
            raise GuardRefusal("Transfer blocked: the clinic has no transfer number")
        return {"number": number}

    def _EndCall(self) -> dict:
        return {}


def _patient_dict(p: PatientRecord) -> dict:
    return {"id": p.id, "first_name": p.first_name, "last_name": p.last_name, "dob": p.dob, "phone": p.phone}


def _surname_heard(born: list[PatientRecord], heard: tuple[str, ...]) -> PatientRecord | None:
    """The one patient among `born` whose surname was heard (see `_surnames_heard`), else None."""
    found = _surnames_heard(born, heard)
    return found[0] if len(found) == 1 else None


def _surnames_heard(patients: list[PatientRecord], heard: tuple[str, ...]) -> list[PatientRecord]:
    """The patients whose surname is one of the words in `heard`, near enough in letters or the same in
    sound (metaphone: "Marie" for "Murray")."""
    words = {_letters(word) for text in heard for word in text.split()} - {""}
    sounds = {jellyfish.metaphone(word) for word in words}
    return [p for p in patients if len(_letters(p.last_name)) >= 3
            and (any(fuzz.ratio(_letters(p.last_name), word) >= HEARD_SURNAME_THRESHOLD for word in words)
                 or _sound(p.last_name) in sounds)]


def _sound(name: str) -> str | None:
    """A surname's metaphone, when it says enough to go on (two sounds or more: "Ng" alone would match "Nick")."""
    sound = jellyfish.metaphone(_letters(name))
    return sound if len(sound) >= 2 else None


def _heard_alike(on_file: str, heard: str) -> bool:
    return fuzz.ratio(_letters(on_file), _letters(heard)) >= HEARD_NAME_THRESHOLD


def _letters(text: str) -> str:
    """A name compared as its letters only: spaces, hyphens and apostrophes moved by speech-to-text cost nothing."""
    return "".join(ch for ch in text.lower() if ch.isalpha())
