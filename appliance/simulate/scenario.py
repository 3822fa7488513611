"""The caller scenario file format (shared/SCENARIOS.md), validated.

A broken file is reported with the YAML path of what is wrong, so its author
can fix it; it never stops a run of other scenarios.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Iterable, Literal

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from ..clinic import ClinicDataError, clinic_from_mapping
from ..engine.types import OUTCOMES


class InvalidScenario(ValueError):
    """str() is `<yaml path>: <problem>` (several joined with '; ')."""


def _from_iso(value: Any) -> Any:
    return datetime.fromisoformat(value) if isinstance(value, str) else value


# a time written as in the scenario file ("2027-02-08T10:00"), read by Python's own ISO reading
IsoDatetime = Annotated[datetime, BeforeValidator(_from_iso)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Interjection(_Strict):
    at: str
    say: str

    @field_validator("at")
    @classmethod
    def _known_wait(cls, value: str) -> str:
        return _question_name(value)


class Caller(_Strict):
    opening: str
    answers: dict[str, str | list[str]] = Field(default_factory=dict)
    interjections: list[Interjection] = Field(default_factory=list)
    default: str = "sorry, what was that?"
    max_turns: int = Field(default=25, ge=1, le=500)

    @field_validator("answers")
    @classmethod
    def _known_answers(cls, value: dict) -> dict:
        for key, answer in value.items():
            _question_name(key)
            if isinstance(answer, list) and not answer:
                raise ValueError(f"answer list for {key!r} is empty")
        return value


def _question_name(value: str) -> str:
    """A `waiting_for` name's form; whether the flow asks it is checked against the flow (`unasked_questions`)."""
    if not isinstance(value, str) or not value.replace("_", "").isalnum():
        raise ValueError(f"unknown waiting_for name {value!r}")
    return value


def unasked_questions(scenario: Scenario, questions: Iterable[str]) -> str | None:
    """What is wrong when the caller's script answers a question the flow never asks (None: nothing)."""
    asked = set(questions)
    for key in scenario.caller.answers:
        if key not in asked:
            return f"caller.answers.{key}: unknown waiting_for name {key!r} (the flow asks {', '.join(sorted(asked))})"
    for i, item in enumerate(scenario.caller.interjections):
        if item.at not in asked:
            return f"caller.interjections[{i}].at: unknown waiting_for name {item.at!r}"
    return None


class ExpectedAppointment(_Strict):
    patient: str
    service: str
    start: IsoDatetime
    status: Literal["booked", "cancelled"]
    practitioner: str | None = None
    location: str | None = None



class Expect(_Strict):
    outcome: str | list[str] | None = None
    appointments: list[ExpectedAppointment] | None = None
    patients_created: list[str] | None = None
    callbacks: int | None = Field(default=None, ge=0)
    transferred: bool | None = None
    says: list[str] = Field(default_factory=list)
    never_says: list[str] = Field(default_factory=list)

    @field_validator("outcome")
    @classmethod
    def _known_outcome(cls, value: Any) -> Any:
        for item in [value] if isinstance(value, str) else value or []:
            if item not in OUTCOMES:
                raise ValueError(f"unknown outcome {item!r}; one of {', '.join(OUTCOMES)}")
        return value

    @property
    def outcomes(self) -> list[str] | None:
        if self.outcome is None:
            return None
        return [self.outcome] if isinstance(self.outcome, str) else list(self.outcome)


class Scenario(_Strict):
    name: str
    now: IsoDatetime
    caller_id: str = ""
    clinic: dict[str, Any]
    caller: Caller
    expect: Expect = Field(default_factory=Expect)


    @field_validator("caller_id", mode="before")
    @classmethod
    def _caller_id_text(cls, value: Any) -> Any:
        return "" if value is None else str(value)


def _pydantic_path(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def load_scenario(path: str | Path) -> tuple[Scenario, Any]:
    """The scenario and its validated clinic; raises InvalidScenario naming the YAML path."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidScenario(f"(file): cannot read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(file)"
        raise InvalidScenario(f"{where}: not valid YAML: {getattr(exc, 'problem', None) or exc}") from None
    return scenario_from_mapping(data)


def scenario_from_mapping(data: Any) -> tuple[Scenario, Any]:
    if not isinstance(data, dict):
        raise InvalidScenario("(top): a scenario is a mapping with name, now, clinic, caller and expect")
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "missing":
                msg = "missing"
            problems.append(f"{_pydantic_path(err['loc'])}: {msg}")
        raise InvalidScenario("; ".join(problems)) from None
    try:
        clinic = clinic_from_mapping(scenario.clinic, path_prefix="clinic")
    except ClinicDataError as exc:
        raise InvalidScenario("; ".join(f"{p}: {m}" for p, m in exc.problems)) from None
    _check_references(scenario, clinic)
    return scenario, clinic


def _check_references(scenario: Scenario, clinic: Any) -> None:
    catalog = clinic.catalog()
    services = {s.id for s in catalog.services}
    practitioners = {p.id for p in catalog.practitioners}
    locations = {loc.id for loc in catalog.locations}
    problems = []
    for i, appt in enumerate(scenario.expect.appointments or []):
        path = f"expect.appointments[{i}]"
        if appt.service not in services:
            problems.append(f"{path}.service: unknown service id {appt.service!r}")
        if appt.practitioner is not None and appt.practitioner not in practitioners:
            problems.append(f"{path}.practitioner: unknown practitioner id {appt.practitioner!r}")
        if appt.location is not None and appt.location not in locations:
            problems.append(f"{path}.location: unknown location id {appt.location!r}")
    if problems:
        raise InvalidScenario("; ".join(problems))
