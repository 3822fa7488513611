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
        d["states"]["confirm_booking"]["edges"][0]["when"] = "slot_picked"
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
    (lambda d: d["states"]["greeting"].update(waiting_for="horoscope"), "unknown waiting_for 'horoscope'"),
    (lambda d: d["states"]["greeting"].update(colour="blue"), "states.greeting.colour: unknown key"),
    (lambda d: d["templates"].update(greeting="Hello {caller_shoe_size}"), "unknown placeholder {caller_shoe_size}"),
    (lambda d: d["states"]["load_bookings"].update(run=[]), "action state 'load_bookings' has no tools"),
    (lambda d: d["states"]["greeting"].update(kind="thinking"), "must be one of decision, action, terminal"),
    (lambda d: d["states"]["offer_slots"].update(confirms="book"), "does not wait for `confirm`"),
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
