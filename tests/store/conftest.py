import pytest

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
def db(any_db):
    """The store suite runs on both back ends: SQLite in memory and the shared store on a real PostgreSQL."""
    return any_db


@pytest.fixture
def store(db, clinic, clock):
    from appliance.store import ClinicStore

    s = ClinicStore(db, new_id=Ids(), now=clock)
    s.load_clinic(clinic)
    return s
