"""The LLM's work queues on the box scheduler's "llm" lane: one model call at a time for every call on the box, an
intent the engine waits for before a rewording the template reply can do without (shorter first among equals),
every wait recorded; a call whose budget runs out while it waits is dropped, and the caller still hears the rules'
answer or the template."""

from __future__ import annotations

import threading
import time

import pytest

from appliance.language import IntentClassifier, Rephraser
from appliance.language.time_budget import take_wait_ms
from appliance.voice.scheduler import Priority, box_scheduler

TEMPLATE = "You're booked in for Monday the 3rd at 9:30 am. Is there anything else?"


class _QueueModel:
    """Answers at once, noting in which order the lane ran its calls."""

    def __init__(self):
        self.ran: list[str] = []

    def chat(self, messages, *, max_tokens, grammar=None, deadline=None, answer_prefix="", stop=()):
        said = messages[-1]["content"]
        self.ran.append(said)
        if answer_prefix:
            return 'book", "confidence": "high"}'
        return "All booked for Monday the 3rd at 9:30 am. Anything else?"


def _hold_lane() -> threading.Event:
    """Other calls' LLM work holds the lane's one worker until the event is set."""
    release = threading.Event()
    scheduler = box_scheduler()
    before = scheduler.queued("llm")
    scheduler.submit("llm", release.wait, priority=Priority.TURN_ENDED, label="another call")
    while scheduler.queued("llm") > before:
        time.sleep(0.001)
    return release


def _queued(work) -> tuple[threading.Thread, dict]:
    """`work()` on a thread of its own (a call's engine thread), once it is queued on the lane."""
    out: dict = {}
    scheduler = box_scheduler()
    before = scheduler.queued("llm")

    def run():
        out["result"] = work()
        out["wait_ms"] = take_wait_ms()

    thread = threading.Thread(target=run)
    thread.start()
    while scheduler.queued("llm") == before:
        time.sleep(0.001)
    return thread, out


def test_an_intent_the_engine_waits_for_runs_before_rewordings_and_every_wait_is_recorded():
    model = _QueueModel()
    classifier = IntentClassifier(model, budget_ms=5000)
    rephraser = Rephraser(model, budget_ms=5000, max_tokens=48)
    release = _hold_lane()
    seen = len(box_scheduler().waits)
    rewording, rewording_out = _queued(lambda: rephraser.attempt(TEMPLATE, ()))
    long_intent, long_out = _queued(lambda: classifier("I was hoping to sort out a time to come in next week",
                                                        ("book", "cancel")))
    time.sleep(0.1)
    release.set()
    for thread in (rewording, long_intent):
        thread.join(5)
    assert [said.split('"')[1] if said.startswith("The caller") else "rewording" for said in model.ran] == \
        ["I was hoping to sort out a time to come in next week", "rewording"]
    assert long_out["result"].name == "book" and rewording_out["result"].used
    assert long_out["wait_ms"] >= 90 and rewording_out["result"].queue_ms >= 90
    waits = {w.label: w for w in list(box_scheduler().waits)[seen:]}
    assert waits["classify"].lane == "llm" and waits["classify"].priority is Priority.TURN_ENDED
    assert waits["rephrase"].priority is Priority.OPTIONAL
    assert waits["rephrase"].wait_ms > waits["classify"].wait_ms


def test_llm_work_still_queued_when_its_budget_runs_out_is_dropped_and_the_call_hears_the_fallback():
    model = _QueueModel()
    release = _hold_lane()
    try:
        started = time.monotonic()
        assert IntentClassifier(model, budget_ms=150)("could somebody ring me", ("callback",)) is None
        attempt = Rephraser(model, budget_ms=150, max_tokens=48).attempt(TEMPLATE, ())
        assert time.monotonic() - started < 1.0           # the budget, not the busy lane, decides how long
        assert (attempt.text, attempt.used, attempt.reason) == (TEMPLATE, False, "late")
    finally:
        release.set()
    time.sleep(0.1)
    assert model.ran == []                                 # neither late call ever ran on the model
    assert box_scheduler().queued("llm") == 0


@pytest.mark.parametrize("urgent", [True, False])
def test_a_failing_model_reaches_the_caller_and_the_lane_goes_on(urgent):
    from appliance.language import run_within

    with pytest.raises(ZeroDivisionError):
        run_within(500, lambda deadline: 1 / 0, urgent=urgent)
    assert run_within(500, lambda deadline: "next", urgent=urgent) == "next"
