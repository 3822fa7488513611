"""Shared fixtures: the SCENARIOS.md example clinic in an in-memory database."""

from datetime import datetime
from pathlib import Path

import pytest
import yaml

from appliance.clinic import clinic_from_mapping
from appliance.engine.clock import CountingIds, FrozenClock
from appliance.engine.flow import load_flow
from appliance.store.clinic_store import ClinicStore
from appliance.store.database import open_database
from appliance.store.records import CallRecorder

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "tests" / "scenarios" / "example-reschedule.yaml"


@pytest.fixture(scope="session")
def flow():
    return load_flow(ROOT / "config" / "flows" / "clinic.yaml")


@pytest.fixture
def clinic_data():
    """The clinic block of SCENARIOS.md's example, as YAML parses it."""
    return yaml.safe_load(EXAMPLE.read_text())["clinic"]


@pytest.fixture
def example_clinic_data():
    data = yaml.safe_load(EXAMPLE.read_text())["clinic"]
    # a second patient on the same phone, and a second booking for the first patient
    data["patients"].append({"id": "p2", "first_name": "Tom", "last_name": "Johnson", "dob": "2010-07-01",
                             "phone": "+61400000001"})
    data["appointments"].append({"id": "a2", "patient": "p1", "service": "followup", "practitioner": "shah",
                                 "location": "north", "start": "2026-11-27T09:00"})
    return data


@pytest.fixture
def clock():
    return FrozenClock(datetime(2026, 11, 23, 9, 5))


@pytest.fixture
def db():
    return open_database(":memory:")


@pytest.fixture
def store(db, clock, example_clinic_data):
    s = ClinicStore(db, new_id=CountingIds(), now=clock.now)
    s.load_clinic(clinic_from_mapping(example_clinic_data))
    return s


@pytest.fixture
def recorder(db):
    return CallRecorder(db)


@pytest.fixture(scope="session")
def voice_data(tmp_path_factory):
    return tmp_path_factory.mktemp("voice-data")


@pytest.fixture(scope="session")
def runtime(voice_data):
    """The real voice models (Whisper base, Piper joe, Silero, Smart Turn; no LLM), loaded once per session."""
    pytest.importorskip("pipecat")
    from appliance.voice.runtime import VoiceRuntime, quiet_pipecat

    from voice.spoken import voice_settings

    quiet_pipecat("ERROR")
    return VoiceRuntime(voice_settings(voice_data), load_llm=False)
