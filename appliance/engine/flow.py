"""The dialogue flow as data: loading, structural validation and a Mermaid graph.

The flow file decides which states exist, what each waits for (a question
declared in the questions file the flow names), which tools it may run (the
tool registry, tools/) and where it may go. The checks here are the product's
structural guarantees: a decision state cannot run a tool, only terminal
states end the call, and a write runs only in a state reached by a confirmed
read-back of that write's own kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..understanding import INTENTS, Question, QuestionError, known_kinds, read_questions
from ..understanding.questions import questions_from_mapping
from .conditions import CONDITIONS
from .replies import FACT_NAMES, placeholders
from .tools import CALL_ENDING_TOOLS, READ_BACKS, TOOLS, WRITE_TOOLS
from .types import OUTCOMES

KINDS = ("decision", "action", "terminal")
RETURN = "$return"
# what an edge may `clear`, and the call context fields each clears ("task" also drops the task's details)
EDGE_EFFECTS = {
    "name": ("first_name", "last_name"), "dob": ("dob",), "window": ("window",), "phone": ("phone",),
    "service": ("service_id",), "location": ("location_id",), "practitioner": ("practitioner_id",),
    "task": ("task",),
}
INTENT_NAMES = INTENTS   # the intents the understanding can find: a flow may only route on these
CALLBACK_REASONS = (
    "caller_request", "medical_advice", "non_service", "unclear", "unverified_identity",
    "patient_not_found", "booking_failed", "no_time_agreed", "cancel_failed", "system_error", "human_unavailable",
    "transfer_failed", "desk_unanswered", "crisis",
)

_TOP_KEYS = {"version", "start", "options", "global_edges", "edge_groups", "states", "templates", "questions"}
_STATE_KEYS = {"kind", "waiting_for", "say", "reask", "reprompt", "run", "edges", "confirms",
               "on_stuck", "on_failure", "after_side_trip", "listens_for", "ignore_globals", "outcome"}
_EDGE_KEYS = {"when", "to", "say", "reason", "clear"}
_GLOBAL_KEYS = _EDGE_KEYS | {"id", "side_trip"}
_OPTION_DEFAULTS = {"max_misses": 2, "max_side_trips": 3, "dob_attempts": 2, "name_attempts": 2, "max_offers": 5,
                    "children_under": 16, "on_stuck": None, "on_error": None}


class FlowError(ValueError):
    """A flow file that must not run. `problems` holds (yaml path, message) pairs."""

    def __init__(self, source: str, problems: list[tuple[str, str]]):
        self.source = source
        self.problems = problems = list(dict.fromkeys(problems))   # an edge group's fault, once for its includers
        super().__init__("\n".join(f"{source}: {path}: {msg}" for path, msg in problems))


@dataclass(frozen=True)
class Condition:
    """All of `names` must hold; a name in `negated` must not."""

    names: tuple[str, ...] = ()
    negated: frozenset[str] = frozenset()

    @property
    def always(self) -> bool:
        return not self.names

    def __str__(self) -> str:
        if not self.names:
            return "always"
        return " and ".join(("not " + n) if n in self.negated else n for n in self.names)


@dataclass(frozen=True)
class Edge:
    to: str
    when: Condition = Condition()
    say: str | None = None
    reason: str | None = None
    clear: tuple[str, ...] = ()
    id: str | None = None          # global edges only
    side_trip: bool = False        # global edges only


@dataclass(frozen=True)
class ToolStep:
    tool: str
    when: Condition = Condition()


@dataclass(frozen=True)
class SayChoice:
    template: str
    when: Condition = Condition()


@dataclass
class State:
    name: str
    kind: str
    waiting_for: str = "none"
    say: tuple[SayChoice, ...] = ()
    reask: str | None = None
    reprompt: tuple[str, ...] = ()
    run: tuple[ToolStep, ...] = ()
    edges: tuple[Edge, ...] = ()
    confirms: str | None = None
    on_stuck: str | None = None
    on_failure: str | None = None
    # where a question answered here leads (default: back to this state's question). "What else can I help
    # you with?" after the opening hours is not the opening question again: it waits for anything_else
    after_side_trip: str | None = None
    listens_for: tuple[str, ...] = ()
    ignore_globals: frozenset[str] = frozenset()
    outcome: str | None = None       # terminal states: the call's outcome when it ends here

    @property
    def tools(self) -> tuple[str, ...]:
        return tuple(step.tool for step in self.run)

    @property
    def waits(self) -> bool:
        return self.waiting_for != "none"


@dataclass
class Flow:
    source: str
    start: str
    states: dict[str, State]
    global_edges: tuple[Edge, ...]
    templates: dict[str, tuple[str, ...]]
    options: dict[str, Any] = field(default_factory=dict)
    questions: dict[str, Question] = field(default_factory=dict)

    def state(self, name: str) -> State:
        return self.states[name]

    @property
    def opening_question(self) -> str:
        """What the caller is first asked: the question of the first waiting state the call reaches."""
        seen: set[str] = set()
        name = self.start
        while name in self.states and name not in seen:
            seen.add(name)
            state = self.states[name]
            if state.waits:
                return state.waiting_for
            name = state.edges[-1].to if state.edges else ""
        return "none"


def load_flow(path: str | Path) -> Flow:
    """Read and validate a flow file; raises FlowError naming the state and key."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise FlowError(str(path), [("(file)", f"cannot read: {exc.strerror or exc}")]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(file)"
        raise FlowError(str(path), [(where, f"not valid YAML: {getattr(exc, 'problem', exc)}")]) from None
    return flow_from_mapping(data, source=str(path), base=path.parent)


def flow_from_mapping(data: Any, *, source: str = "<flow>", base: Path | None = None) -> Flow:
    """`base`: the folder a `questions:` file name is read from (the flow file's; default: the shipped
    flows folder)."""
    problems: list[tuple[str, str]] = []
    if not isinstance(data, dict):
        raise FlowError(source, [("(top)", "a flow file is a mapping with `start`, `states` and `templates`")])
    for key in sorted(set(data) - _TOP_KEYS):
        problems.append((key, "unknown key"))
    questions = _load_questions(data.get("questions"), base, problems)
    templates = _parse_templates(data.get("templates"), problems)
    options = dict(_OPTION_DEFAULTS)
    raw_options = data.get("options") or {}
    if not isinstance(raw_options, dict):
        problems.append(("options", "must be a mapping"))
        raw_options = {}
    for key, value in raw_options.items():
        if key not in _OPTION_DEFAULTS:
            problems.append((f"options.{key}", "unknown option"))
        else:
            options[key] = value
    raw_states = data.get("states")
    if not isinstance(raw_states, dict) or not raw_states:
        problems.append(("states", "must be a non-empty mapping of state name to state"))
        raise FlowError(source, problems)
    groups = _edge_groups(data.get("edge_groups"), problems)
    included: set[str] = set()
    states = {name: _parse_state(name, body, problems, groups, included) for name, body in raw_states.items()}
    for name in sorted(set(groups) - included):
        problems.append((f"edge_groups.{name}", "no state includes it"))
    global_edges = tuple(
        _parse_edge(raw, f"global_edges[{i}]", problems, is_global=True)
        for i, raw in enumerate(data.get("global_edges") or [])
    )
    flow = Flow(source=source, start=str(data.get("start", "")), states=states,
                global_edges=global_edges, templates=templates, options=options, questions=questions)
    problems.extend(validate_flow(flow))
    if problems:
        raise FlowError(source, problems)
    return flow


# ---------------------------------------------------------------- parsing

SHIPPED_FLOWS = Path(__file__).resolve().parents[2] / "config" / "flows"


def _load_questions(raw: Any, base: Path | None, problems: list) -> dict[str, Question]:
    """The questions the flow names: a file beside the flow, or declarations written in place."""
    try:
        if isinstance(raw, str):
            return read_questions((base or SHIPPED_FLOWS) / raw, known_kinds=known_kinds())
        if isinstance(raw, dict):
            return questions_from_mapping(raw, known_kinds=known_kinds())
    except QuestionError as exc:
        problems.append(("questions", str(exc)))
        return {}
    problems.append(("questions", "name the questions file (e.g. `questions: questions.yaml`) or declare them here"))
    return {}


def _parse_condition(raw: Any, path: str, problems: list) -> Condition:
    if raw is None:
        return Condition()
    items = raw if isinstance(raw, list) else [raw]
    names: list[str] = []
    negated: set[str] = set()
    for item in items:
        if not isinstance(item, str) or not item.strip():
            problems.append((path, f"a condition must be a rule name, not {item!r}"))
            continue
        text = item.strip()
        if text.startswith("not "):
            text = text[4:].strip()
            negated.add(text)
        if text not in CONDITIONS:
            problems.append((path, f"unknown condition {text!r}"))
        names.append(text)
    return Condition(tuple(names), frozenset(negated))


def _parse_edge(raw: Any, path: str, problems: list, *, is_global: bool = False) -> Edge:
    if not isinstance(raw, dict):
        problems.append((path, "an edge is a mapping with `to` (and optionally `when`, `say`, `reason`, `clear`)"))
        return Edge(to="")
    allowed = _GLOBAL_KEYS if is_global else _EDGE_KEYS
    for key in sorted(set(raw) - allowed):
        problems.append((f"{path}.{key}", "unknown key"))
    clear = raw.get("clear") or []
    for item in clear:
        if item not in EDGE_EFFECTS:
            problems.append((f"{path}.clear", f"cannot clear {item!r}; one of {', '.join(EDGE_EFFECTS)}"))
    reason = raw.get("reason")
    if reason is not None and reason not in CALLBACK_REASONS:
        problems.append((f"{path}.reason", f"unknown callback reason {reason!r}"))
    if "to" not in raw:
        problems.append((f"{path}.to", "missing"))
    return Edge(
        to=str(raw.get("to", "")),
        when=_parse_condition(raw.get("when"), f"{path}.when", problems),
        say=raw.get("say"),
        reason=reason,
        clear=tuple(clear),
        id=raw.get("id"),
        side_trip=bool(raw.get("side_trip", False)),
    )


def _parse_say(raw: Any, path: str, problems: list) -> tuple[SayChoice, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (SayChoice(raw),)
    if isinstance(raw, list):
        choices = []
        for i, item in enumerate(raw):
            if not isinstance(item, dict) or "template" not in item:
                problems.append((f"{path}[{i}]", "each choice is {when: ..., template: ...}"))
                continue
            choices.append(SayChoice(item["template"], _parse_condition(item.get("when"), f"{path}[{i}].when", problems)))
        return tuple(choices)
    problems.append((path, "a template name, or a list of {when, template}"))
    return ()


def _edge_groups(raw: Any, problems: list) -> dict[str, list]:
    """Named lists of edges that states share (`{include: name}` among a state's edges puts them there)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        problems.append(("edge_groups", "a mapping of group name to a list of edges"))
        return {}
    groups = {}
    for name, edges in raw.items():
        if not isinstance(edges, list) or not edges:
            problems.append((f"edge_groups.{name}", "a non-empty list of edges"))
            continue
        groups[str(name)] = edges
    return groups


def _expand_edges(raw: Any, path: str, groups: dict[str, list], problems: list, included: set[str],
                  within: tuple[str, ...] = ()) -> list[tuple[str, Any]]:
    """(yaml path, edge) for each of a state's edges, an edge group's put in place of its `{include: name}`; a
    group's edges keep their path under `edge_groups`, where they are declared."""
    edges: list[tuple[str, Any]] = []
    for i, item in enumerate(raw or []):
        here = f"{path}[{i}]"
        if not (isinstance(item, dict) and "include" in item):
            edges.append((here, item))
            continue
        name = item["include"]
        if set(item) != {"include"}:
            problems.append((here, "an include names an edge group and nothing else"))
        elif name not in groups:
            problems.append((f"{here}.include", f"unknown edge group {name!r}: one of "
                                                f"{', '.join(sorted(groups)) or '(none declared in edge_groups)'}"))
        elif name in within:
            problems.append((f"{here}.include", f"edge group {name!r} includes itself"))
        else:
            included.add(name)
            edges += _expand_edges(groups[name], f"edge_groups.{name}", groups, problems, included, (*within, name))
    return edges


def _parse_state(name: str, body: Any, problems: list, groups: dict[str, list], included: set[str]) -> State:
    path = f"states.{name}"
    if not isinstance(body, dict):
        problems.append((path, "a state is a mapping with at least `kind`"))
        return State(name=name, kind="decision")
    for key in sorted(set(body) - _STATE_KEYS):
        problems.append((f"{path}.{key}", "unknown key"))
    run = []
    for i, step in enumerate(body.get("run") or []):
        if isinstance(step, str):
            step = {"tool": step}
        if not isinstance(step, dict) or "tool" not in step or set(step) - {"tool", "if"}:
            problems.append((f"{path}.run[{i}]", "each step is {tool: Name} with an optional `if`"))
            continue
        run.append(ToolStep(step["tool"], _parse_condition(step.get("if"), f"{path}.run[{i}].if", problems)))
    return State(
        name=name,
        kind=body.get("kind", ""),
        waiting_for=body.get("waiting_for", "none"),
        say=_parse_say(body.get("say"), f"{path}.say", problems),
        reask=body.get("reask"),
        reprompt=tuple(body.get("reprompt") or ()),
        run=tuple(run),
        edges=tuple(_parse_edge(edge, where, problems) for where, edge in
                    _expand_edges(body.get("edges"), f"{path}.edges", groups, problems, included)),
        confirms=body.get("confirms"),
        on_stuck=body.get("on_stuck"),
        on_failure=body.get("on_failure"),
        after_side_trip=body.get("after_side_trip"),
        listens_for=tuple(body.get("listens_for") or ()),
        ignore_globals=frozenset(body.get("ignore_globals") or ()),
        outcome=body.get("outcome"),
    )


def _parse_templates(raw: Any, problems: list) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, dict):
        problems.append(("templates", "must be a mapping of template name to text (or list of texts)"))
        return {}
    out = {}
    for name, value in raw.items():
        texts = value if isinstance(value, list) else [value]
        if not texts or not all(isinstance(t, str) and t.strip() for t in texts):
            problems.append((f"templates.{name}", "must be non-empty text or a list of texts"))
            continue
        out[name] = tuple(texts)
    return out


# ---------------------------------------------------------------- validation

# templates the engine itself says, outside any state
ENGINE_TEMPLATES = ("silence_check_in", "silence_goodbye")


def validate_flow(flow: Flow) -> list[tuple[str, str]]:
    """Every structural rule the engine depends on; an empty list means the flow may run."""
    problems: list[tuple[str, str]] = []
    for name in ENGINE_TEMPLATES:
        if name not in flow.templates:
            problems.append((f"templates.{name}", "missing: the engine says this when the caller goes quiet"))
    states = flow.states
    side_trip_targets = {e.to for e in flow.global_edges if e.side_trip}

    def known_target(target: str | None, path: str, *, allow_return: bool = False) -> None:
        if target is None:
            return
        if target == RETURN:
            if not allow_return:
                problems.append((path, "`$return` is only for side-trip states"))
        elif target not in states:
            problems.append((path, f"unknown state {target!r}"))

    if flow.start not in states:
        problems.append(("start", f"unknown state {flow.start!r}"))
    for key in ("on_stuck", "on_error"):
        if flow.options.get(key):
            known_target(flow.options[key], f"options.{key}")
    for i, edge in enumerate(flow.global_edges):
        path = f"global_edges[{i}]"
        known_target(edge.to, f"{path}.to")
        if not edge.id:
            problems.append((f"{path}.id", "global edges need an id (states refer to it in ignore_globals)"))
        if edge.to in states and states[edge.to].kind == "action" and any(t in WRITE_TOOLS for t in states[edge.to].tools):
            problems.append((f"{path}.to", f"a global edge leads straight into write state {edge.to!r}"))
        if edge.say and edge.say not in flow.templates:
            problems.append((f"{path}.say", f"unknown template {edge.say!r}"))
    global_ids = {e.id for e in flow.global_edges}

    for name, state in states.items():
        path = f"states.{name}"
        if state.kind not in KINDS:
            problems.append((f"{path}.kind", f"must be one of {', '.join(KINDS)}, not {state.kind!r}"))
            continue
        question = flow.questions.get(state.waiting_for)
        if question is None and flow.questions:
            problems.append((f"{path}.waiting_for", f"{state.waiting_for!r} is not a declared question (one of "
                                                    f"{', '.join(sorted(flow.questions))})"))
        for i, step in enumerate(state.run):
            if step.tool not in TOOLS:
                problems.append((f"{path}.run[{i}]", f"unknown tool {step.tool!r}"))
        tools = set(state.tools)
        if state.kind == "decision" and tools:
            problems.append((f"{path}.run", f"decision state {name!r} lists tools ({', '.join(sorted(tools))}); decision states decide, they never act"))
        if state.kind == "action" and not tools:
            problems.append((f"{path}.run", f"action state {name!r} has no tools"))
        if state.kind != "terminal" and tools & CALL_ENDING_TOOLS:
            problems.append((f"{path}.run", f"{', '.join(sorted(tools & CALL_ENDING_TOOLS))} in non-terminal state {name!r}: only terminal states end the call"))
        if state.outcome is not None and (state.kind != "terminal" or state.outcome not in OUTCOMES):
            problems.append((f"{path}.outcome", f"only terminal states name an outcome, one of {', '.join(OUTCOMES)}"))
        if state.kind == "terminal":
            if not tools & CALL_ENDING_TOOLS:
                problems.append((f"{path}.run", f"terminal state {name!r} must end the call (EndCall or TransferCall)"))
            if state.edges:
                problems.append((f"{path}.edges", f"terminal state {name!r} has edges; a terminal ends the call (use on_failure for a failed handoff)"))
            if state.waits:
                problems.append((f"{path}.waiting_for", f"terminal state {name!r} cannot wait for the caller"))
        writes = tools & set(WRITE_TOOLS)
        if writes and state.kind != "action":
            problems.append((f"{path}.run", f"write tool {', '.join(sorted(writes))} in {state.kind} state {name!r}: writes run only in action states"))
        if len(writes) > 1:
            problems.append((f"{path}.run", f"state {name!r} runs more than one write ({', '.join(sorted(writes))})"))
        if state.confirms is not None:
            if state.confirms not in READ_BACKS:
                problems.append((f"{path}.confirms", f"unknown read-back {state.confirms!r}: one of "
                                                     f"{', '.join(sorted(READ_BACKS))} (a tool's `read_back`)"))
            if question is not None and not question.read_back:
                problems.append((f"{path}.confirms", f"state {name!r} reads back for confirmation but its question "
                                                     f"{state.waiting_for!r} does not expect a confirmation"))
            elif question is not None and not question.yes_rivals:
                problems.append((f"{path}.confirms", f"state {name!r} reads back for confirmation but its question "
                                                     f"{state.waiting_for!r} declares no `yes_rivals` (what a yes "
                                                     f"scored against the audio must beat)"))
        for choice in state.say:
            if choice.template not in flow.templates:
                problems.append((f"{path}.say", f"unknown template {choice.template!r}"))
        for key, value in (("reask", state.reask),):
            if value and value not in flow.templates:
                problems.append((f"{path}.{key}", f"unknown template {value!r}"))
        for template in state.reprompt:
            if template not in flow.templates:
                problems.append((f"{path}.reprompt", f"unknown template {template!r}"))
        for intent in state.listens_for:
            if isinstance(intent, bool):
                problems.append((f"{path}.listens_for", "YAML read yes/no as true/false: quote them (\"yes\", \"no\")"))
            elif intent not in INTENT_NAMES:
                problems.append((f"{path}.listens_for", f"unknown intent {intent!r}"))
        for gid in state.ignore_globals:
            if gid not in global_ids:
                problems.append((f"{path}.ignore_globals", f"unknown global edge id {gid!r}"))
        known_target(state.on_stuck, f"{path}.on_stuck")
        known_target(state.on_failure, f"{path}.on_failure")
        known_target(state.after_side_trip, f"{path}.after_side_trip")
        if state.after_side_trip and not state.waits:
            problems.append((f"{path}.after_side_trip", f"state {name!r} does not wait for the caller, so no question is answered in it"))
        if state.on_stuck and not state.waits:
            problems.append((f"{path}.on_stuck", f"state {name!r} does not wait for the caller, so it cannot get stuck"))
        for i, edge in enumerate(state.edges):
            epath = f"{path}.edges[{i}]"
            known_target(edge.to, f"{epath}.to", allow_return=name in side_trip_targets)
            if edge.say and edge.say not in flow.templates:
                problems.append((f"{epath}.say", f"unknown template {edge.say!r}"))
        if state.kind != "terminal" and not state.waits:
            if not state.edges or not state.edges[-1].when.always:
                problems.append((f"{path}.edges", f"state {name!r} does not wait for the caller, so its last edge must have no `when` (it could dead-end)"))
        if state.waits and not state.edges:
            problems.append((f"{path}.edges", f"state {name!r} waits for the caller but has no way out"))

    for tname, texts in flow.templates.items():
        for text in texts:
            try:
                unknown = placeholders(text) - FACT_NAMES
            except ValueError as exc:
                problems.append((f"templates.{tname}", f"bad placeholder syntax: {exc}"))
                continue
            for fact in sorted(unknown):
                problems.append((f"templates.{tname}", f"unknown placeholder {{{fact}}}"))

    problems.extend(_check_write_gates(flow))
    problems.extend(_check_reachable(flow))
    return problems


def _incoming(flow: Flow) -> dict[str, list[tuple[str, Edge | None, str]]]:
    """target -> [(source state, edge or None, how)] over every way in."""
    ways: dict[str, list] = {name: [] for name in flow.states}
    for name, state in flow.states.items():
        for edge in state.edges:
            if edge.to in ways:
                ways[edge.to].append((name, edge, "edge"))
        for key in ("on_stuck", "on_failure", "after_side_trip"):
            target = getattr(state, key)
            if target in ways:
                ways[target].append((name, None, key))
    for edge in flow.global_edges:
        if edge.to in ways:
            ways[edge.to].append(("(global)", edge, "global edge"))
    for key in ("on_stuck", "on_error"):
        if flow.options.get(key) in ways:
            ways[flow.options[key]].append(("(options)", None, f"options.{key}"))
    if flow.start in ways:
        ways[flow.start].append(("(start)", None, "start"))
    return ways


def _check_write_gates(flow: Flow) -> list[tuple[str, str]]:
    """A write state is entered only by a `said_yes` edge from the matching read-back."""
    problems = []
    ways = _incoming(flow)
    for name, state in flow.states.items():
        writes = [t for t in state.tools if t in WRITE_TOOLS]
        if not writes:
            continue
        needed = WRITE_TOOLS[writes[0]]
        if not ways[name]:
            continue
        for source, edge, how in ways[name]:
            src = flow.states.get(source)
            asked = flow.questions.get(src.waiting_for) if src is not None else None
            ok = (
                how == "edge" and asked is not None and asked.read_back
                and src.confirms == needed and edge is not None
                and "said_yes" in edge.when.names and "said_yes" not in edge.when.negated
            )
            if not ok:
                problems.append((
                    f"states.{name}.run",
                    f"write tool {writes[0]} in state {name!r} is reachable from {source!r} ({how}) without the caller confirming a `{needed}` read-back",
                ))
    return problems


def _check_reachable(flow: Flow) -> list[tuple[str, str]]:
    if flow.start not in flow.states:
        return []
    seen = {flow.start}
    todo = [flow.start]
    extra = [e.to for e in flow.global_edges]
    extra += [flow.options[k] for k in ("on_stuck", "on_error") if flow.options.get(k)]
    for target in extra:
        if target in flow.states and target not in seen:
            seen.add(target)
            todo.append(target)
    while todo:
        state = flow.states[todo.pop()]
        nexts = [e.to for e in state.edges] + [state.on_stuck, state.on_failure]
        for target in nexts:
            if target in flow.states and target not in seen:
                seen.add(target)
                todo.append(target)
    return [(f"states.{name}", f"state {name!r} is unreachable from {flow.start!r}")
            for name in flow.states if name not in seen]


# ---------------------------------------------------------------- graph

def mermaid(flow: Flow) -> str:
    """The state graph as Mermaid flowchart text: decisions as rhombi, actions as boxes, terminals as circles."""
    shape = {"decision": ("{", "}"), "action": ("[", "]"), "terminal": ("((", "))")}
    lines = ["flowchart TD"]
    for name, state in flow.states.items():
        left, right = shape.get(state.kind, ("[", "]"))
        label = name
        if state.tools:
            label += "<br/>" + ", ".join(state.tools)
        if state.waits:
            label += f"<br/>waits: {state.waiting_for}"
        lines.append(f'    {name}{left}"{label}"{right}')
    lines.append('    ANY(("any waiting state"))')
    for name, state in flow.states.items():
        for edge in state.edges:
            target = "ANY" if edge.to == RETURN else edge.to
            lines.append(f"    {name} -->|{edge.when}| {target}")
        for key in ("on_stuck", "on_failure"):
            target = getattr(state, key)
            if target:
                lines.append(f"    {name} -.->|{key}| {target}")
    for edge in flow.global_edges:
        style = "-.->" if edge.side_trip else "==>"
        lines.append(f"    ANY {style}|{edge.when}| {edge.to}")
    lines.append(f"    START([call starts]) --> {flow.start}")
    return "\n".join(lines) + "\n"
