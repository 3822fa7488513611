import copy

import pytest

# The clinic block of SCENARIOS.md's example, as YAML would parse it.
EXAMPLE_CLINIC = {
    "name": "Harbour Physio",
    "timezone": "Australia/Sydney",
    "phone": "+61290000000",
    "emergency_number": "000",
    "transfer_number": "+61290000001",
    "hours": {
        "mon": ["08:00-12:00", "13:00-17:00"],
        "tue": ["08:00-17:00"],
        "wed": ["08:00-17:00"],
        "thu": ["08:00-17:00"],
        "fri": ["08:00-15:00"],
    },
    "locations": [
        {"id": "city", "name": "City", "address": "12 George St, Sydney"},
        {"id": "north", "name": "North Sydney", "address": "5 Miller St, North Sydney"},
    ],
    "services": [
        {"id": "initial", "name": "Initial consultation", "minutes": 45, "price": 110, "aliases": ["first visit", "new patient"]},
        {"id": "followup", "name": "Follow-up", "minutes": 30, "price": 85, "aliases": ["review", "standard"]},
    ],
    "practitioners": [
        {"id": "lee", "name": "Dr Anna Lee", "services": ["initial", "followup"], "locations": ["city"]},
        {"id": "shah", "name": "Raj Shah", "services": ["followup"], "locations": ["city", "north"]},
    ],
    "patients": [
        {"id": "p1", "first_name": "Sarah", "last_name": "Johnson", "dob": "1985-03-04", "phone": "+61400000001"},
    ],
    "appointments": [
        {"id": "a1", "patient": "p1", "service": "followup", "practitioner": "lee", "location": "city", "start": "2026-11-24T10:00"},
    ],
}


@pytest.fixture
def clinic_data():
    return copy.deepcopy(EXAMPLE_CLINIC)


@pytest.fixture
def clinic(clinic_data):
    from appliance.clinic import clinic_from_mapping

    return clinic_from_mapping(clinic_data)


class Ids:
    """Deterministic ids: apt-1, pat-2, ..."""

    def __init__(self):
        self.n = 0

    def __call__(self, prefix):
        self.n += 1
        return f"{prefix}-{self.n}"


class Clock:
    def __init__(self, moment):
        self.moment = moment

    def __call__(self):
        return self.moment


@pytest.fixture
def clock():
    from datetime import datetime

    return Clock(datetime(2026, 11, 23, 9, 5))


@pytest.fixture
def db():
    from appliance.store import open_database

    database = open_database(":memory:")
    yield database
    database.close()


@pytest.fixture
def store(db, clinic, clock):
    from appliance.store import ClinicStore

    s = ClinicStore(db, new_id=Ids(), now=clock)
    s.load_clinic(clinic)
    return s
