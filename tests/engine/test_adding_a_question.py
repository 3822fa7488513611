"""Adding a question is one declaration plus its extractor (docs/questions-and-tools.md walks through this
example: an insurance member number asked before a booking)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml

from appliance.engine.clock import CountingIds
from appliance.engine.engine import Engine
from appliance.engine.flow import FlowError, flow_from_mapping
from appliance.engine.types import CallInfo
from appliance.understanding import extractors

FLOW = Path(__file__).resolve().parents[2] / "config" / "flows" / "clinic.yaml"

MEMBER_NUMBER_QUESTION = {
    "asks": "the caller's insurance member number",
    "expects": ["member_number"],
    "personal": True,
    "answered_by": ["member_number"],
    "stt_prompt": "A, B, C, 0 1 2 3 4 5 6 7 8 9",
    "patience_s": 1.0,
    "keypad": "number",
}
# letters then digits, said one by one or run together: "A B C 1 2 3 4 5", "ABC12345"
_MEMBER_NUMBER = re.compile(r"\b((?:[a-z] ?){1,3})((?:\d ?){5,10})\b")


def read_member_number(ct, context):
    m = _MEMBER_NUMBER.search(ct.text)
    return (m.group(1) + m.group(2)).replace(" ", "").upper() if m else None


@pytest.fixture
def member_number_extractor(monkeypatch):
    monkeypatch.setitem(extractors.EXTRACTORS, "member_number", read_member_number)


def flow_with_member_number():
    data = yaml.safe_load(FLOW.read_text())
    data = copy.deepcopy(data)
    data["questions"] = {**yaml.safe_load((FLOW.parent / "questions.yaml").read_text())["questions"],
                         "member_number": MEMBER_NUMBER_QUESTION}
    data["states"]["ask_member_number"] = {
        "kind": "decision", "waiting_for": "member_number", "say": "ask_member_number",
        "edges": [{"when": "answered", "to": "task_router"}],
    }
    data["states"]["greeting"]["edges"] = [{"when": "has_task", "to": "ask_member_number"}]
    data["templates"]["ask_member_number"] = "Sure. What's your insurance member number?"
    return flow_from_mapping(data, source="member-number.yaml")


def test_a_new_question_is_asked_answered_and_kept(member_number_extractor, store, clock):
    flow = flow_with_member_number()
    engine = Engine(flow=flow, store=store, clock=clock, new_id=CountingIds())
    engine.start(CallInfo(caller_id=""))
    asked = engine.turn("Hi, I'd like to book a follow-up")
    assert asked.waiting_for == "member_number"
    assert asked.question.stt_prompt.startswith("A, B, C") and asked.question.keypad == "number"
    answered = engine.turn("it's A B C 1 2 3 4 5")
    assert engine.ctx.answers == {"member_number": "ABC12345"}
    assert answered.waiting_for == "full_name"          # on to who the caller is


def test_a_question_expecting_an_unknown_kind_is_refused_until_its_extractor_exists():
    with pytest.raises(FlowError) as info:
        flow_with_member_number()
    assert "questions.member_number.expects: unknown kind 'member_number'" in str(info.value)
