"""Each structural rule of the flow validator rejects a flow that breaks it."""

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from appliance.engine.flow import FlowError, flow_from_mapping, load_flow, mermaid

FLOW = Path(__file__).resolve().parents[2] / "config" / "flows" / "clinic.yaml"


@pytest.fixture(scope="module")
def raw():
    return yaml.safe_load(FLOW.read_text())


def broken(raw, change):
    data = copy.deepcopy(raw)
    change(data)
    with pytest.raises(FlowError) as info:
        flow_from_mapping(data, source="test.yaml")
    return str(info.value)


def test_shipped_flow_is_valid():
    flow = load_flow(FLOW)
    kinds = {s.kind for s in flow.states.values()}
    assert kinds == {"decision", "action", "terminal"}
    for state in flow.states.values():
        if state.kind == "decision":
            assert not state.tools, state.name
        if "EndCall" in state.tools:
            assert state.kind == "terminal", state.name


def test_decision_state_with_a_tool_is_rejected(raw):
    message = broken(raw, lambda d: d["states"]["offer_slots"].update(run=[{"tool": "CheckAvailability"}]))
    assert "states.offer_slots.run" in message
    assert "decision state 'offer_slots' lists tools" in message


def test_booking_that_can_end_the_call_is_rejected(raw):
    def change(d):
        d["states"]["commit_booking"]["run"].append({"tool": "EndCall"})
    message = broken(raw, change)
    assert "states.commit_booking.run" in message
    assert "EndCall in non-terminal state 'commit_booking'" in message


def test_booking_made_terminal_is_rejected(raw):
    def change(d):
        d["states"]["commit_booking"] = {"kind": "terminal", "say": "goodbye",
                                         "run": [{"tool": "CreateAppointment"}, {"tool": "EndCall"}]}
    message = broken(raw, change)
    assert "write tool CreateAppointment in terminal state 'commit_booking'" in message


def test_write_reachable_without_confirmation_is_rejected(raw):
    def change(d):
        d["states"]["offer_slots"]["edges"].insert(0, {"when": "slot_picked", "to": "commit_booking"})
    message = broken(raw, change)
    assert "states.commit_booking.run" in message
    assert "from 'offer_slots'" in message


def test_write_confirmed_by_the_wrong_read_back_is_rejected(raw):
    def change(d):
        d["states"]["confirm_cancel"]["edges"][0]["to"] = "commit_booking"
    message = broken(raw, change)
    assert "without the caller confirming a `book` read-back" in message


def test_write_from_confirm_state_without_a_yes_is_rejected(raw):
    def change(d):
        edge = next(e for e in d["states"]["confirm_booking"]["edges"] if e["to"] == "commit_booking")
        edge["when"] = "slot_picked"
    assert "commit_booking" in broken(raw, change)


def test_global_edge_into_a_write_is_rejected(raw):
    message = broken(raw, lambda d: d["global_edges"].append({"id": "x", "when": "said_yes", "to": "commit_cancel"}))
    assert "global edge leads straight into write state 'commit_cancel'" in message


@pytest.mark.parametrize("change, expected", [
    (lambda d: d["states"]["greeting"]["edges"].append({"to": "nowhere"}), "unknown state 'nowhere'"),
    (lambda d: d["states"]["check_availability"]["run"].append({"tool": "SendFax"}), "unknown tool 'SendFax'"),
    (lambda d: d["states"]["greeting"].update(say="no_such_template"), "unknown template 'no_such_template'"),
    (lambda d: d["states"]["greeting"]["edges"].append({"when": "moon_is_full", "to": "goodbye"}), "unknown condition 'moon_is_full'"),
    (lambda d: d["states"].update(orphan={"kind": "decision", "waiting_for": "intent", "say": "greeting",
                                          "edges": [{"to": "goodbye"}]}), "state 'orphan' is unreachable"),
    (lambda d: d["states"]["goodbye"].update(edges=[{"to": "greeting"}]), "terminal state 'goodbye' has edges"),
    (lambda d: d["states"]["goodbye"].update(run=[]), "terminal state 'goodbye' must end the call"),
    (lambda d: d["states"]["task_router"]["edges"].pop(), "its last edge must have no `when`"),
    (lambda d: d["states"]["greeting"].update(waiting_for="horoscope"), "'horoscope' is not a declared question"),
    (lambda d: d["states"]["greeting"].update(colour="blue"), "states.greeting.colour: unknown key"),
    (lambda d: d["templates"].update(greeting="Hello {caller_shoe_size}"), "unknown placeholder {caller_shoe_size}"),
    (lambda d: d["states"]["load_bookings"].update(run=[]), "action state 'load_bookings' has no tools"),
    (lambda d: d["states"]["greeting"].update(kind="thinking"), "must be one of decision, action, terminal"),
    (lambda d: d["states"]["offer_slots"].update(confirms="book"), "does not expect a confirmation"),
    (lambda d: d["states"]["greeting"].update(after_side_trip="nowhere"), "unknown state 'nowhere'"),
    (lambda d: d["states"]["load_bookings"].update(after_side_trip="anything_else"),
     "state 'load_bookings' does not wait for the caller, so no question is answered in it"),
])
def test_each_structural_rule(raw, change, expected):
    assert expected in broken(raw, change)


def test_flow_check_command_names_the_state(tmp_path, raw):
    data = copy.deepcopy(raw)
    data["states"]["ask_service"]["run"] = [{"tool": "GetServicesAndPricing"}]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    run = subprocess.run([sys.executable, "-m", "appliance.cli", "flow", "check", "--flow", str(bad)],
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert "states.ask_service.run" in run.stderr
    ok = subprocess.run([sys.executable, "-m", "appliance.cli", "flow", "check", "--flow", str(FLOW)],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("OK ")


def test_graph_is_mermaid_with_every_state():
    flow = load_flow(FLOW)
    text = mermaid(flow)
    assert text.startswith("flowchart TD")
    for name in flow.states:
        assert name in text
    assert "commit_booking -->|last_tool_ok| booked" in text


# ------------------------------------------------------------ question and tool declarations

QUESTIONS = FLOW.parent / "questions.yaml"


def with_questions(raw, change):
    """The shipped flow with its questions declared in place, changed."""
    data = copy.deepcopy(raw)
    data["questions"] = yaml.safe_load(QUESTIONS.read_text())["questions"]
    change(data["questions"])
    return data


@pytest.mark.parametrize(("change", "expected"), [
    (lambda q: q["dob"].update(expects=["horoscope"]), "questions.dob.expects: unknown kind 'horoscope'"),
    (lambda q: q["dob"].update(answered_by=["a_guess"]), "questions.dob.answered_by: unknown fact 'a_guess'"),
    (lambda q: q["dob"].update(colour="blue"), "questions.dob.colour"),
    (lambda q: q["phone"].update(name_part="first"), "only a question that expects a name has a name part"),
    (lambda q: q["phone"]["repairs"].insert(0, {"heard": "well", "means": "oh", "where": "on_a_full_moon"}),
     "questions.phone.repairs[0]: unknown repair context 'on_a_full_moon'"),
    (lambda q: q["phone"]["repairs"].insert(0, {"heard": "(unclosed", "means": "x"}), "questions.phone.repairs[0]"),
    (lambda q: q["phone"]["repairs"].append({"heard": "well", "means": "\\3"}),
     "the replacement names a group the pattern lacks"),
    (lambda q: q["phone"]["repairs"].append({"heard": "well", "means": "@reverse_it"}), "unknown transform '@reverse_it'"),
    (lambda q: q["confirm"].update(short_answers={"maybe": ["perhaps"]}), "short answers settle yes or no"),
    (lambda q: q["dob"].update(keypad="morse"), "questions.dob.keypad"),
    (lambda q: q.pop("slot_choice"), "states.offer_slots.waiting_for: 'slot_choice' is not a declared question"),
    (lambda q: q["confirm"].update(expects=["name"], yes_rivals={}), "does not expect a confirmation"),
    (lambda q: q["confirm"]["yes_rivals"].update(fillers=["uh", 3]), "questions.confirm.yes_rivals.fillers.1"),
    (lambda q: q["confirm"]["yes_rivals"].update(other="sorry?"), "questions.confirm.yes_rivals.other"),
    (lambda q: q["confirm"]["yes_rivals"].update(other=["  "]), "questions.confirm.yes_rivals.other: needs a list"),
    (lambda q: q["dob"].update(yes_rivals={"fillers": ["uh"]}), "questions.dob.yes_rivals: only a read-back"),
    (lambda q: q["confirm"].pop("yes_rivals"), "declares no `yes_rivals`"),
    (lambda q: q["been_before"].update(status_by_answer={"yes": "veteran"}), "questions.been_before.status_by_answer.yes"),
    (lambda q: q["been_before"].update(status_by_answer={"maybe": "new"}), "questions.been_before.status_by_answer.maybe"),
])
def test_each_question_declaration_rule(raw, change, expected):
    data = with_questions(raw, change)
    with pytest.raises(FlowError) as info:
        flow_from_mapping(data, source="test.yaml")
    assert expected in str(info.value)


def test_a_flow_must_name_its_questions(raw):
    assert "name the questions file" in broken(raw, lambda d: d.pop("questions"))


def test_a_missing_questions_file_is_named(raw, tmp_path):
    data = copy.deepcopy(raw)
    data["questions"] = "no-such-file.yaml"
    with pytest.raises(FlowError) as info:
        flow_from_mapping(data, source="test.yaml", base=tmp_path)
    assert "no-such-file.yaml: cannot read the questions" in str(info.value)


def test_a_read_back_must_be_some_tools(raw):
    message = broken(raw, lambda d: d["states"]["confirm_booking"].update(confirms="horoscope"))
    assert "unknown read-back 'horoscope'" in message and "a tool's `read_back`" in message


def test_every_write_tool_declares_the_read_back_its_guard_needs():
    from appliance.engine.tools import READ_BACKS, TOOLS, WRITE_TOOLS, ToolKind

    for tool in TOOLS.values():
        if tool.kind is ToolKind.WRITE:
            assert tool.read_back, tool.name
            assert READ_BACKS[tool.read_back] is tool, tool.name
    assert set(WRITE_TOOLS) == {"CreateAppointment", "RescheduleAppointment", "CancelAppt", "CancelAppointments",
                                "CreatePatient"}


def test_a_write_gated_by_another_writes_read_back_is_rejected(raw):
    # the cancel state reached by a yes to the booking read-back: the yes was to something else
    def change(d):
        d["states"]["confirm_booking"]["edges"][0]["to"] = "commit_cancel"
    message = broken(raw, change)
    assert "without the caller confirming a `cancel` read-back" in message


def test_a_bad_yes_rival_names_the_questions_file_and_key(raw, tmp_path):
    questions = yaml.safe_load(QUESTIONS.read_text())
    questions["questions"]["confirm"]["yes_rivals"] = {"negated": ["incorrect", None]}
    (tmp_path / "questions.yaml").write_text(yaml.safe_dump(questions))
    data = copy.deepcopy(raw)
    data["questions"] = "questions.yaml"
    with pytest.raises(FlowError) as info:
        flow_from_mapping(data, source="test.yaml", base=tmp_path)
    assert f"{tmp_path / 'questions.yaml'}: questions.confirm.yes_rivals.negated.1" in str(info.value)


# ------------------------------------------------------------ edge groups

def test_an_edge_group_is_put_in_place_where_a_state_includes_it(raw):
    flow = flow_from_mapping(copy.deepcopy(raw), source="test.yaml")
    assert [e.to for e in flow.states["lookup_spelled_surname"].edges] == [
        "task_router", "callback_next", "confirm_identity", "ask_dob_again", "ask_been_before", "confirm_new_patient"]
    assert flow.states["verify_identity"].edges[:2] == flow.states["verify_without_first_name"].edges[:2]


@pytest.mark.parametrize(("change", "expected"), [
    (lambda d: d["states"]["verify_identity"]["edges"].insert(0, {"include": "nowhere"}),
     "states.verify_identity.edges[0].include: unknown edge group 'nowhere'"),
    (lambda d: d["states"]["verify_identity"]["edges"].__setitem__(0, {"include": "patient_lookup", "to": "goodbye"}),
     "states.verify_identity.edges[0]: an include names an edge group and nothing else"),
    (lambda d: d["edge_groups"]["patient_lookup"].append({"include": "patient_lookup_or_candidate"}),
     "edge group 'patient_lookup' includes itself"),
    (lambda d: d["edge_groups"].update(spare=[{"to": "goodbye"}]), "edge_groups.spare: no state includes it"),
    (lambda d: d["edge_groups"].update(spare=[]), "edge_groups.spare: a non-empty list of edges"),
    (lambda d: d["edge_groups"]["patient_lookup"][1].update(reason="felt_like_it"),
     "edge_groups.patient_lookup[1].reason: unknown callback reason 'felt_like_it'"),
    (lambda d: d.update(edge_groups=["patient_lookup"]), "edge_groups: a mapping of group name to a list of edges"),
])
def test_each_edge_group_rule(raw, change, expected):
    message = broken(raw, change)
    assert expected in message
    assert len(message.splitlines()) == len(set(message.splitlines()))   # a group's fault is named once


def test_a_group_of_repairs_anchored_in_one_question_may_be_an_item_of_anothers_repairs():
    from appliance.understanding.questions import questions_from_mapping

    group = [{"heard": "flash", "means": "slash"}, {"heard": "flesh", "means": "slash"}]
    questions = questions_from_mapping({
        "dob": {"expects": ["dob"], "repairs": [{"heard": "free", "means": "three"}, group]},
        "details": {"expects": ["confirmation"], "repairs": [group]},
    }, known_kinds=frozenset({"dob", "confirmation"}))
    assert [r.heard for r in questions["dob"].repairs] == ["free", "flash", "flesh"]
    assert [r.heard for r in questions["details"].repairs] == ["flash", "flesh"]
