"""Reading a clinic file from disk: YAML in, a validated `Clinic` out.

Errors name the file, the YAML path and the line, e.g.

    config/clinic.yaml: services[1].minutes: Input should be greater than 0 (line 23)

A YAML syntax error names the file, line and column. Duplicate keys in a
mapping are errors too (plain YAML keeps the last one silently).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import yaml

from appliance.clinic.schema import Clinic, ClinicDataError, clinic_from_mapping

# Top-level keys that mark a scenario file (SCENARIOS.md), whose `clinic` block we read.
_SCENARIO_KEYS = {"caller", "expect", "now", "caller_id"}


class ClinicFileError(ValueError):
    """A clinic file could not be read or is wrong. `problems` is [(yaml_path, message)]."""

    def __init__(self, file: str | Path, problems: list[tuple[str, str]], lines: dict[str, int] | None = None):
        self.file = str(file)
        self.problems = list(problems)
        self.lines = dict(lines or {})
        super().__init__(str(self))

    def line_of(self, path: str) -> int | None:
        """The line of `path`, or of its nearest parent (a missing key has no line of its own)."""
        while path:
            if path in self.lines:
                return self.lines[path]
            cut = max(path.rfind("."), path.rfind("["))
            path = path[:cut] if cut > 0 else ""
        return None

    def __str__(self) -> str:
        out = []
        for path, message in self.problems:
            line = self.line_of(path)
            where = f" (line {line})" if line else ""
            out.append(f"{self.file}: {path}: {message}{where}" if path else f"{self.file}: {message}{where}")
        return "\n".join(out)


class _DuplicateKey(yaml.MarkedYAMLError):
    pass


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys in a mapping."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
            except TypeError:
                continue  # unhashable key: the base class reports it
            if duplicate:
                raise _DuplicateKey(
                    "while reading a mapping",
                    node.start_mark,
                    f"duplicate key {key!r}: each key may appear once",
                    key_node.start_mark,
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _line_index(node: yaml.Node | None, path: str = "", into: dict[str, int] | None = None) -> dict[str, int]:
    """YAML path -> 1-based line, for every key and item in the document."""
    into = {} if into is None else into
    if node is None:
        return into
    into.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value)
            child = f"{path}.{key}" if path else key
            into[child] = key_node.start_mark.line + 1
            _line_index(value_node, child, into)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _line_index(item, f"{path}[{index}]", into)
    return into


def _syntax_problem(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    if mark is not None:
        return f"line {mark.line + 1}, column {mark.column + 1}: YAML syntax error: {problem}"
    return f"YAML syntax error: {problem}"


def load_clinic_text(text: str, *, file: str | Path = "<clinic>", today: date | None = None) -> Clinic:
    """Parse and validate clinic YAML; errors are ClinicFileError naming `file`."""
    try:
        data = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise ClinicFileError(file, [("", _syntax_problem(error))]) from None
    if data is None:
        raise ClinicFileError(file, [("", "the file is empty: it should hold a clinic (name, timezone, phone, ...)")])
    if not isinstance(data, dict):
        raise ClinicFileError(file, [("", "the top level must be a mapping: the clinic block, or `clinic:` holding it")])

    prefix = ""
    if "clinic" in data and (set(data) == {"clinic"} or set(data) & _SCENARIO_KEYS):
        data, prefix = data["clinic"], "clinic"
    lines = _line_index(root)
    try:
        return clinic_from_mapping(data, path_prefix=prefix, today=today)
    except ClinicDataError as error:
        raise ClinicFileError(file, error.problems, lines) from None


def load_clinic_file(path: str | Path, *, today: date | None = None) -> Clinic:
    """Load a clinic file: top level is the clinic block, or `{clinic: {...}}`
    (a scenario file works too: its `clinic` block is read)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ClinicFileError(path, [("", "no such file")]) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ClinicFileError(path, [("", f"cannot read it: {error}")]) from None
    return load_clinic_text(text, file=path, today=today)
