"""The simulated caller answers a question the scenario format has no answer name for from what the scenario
says of the caller, as a person would, and otherwise from its script."""

from __future__ import annotations

from pathlib import Path

from appliance.simulate.caller import (IS_NOT_THE_CALLER_SAYS, IS_THE_CALLER_SAYS, NEW_PATIENT_SAYS,
                                       RETURNING_PATIENT_SAYS, SimulatedCaller)
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


class _Turn:
    def __init__(self, reply: str, confirms: str | None, waiting_for: str = "confirm"):
        self.reply, self.confirms, self.waiting_for = reply, confirms, waiting_for


def test_an_identity_check_is_answered_by_whether_the_name_is_the_callers_own():
    caller = _caller("book-returning-patient-withheld-caller-id.yaml")
    scenario, _ = load_scenario(SCENARIOS / "book-returning-patient-withheld-caller-id.yaml")
    patient = next(p for p in scenario.clinic["patients"]
                   if p["id"] == scenario.expect.appointments[0].patient)
    own = f"{patient['first_name']} {patient['last_name']}"
    assert caller.answer(_Turn(f"Just to check, am I speaking with {own}?", "identity")) == IS_THE_CALLER_SAYS
    assert caller.answer(_Turn("Just to check, am I speaking with Jane Roe?", "identity")) == IS_NOT_THE_CALLER_SAYS


def test_the_scripts_confirm_answers_are_kept_for_the_read_backs():
    caller = _caller("book-returning-patient-withheld-caller-id.yaml")
    caller.answer(_Turn("Just to check, am I speaking with Jane Roe?", "identity"))
    assert caller.answer(_Turn("Shall I book that?", "book")) == caller.script.answers["confirm"]


def test_a_caller_the_scenario_names_no_patient_for_answers_an_identity_check_from_the_script():
    caller = _caller("new-patient-withheld-spoken-phone.yaml")
    said = caller.answer(_Turn("Just to check, am I speaking with Jane Roe?", "identity"))
    assert said not in (IS_THE_CALLER_SAYS, IS_NOT_THE_CALLER_SAYS)
