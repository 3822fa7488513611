"""The generator's clinics (clinics.yaml) and what a scenario needs to know about each.

A clinic's region comes from its phone number, as the product derives it; the region
decides how its callers write dates and what their mobile numbers look like.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import date, time
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import phonenumbers
import yaml

CLINICS_FILE = Path(__file__).with_name("clinics.yaml")
DAY_KEYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")

# How callers in each region write a date, and a mobile number range kept for drama.
DATE_ORDER = {"US": "mdy", "GB": "dmy", "AU": "dmy"}


@dataclass(frozen=True)
class ClinicPlan:
    key: str
    block: dict[str, Any]  # the scenario format's clinic block, without patients and appointments
    new_patient_services: tuple[str, ...]

    @property
    def region(self) -> str:
        return phonenumbers.region_code_for_number(phonenumbers.parse(self.block["phone"], None))

    @property
    def date_order(self) -> str:
        return DATE_ORDER[self.region]

    @property
    def name(self) -> str:
        return self.block["name"]

    def hours(self, day: date) -> list[tuple[time, time]]:
        """The opening ranges on `day`, earliest first; empty when closed."""
        ranges = []
        for text in self.block["hours"].get(DAY_KEYS[day.weekday()], []):
            start, end = text.split("-")
            ranges.append((time.fromisoformat(start.strip()), time.fromisoformat(end.strip())))
        return sorted(ranges)

    def open_weekdays(self) -> list[int]:
        return [i for i, key in enumerate(DAY_KEYS) if self.block["hours"].get(key)]

    @cached_property
    def _services(self) -> dict[str, dict[str, Any]]:
        return {s["id"]: s for s in self.block["services"]}

    def service(self, service_id: str) -> dict[str, Any]:
        return self._services[service_id]

    def location(self, location_id: str) -> dict[str, Any]:
        return next(loc for loc in self.block["locations"] if loc["id"] == location_id)

    def practitioner(self, practitioner_id: str) -> dict[str, Any]:
        return next(p for p in self.block["practitioners"] if p["id"] == practitioner_id)

    def practitioners_for(self, service_id: str, location_id: str) -> list[dict[str, Any]]:
        """Who gives this service at this site, in clinic-file order."""
        return [p for p in self.block["practitioners"] if service_id in p["services"] and location_id in p["locations"]]

    def locations_for(self, service_id: str) -> list[str]:
        """Sites where someone gives this service, in clinic-file order."""
        return [loc["id"] for loc in self.block["locations"] if self.practitioners_for(service_id, loc["id"])]

    def returning_services(self) -> list[str]:
        return [s["id"] for s in self.block["services"] if s["id"] not in self.new_patient_services]

    @property
    def has_transfer(self) -> bool:
        return bool(self.block.get("transfer_number"))


@cache
def _plans() -> tuple[ClinicPlan, ...]:
    data = yaml.safe_load(CLINICS_FILE.read_text(encoding="utf-8"))
    plans = []
    for index, entry in enumerate(data):
        try:
            plans.append(ClinicPlan(entry["key"], entry["clinic"], tuple(entry["new_patient_services"])))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{CLINICS_FILE}: [{index}]: needs key, clinic and new_patient_services ({exc})") from None
    for plan in plans:
        if plan.region not in DATE_ORDER:
            raise ValueError(f"{CLINICS_FILE}: {plan.key}: phone {plan.block['phone']} is in region {plan.region}, "
                             f"which has no date order here (known: {', '.join(DATE_ORDER)})")
    return tuple(plans)


def clinic_plans() -> tuple[ClinicPlan, ...]:
    return _plans()


def generated_clinics() -> list[dict[str, Any]]:
    """Every clinic block the generator writes into scenarios, in the scenario format
    (patients and appointments empty: each scenario draws its own)."""
    return [{**copy.deepcopy(plan.block), "patients": [], "appointments": []} for plan in _plans()]
