"""The simulated caller answers a question the scenario format has no answer name for from what the scenario
says of the caller, as a person would, and otherwise from its script."""

from __future__ import annotations

from pathlib import Path

from appliance.simulate.caller import NEW_PATIENT_SAYS, RETURNING_PATIENT_SAYS, SimulatedCaller
from appliance.simulate.scenario import load_scenario

SCENARIOS = Path(__file__).parents[1] / "scenarios"


def _caller(name: str) -> SimulatedCaller:
    scenario, _ = load_scenario(SCENARIOS / name)
    caller = SimulatedCaller.of(scenario)
    caller.next_line("intent")   # the opening
    return caller


def test_a_caller_the_scenario_makes_a_record_for_says_they_are_new():
    assert _caller("new-patient-withheld-spoken-phone.yaml").next_line("been_before") == NEW_PATIENT_SAYS


def test_a_caller_booked_under_a_patient_on_file_says_they_have_been_before():
    assert _caller("book-returning-patient-withheld-caller-id.yaml").next_line("been_before") == RETURNING_PATIENT_SAYS


def test_a_caller_the_scenario_says_nothing_of_gives_the_default_answer():
    caller = _caller("question-hours-only.yaml")
    assert caller.next_line("been_before") == caller.script.default


def test_the_scripts_own_answer_comes_first():
    scenario, _ = load_scenario(SCENARIOS / "new-patient-withheld-spoken-phone.yaml")
    script = scenario.caller.model_copy(update={"answers": {**scenario.caller.answers, "been_before": "yes"}})
    caller = SimulatedCaller.of(scenario.model_copy(update={"caller": script}))
    caller.next_line("intent")
    assert caller.next_line("been_before") == "yes"
