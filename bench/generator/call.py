"""One generated call being put together: its clinic, clock, patients, bookings and the caller's script.

The families (families.py) decide what the caller wants; this holds what every family
shares: drawing the clock inside opening hours, patients and their bookings without
overlaps, the busy diary of other patients, the caller's identity answers, and the
facts the phrasings are filled with.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from . import phrasings
from .clinics import ClinicPlan
from .people import Person, draw_mobile, draw_person
from .slot_oracle import Slot, candidate_starts
from .spoken import WEEKDAYS, dob_facts, ordinal_suffix, phone_facts, said_name, spelled, time_facts, with_article

FIRST_DAY = date(2026, 9, 7)  # the clocks are drawn between these days
LAST_DAY = date(2027, 6, 25)


class Retry(Exception):
    """This draw cannot make the family's call (no slots where wanted, say): draw again."""


@dataclass
class Caller:
    opening: str = ""
    answers: dict[str, Any] = field(default_factory=dict)
    interjections: list[dict[str, str]] = field(default_factory=list)
    default: str = "sorry, what was that?"
    max_turns: int = 30


class Call:
    def __init__(self, rng: random.Random, plan: ClinicPlan):
        self.rng = rng
        self.plan = plan
        self.now = self._draw_now()
        self.patients: list[dict[str, Any]] = []
        self.appointments: list[dict[str, Any]] = []
        self.caller_id = ""
        self.caller = Caller(default=phrasings.say(rng, "default"))
        self.expect: dict[str, Any] = {}
        self._names: set[str] = set()
        self._booked: dict[str, list[tuple[datetime, datetime]]] = {}  # practitioner -> booked times
        self._phones: set[str] = {plan.block["phone"], plan.block.get("transfer_number") or ""}

    # ---- the clock -----------------------------------------------------------------
    def _draw_now(self) -> datetime:
        """A weekday moment inside opening hours, on a five-minute mark."""
        span = (LAST_DAY - FIRST_DAY).days
        for _ in range(200):
            day = FIRST_DAY + timedelta(days=self.rng.randrange(span))
            ranges = self.plan.hours(day)
            if day.weekday() >= 5 or not ranges:
                continue
            opens, closes = self.rng.choice(ranges)
            first = opens.hour * 60 + opens.minute
            last = closes.hour * 60 + closes.minute - 30
            if last <= first:
                continue
            minute = first + 5 * self.rng.randrange((last - first) // 5)
            return datetime.combine(day, time(minute // 60, minute % 60))
        raise Retry("no open weekday found")

    @property
    def today(self) -> date:
        return self.now.date()

    # ---- the clinic block ----------------------------------------------------------
    def clinic(self) -> dict[str, Any]:
        return {**self.plan.block, "patients": self.patients, "appointments": self.appointments}

    def person(self, *, last: str | None = None) -> Person:
        who = draw_person(self.rng, self.today, self._names, last=last)
        self._names.add(who.full)
        return who

    def mobile(self) -> str:
        number = draw_mobile(self.rng, self.plan.region, self.plan.block["phone"], self._phones)
        self._phones.add(number)
        return number

    def add_patient(self, who: Person, phone: str | None, *, first: bool = False) -> str:
        patient_id = f"p{len(self.patients) + 1}"
        row = {"id": patient_id, "first_name": who.first, "last_name": who.last, "dob": who.dob.isoformat()}
        if phone:
            row["phone"] = phone
        if first:
            self.patients.insert(0, row)
        else:
            self.patients.append(row)
        return patient_id

    def patient(self, patient_id: str) -> dict[str, Any]:
        return next(p for p in self.patients if p["id"] == patient_id)

    def minutes(self, service_id: str) -> int:
        return self.plan.service(service_id)["minutes"]

    def is_free(self, practitioner: str, start: datetime, minutes: int) -> bool:
        end = start + timedelta(minutes=minutes)
        return not any(start < taken_end and taken_start < end for taken_start, taken_end in self._booked.get(practitioner, ()))

    def add_appointment(self, patient: str, service: str, practitioner: str, location: str, start: datetime) -> dict:
        if not self.is_free(practitioner, start, self.minutes(service)):
            raise ValueError(f"{practitioner} is already booked at {start}")
        self._booked.setdefault(practitioner, []).append((start, start + timedelta(minutes=self.minutes(service))))
        row = {"id": f"a{len(self.appointments) + 1}", "patient": patient, "service": service,
               "practitioner": practitioner, "location": location, "start": start.strftime("%Y-%m-%dT%H:%M")}
        self.appointments.append(row)
        return row

    def upcoming_booking(self, patient: str, *, days: range = range(1, 12), avoid: set[date] = frozenset(),
                         services: list[str] | None = None) -> dict:
        """A booking of `patient` on a later day (not among `avoid`), at a time the practitioner is free."""
        services = services or self.plan.returning_services()
        for _ in range(60):
            service = self.rng.choice(services)
            location = self.rng.choice(self.plan.locations_for(service))
            practitioner = self.rng.choice(self.plan.practitioners_for(service, location))["id"]
            day = self.today + timedelta(days=self.rng.choice(days))
            starts = [s for s in candidate_starts(self.clinic(), day, self.minutes(service))
                      if self.is_free(practitioner, s, self.minutes(service))]
            if day in avoid or not starts:
                continue
            return self.add_appointment(patient, service, practitioner, location, self.rng.choice(starts))
        raise Retry("no free time for the patient's own booking")

    def others(self, count: int) -> list[str]:
        """Other patients of the clinic, who fill the diary."""
        return [self.add_patient(self.person(), self.mobile()) for _ in range(count)]

    def busy_diary(self, patients: list[str], *, days: int = 10, chance: float = 0.6) -> None:
        """Other patients' bookings, from today on, so that not every time is free."""
        for offset in range(days):
            day = self.today + timedelta(days=offset)
            for practitioner in self.plan.block["practitioners"]:
                if self.rng.random() > chance:
                    continue
                for _ in range(self.rng.randint(1, 4)):
                    service = self.rng.choice(practitioner["services"])
                    starts = candidate_starts(self.clinic(), day, self.minutes(service))
                    if not starts:
                        break
                    start = self.rng.choice(starts)
                    if self.is_free(practitioner["id"], start, self.minutes(service)):
                        self.add_appointment(self.rng.choice(patients), service, practitioner["id"],
                                             self.rng.choice(practitioner["locations"]), start)

    # ---- what the caller says ------------------------------------------------------
    def say(self, kind: str, facts: dict[str, str] | None = None, *, where=None) -> str:
        return phrasings.say(self.rng, kind, facts or {}, where=where)

    def name_facts(self, who: Person) -> dict[str, str]:
        return {"first": who.first, "last": who.last, "spelled_last": spelled(who.last)}

    def dob_facts(self, born: date) -> dict[str, str]:
        return dob_facts(born, self.plan.date_order)

    def service_facts(self, service_id: str) -> dict[str, str]:
        service = self.plan.service(service_id)
        alias = said_name(self.rng.choice(service.get("aliases") or [service["name"]]))
        name = said_name(service["name"])
        return {"service": name, "a_service": with_article(name), "alias": alias, "an_alias": with_article(alias)}

    def location_facts(self, location_id: str) -> dict[str, str]:
        location = self.plan.location(location_id)
        alias = self.rng.choice(location.get("aliases") or [location["name"]])
        return {"location": location["name"], "location_alias": alias,
                "the_location_alias": alias if alias.lower().startswith("the ") else f"the {alias}"}

    def site_named(self, location: dict[str, Any]) -> str:
        """A site by its name or an alias that reads after "the" or "your" ("the Otley Road clinic")."""
        return self.rng.choice([location["name"], *(a for a in location.get("aliases") or [] if not a.lower().startswith("the "))])

    def practitioner_facts(self, practitioner_id: str) -> dict[str, str]:
        p = self.plan.practitioner(practitioner_id)
        return {"practitioner": p["name"], "practitioner_alias": self.rng.choice(p.get("aliases") or [p["name"]])}

    def identity(self, who: Person) -> None:
        """Answers to every way the agent may ask who the caller is."""
        names = self.name_facts(who)
        self.caller.answers.update({
            "full_name": self.say("full_name", names),
            "first_name": who.first,
            "last_name": who.last,
            "spelling": self.say("spelling", names),
            "dob": self.say("dob", self.dob_facts(who.dob)),
        })

    def phone_answer(self, number: str) -> str:
        return self.say("phone", phone_facts(number))

    def slot_pick(self, offered: tuple[Slot, ...], *, index: int | None = None) -> tuple[str, int]:
        """How the caller picks one of the offered times, and which one that is."""
        times_differ = len(offered) > 1 and len({time_facts(s.start.time())["time_digits"] for s in offered}) == len(offered)

        def fits(entry: dict) -> bool:
            pick = entry["pick"]
            if pick == "any":
                return times_differ or len(offered) == 1
            return pick < len(offered) and (index is None or pick == index)

        words, entry = phrasings.choose(self.rng, "slot_choice", self._slot_facts(offered[0]), where=fits)
        if entry["pick"] != "any":
            return words, entry["pick"]
        chosen = self.rng.randrange(len(offered)) if index is None else index
        return phrasings.fill("slot_choice", entry["say"], self._slot_facts(offered[chosen])), chosen

    def _slot_facts(self, slot: Slot) -> dict[str, str]:
        return time_facts(slot.start.time())

    def booking_facts(self, appt: dict) -> dict[str, str]:
        start = datetime.fromisoformat(appt["start"])
        service = self.plan.service(appt["service"])
        p = self.plan.practitioner(appt["practitioner"])
        return {
            "b_service": said_name(self.rng.choice([service["name"], *(service.get("aliases") or [])])),
            "b_weekday": WEEKDAYS[start.weekday()],
            "b_time": time_facts(start.time())["time_digits"],
            "b_day_th": ordinal_suffix(start.day),
            "b_practitioner": self.rng.choice([p["name"], *(p.get("aliases") or [])]),
        }

    def booking_choice(self, bookings: list[dict], target: dict) -> str:
        """Words that pick `target` among the caller's `bookings` (earliest first), by something that tells them apart."""
        ordered = sorted(bookings, key=lambda a: a["start"])
        others = [a for a in ordered if a is not target]

        def differs(feature: str) -> bool:
            if feature == "first":
                return ordered[0] is target
            if feature == "second":
                return len(ordered) == 2 and ordered[1] is target
            key = {
                "service": lambda a: a["service"],
                "weekday": lambda a: datetime.fromisoformat(a["start"]).weekday(),
                "date": lambda a: datetime.fromisoformat(a["start"]).date(),
                "time": lambda a: datetime.fromisoformat(a["start"]).time(),
                "practitioner": lambda a: a["practitioner"],
            }[feature]
            return all(key(a) != key(target) for a in others)

        return self.say("booking_choice", self.booking_facts(target), where=lambda e: all(differs(f) for f in e["by"]))

    # ---- the scenario --------------------------------------------------------------
    def scenario(self, name: str) -> dict[str, Any]:
        # a one-item list says the same as the item alone
        answers = {k: v[0] if isinstance(v, list) and len(v) == 1 else v for k, v in self.caller.answers.items()}
        caller = {"opening": self.caller.opening, "answers": answers}
        if self.caller.interjections:
            caller["interjections"] = self.caller.interjections
        caller["default"] = self.caller.default
        caller["max_turns"] = self.caller.max_turns
        return {
            "name": name,
            "now": self.now.strftime("%Y-%m-%dT%H:%M:%S"),
            "caller_id": self.caller_id,
            "clinic": self.clinic(),
            "caller": caller,
            "expect": self.expect,
        }


def appointment_row(patient: str, slot: Slot, status: str = "booked") -> dict[str, Any]:
    return {"patient": patient, "service": slot.service, "practitioner": slot.practitioner, "location": slot.location,
            "start": slot.start.strftime("%Y-%m-%dT%H:%M"), "status": status}
