"""Plays scenario files against the engine and checks what happened.

Each scenario gets a fresh in-memory database built from its own clinic block,
a clock frozen at its `now`, and a simulated caller. The checks read the
database and the call record afterwards, not the engine's own account, so a
bug in the engine cannot vouch for itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from ..engine.clock import CountingIds, FrozenClock
from ..engine.engine import Engine
from ..engine.flow import Flow
from ..engine.types import CallInfo, TurnResult
from ..store.clinic_store import ClinicStore
from ..store.database import open_database
from ..store.records import CallRecorder
from .caller import SimulatedCaller
from .checks import always_on_failures, expectation_failures
from .scenario import InvalidScenario, Scenario, load_scenario, unasked_questions


@dataclass
class ScenarioResult:
    file: str
    name: str
    passed: bool
    failures: list[str] = field(default_factory=list)
    outcome: str | None = None
    turns: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    appointments: list[dict[str, Any]] = field(default_factory=list)
    patients_created: list[str] = field(default_factory=list)
    callbacks: int = 0
    transferred: bool = False
    identified: str | None = None      # the existing patient the call matched by name and date of birth

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.file, "name": self.name, "passed": self.passed, "failures": self.failures,
            "outcome": self.outcome, "turns": self.turns, "tools": self.tools,
            "appointments": self.appointments, "patients_created": self.patients_created,
            "callbacks": self.callbacks, "transferred": self.transferred, "identified": self.identified,
        }

    def line(self) -> str:
        if self.passed:
            return f"PASS {self.name}"
        return f"FAIL {self.name}: {'; '.join(self.failures)}"


def scenario_files(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given; a directory means every *.yaml in it, sorted."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file()))
        else:
            files.append(path)
    return files


@dataclass
class PlayedCall:
    """What a call left behind, for the checks."""

    scenario: Scenario
    clinic: Any
    store: ClinicStore
    recorder: CallRecorder
    call_id: str
    results: list[TurnResult]
    caller_lines: list[str]
    before: dict[str, dict]
    ended: bool
    # heard by ear (spoken or SIP): a name's accents cannot be heard, so names are checked without them
    by_ear: bool = False


# The part that plays a caller's line and returns the engine's answer: text here,
# audio through the voice pipeline in the spoken simulator.
Player = Callable[[Engine, str], TurnResult]


def play_text(engine: Engine, line: str) -> TurnResult:
    return engine.turn(line)


def run_scenario(path: str | Path, flow: Flow, *, player: Player = play_text) -> ScenarioResult:
    path = Path(path)
    try:
        scenario, clinic = load_scenario(path)
    except InvalidScenario as exc:
        return ScenarioResult(file=str(path), name=_name_of(path), passed=False,
                              failures=[f"invalid scenario: {exc}"])
    try:
        played = play_scenario(scenario, clinic, flow, player=player)
    except InvalidScenario as exc:
        return ScenarioResult(file=str(path), name=scenario.name, passed=False,
                              failures=[f"invalid scenario: {exc}"])
    except Exception as exc:  # a crash in one scenario is that scenario's failure, not the run's
        return ScenarioResult(file=str(path), name=scenario.name, passed=False,
                              failures=[f"crashed: {type(exc).__name__}: {exc}"])
    return judge(path, played, flow)


def _name_of(path: Path) -> str:
    """A broken file's name: its `name:` if that much can be read, else the file name."""
    try:
        import yaml

        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("name"), str) and data["name"].strip():
            return data["name"].strip()
    except Exception:
        pass
    return path.stem


@dataclass
class ScenarioSetup:
    """A fresh clinic database for one scenario, with the engine that will take its call."""

    clock: FrozenClock
    store: ClinicStore
    recorder: CallRecorder
    before: dict[str, dict]      # appointment rows before the call, to find what it changed
    engine: Engine


def set_up_scenario(scenario: Scenario, clinic: Any, flow: Flow, *, db_path: str | Path = ":memory:",
                    classifier: Any = None) -> ScenarioSetup:
    """Build the scenario's database from its clinic block, freeze its clock, make the engine.
    The text and the spoken simulators both start here."""
    problem = unasked_questions(scenario, flow.questions)
    if problem is not None:
        raise InvalidScenario(problem)
    clock = FrozenClock(scenario.now)
    ids = CountingIds()
    db = open_database(db_path)
    store = ClinicStore(db, new_id=ids, now=clock.now)
    store.load_clinic(clinic)
    recorder = CallRecorder(db)
    before = {row["id"]: row for row in db["appointments"].rows}
    engine = Engine(flow=flow, store=store, clock=clock, new_id=ids, recorder=recorder, classifier=classifier)
    return ScenarioSetup(clock, store, recorder, before, engine)


def play_scenario(scenario: Scenario, clinic: Any, flow: Flow, *, player: Player = play_text,
                  db_path: str | Path = ":memory:") -> PlayedCall:
    setup = set_up_scenario(scenario, clinic, flow, db_path=db_path)
    store, recorder, before, engine = setup.store, setup.recorder, setup.before, setup.engine
    caller = SimulatedCaller.of(scenario)
    results = [engine.start(CallInfo(caller_id=scenario.caller_id))]
    lines = [""]
    while not results[-1].ended and not caller.done:
        line = caller.answer(results[-1])
        lines.append(line)
        results.append(player(engine, line))
    ended_by_engine = results[-1].ended
    if not engine.ended:
        engine.hangup()
    return PlayedCall(scenario, clinic, store, recorder, engine.ctx.call_id, results, lines, before, ended_by_engine)


def judge(path: Path, played: PlayedCall, flow: Flow) -> ScenarioResult:
    from .checks import call_facts

    facts = call_facts(played)
    failures = always_on_failures(played, flow, facts) + expectation_failures(played, facts)
    turns = [{"caller": line, "agent": r.reply, "state": r.state, "waiting_for": r.waiting_for}
             for line, r in zip(played.caller_lines, played.results)]
    tools = [{"name": t["name"], "state": t["state"], "kind": t["result_kind"]} for t in facts.tool_calls]
    return ScenarioResult(
        file=str(path), name=played.scenario.name, passed=not failures, failures=failures,
        outcome=facts.outcome, turns=turns, tools=tools, appointments=facts.appointments,
        patients_created=facts.patients_created, callbacks=facts.callbacks, transferred=facts.transferred,
        identified=facts.identified,
    )
