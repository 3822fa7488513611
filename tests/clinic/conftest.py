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
