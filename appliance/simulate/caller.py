"""The simulated caller: says the scenario's lines in answer to what the agent waits for."""

from __future__ import annotations

from collections import Counter

from .scenario import Caller, Scenario

# What a caller says when asked whether they have been to the clinic before, a question the scenario format has
# no answer name for: a person knows, so the simulated one answers from what the scenario says of them
NEW_PATIENT_SAYS = "No, I haven't, I'm new."
RETURNING_PATIENT_SAYS = "Yes, I have."


def implied_answers(scenario: Scenario) -> dict[str, str]:
    """Answers the scenario implies for questions its format has no name for: a caller the scenario expects a
    patient record made for is new; one it books, moves or cancels for a patient on file has been before."""
    expect = scenario.expect
    if expect.patients_created:
        return {"been_before": NEW_PATIENT_SAYS}
    on_file = {patient.get("id") for patient in scenario.clinic.get("patients") or () if isinstance(patient, dict)}
    if any(row.patient in on_file for row in expect.appointments or ()):
        return {"been_before": RETURNING_PATIENT_SAYS}
    return {}


class SimulatedCaller:
    def __init__(self, script: Caller, implied: dict[str, str] | None = None):
        self.script = script
        self.implied = implied or {}
        self.turns = 0
        self._opened = False
        self._asked: Counter[str] = Counter()
        self._interjected: set[int] = set()

    @classmethod
    def of(cls, scenario: Scenario) -> "SimulatedCaller":
        return cls(scenario.caller, implied_answers(scenario))

    @property
    def done(self) -> bool:
        return self.turns >= self.script.max_turns

    def next_line(self, waiting_for: str) -> str:
        """What the caller says now, given what the agent just asked for."""
        self.turns += 1
        if not self._opened:
            self._opened = True
            return self.script.opening
        for i, item in enumerate(self.script.interjections):
            if item.at == waiting_for and i not in self._interjected:
                self._interjected.add(i)
                return item.say
        answer = self.script.answers.get(waiting_for, self.implied.get(waiting_for))
        if answer is None:
            return self.script.default
        if isinstance(answer, list):
            index = min(self._asked[waiting_for], len(answer) - 1)
            self._asked[waiting_for] += 1
            return answer[index]
        return answer
