"""The simulated caller: says the scenario's lines in answer to what the agent waits for."""

from __future__ import annotations

from collections import Counter

from .scenario import Caller


class SimulatedCaller:
    def __init__(self, script: Caller):
        self.script = script
        self.turns = 0
        self._opened = False
        self._asked: Counter[str] = Counter()
        self._interjected: set[int] = set()

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
        answer = self.script.answers.get(waiting_for)
        if answer is None:
            return self.script.default
        if isinstance(answer, list):
            index = min(self._asked[waiting_for], len(answer) - 1)
            self._asked[waiting_for] += 1
            return answer[index]
        return answer
