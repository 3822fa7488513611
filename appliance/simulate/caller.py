"""The simulated caller: says the scenario's lines in answer to what the agent waits for."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..domain import fold_name

from .scenario import Caller, Scenario

# What a caller says when asked whether they have been to the clinic before, a question the scenario format has
# no answer name for: a person knows, so the simulated one answers from what the scenario says of them
NEW_PATIENT_SAYS = "No, I haven't, I'm new."
RETURNING_PATIENT_SAYS = "Yes, I have."
# ... and asked "am I speaking with ...?", by whether the name is theirs
IS_THE_CALLER_SAYS = "Yes, that's me."
IS_NOT_THE_CALLER_SAYS = "No, that's not me."


def _caller_names(scenario: Scenario) -> tuple[str, ...]:
    """The full names of the patients on file the scenario expects the call to act for: who the caller is."""
    wanted = {row.patient for row in scenario.expect.appointments or ()}
    return tuple(f"{p.get('first_name', '')} {p.get('last_name', '')}".strip()
                 for p in scenario.clinic.get("patients") or () if isinstance(p, dict) and p.get("id") in wanted)


def implied_answers(scenario: Scenario) -> dict[str, str]:
    """Answers the scenario implies for questions its format has no name for: a caller the scenario expects a
    patient record made for is new; one it books, moves or cancels for a patient on file has been before."""
    if scenario.expect.patients_created:
        return {"been_before": NEW_PATIENT_SAYS}
    return {"been_before": RETURNING_PATIENT_SAYS} if _caller_names(scenario) else {}


class SimulatedCaller:
    def __init__(self, script: Caller, implied: dict[str, str] | None = None, who: tuple[str, ...] = ()):
        self.script = script
        self.implied = implied or {}
        self.who = who   # the names of the patients on file the caller is (empty: unknown, or a new patient)
        self.turns = 0
        self._opened = False
        self._asked: Counter[str] = Counter()
        self._interjected: set[int] = set()

    @classmethod
    def of(cls, scenario: Scenario) -> "SimulatedCaller":
        return cls(scenario.caller, implied_answers(scenario), _caller_names(scenario))

    @property
    def done(self) -> bool:
        return self.turns >= self.script.max_turns

    def answer(self, turn: Any) -> str:
        """What the caller says to an agent turn (a TurnResult): an identity check ("am I speaking with ...?"),
        which the scenario format answers as any read-back, is answered as a person would, by whether the name
        asked about is theirs; the script's `confirm` answers are kept for the read-backs they were written for."""
        if getattr(turn, "confirms", None) == "identity" and self.who and self._opened:
            self.turns += 1
            heard = fold_name(turn.reply)
            return IS_THE_CALLER_SAYS if any(fold_name(name) in heard for name in self.who) else IS_NOT_THE_CALLER_SAYS
        return self.next_line(turn.waiting_for)

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
