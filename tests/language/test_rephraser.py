"""Rephraser with stand-in models: the rewording only when fenced facts hold and it came in time."""

import logging
import time

from appliance.language import LateReply, Rephraser, run_within
from appliance.language.rephraser import tidy

from .fake_models import FakeModel

TEMPLATE = "You're booked in: massage with Dr Lee on Monday the 3rd at 9:30 am. Is there anything else?"
KEEP = ("Dr Lee", "massage")


def rephraser(model, budget_ms=500):
    return Rephraser(model, budget_ms=budget_ms, max_tokens=48)


def test_a_faithful_rewording_is_used():
    model = FakeModel("All set: a massage with Dr Lee on Monday the 3rd at 9:30 am. Anything else I can do?")
    result = rephraser(model).attempt(TEMPLATE, KEEP)
    assert (result.used, result.reason) == (True, "ok")
    assert result.text.startswith("All set")
    assert model.calls[0]["max_tokens"] == 48 and model.calls[0]["messages"][-1]["content"] == TEMPLATE
    assert model.calls[0]["stop"] == ("\n",)


def test_the_model_may_write_no_more_than_the_fence_would_accept():
    model = FakeModel("No worries.")
    assert rephraser(model).attempt("No problem.", ()).used
    assert model.calls[0]["max_tokens"] == 15  # 2 words: at most 7 back, about 1.5 tokens a word, and 4 spare


def test_a_rewording_that_drops_a_time_gives_the_template():
    model = FakeModel("All set: a massage with Dr Lee on Monday the 3rd. Anything else?")
    assert rephraser(model).rephrase(TEMPLATE, KEEP) == TEMPLATE
    assert rephraser(model).attempt(TEMPLATE, KEEP).reason == "dropped a time"


def test_a_rewording_that_adds_a_number_gives_the_template():
    model = FakeModel("All set: a massage with Dr Lee in room 2 on Monday the 3rd at 9:30 am. Anything else?")
    assert rephraser(model).attempt(TEMPLATE, KEEP).reason == "added a number"


def test_a_late_rewording_is_ignored():
    model = FakeModel("All set: a massage with Dr Lee on Monday the 3rd at 9:30 am. Anything else?", delay=0.5)
    started = time.perf_counter()
    result = rephraser(model, budget_ms=100).attempt(TEMPLATE, KEEP)
    assert time.perf_counter() - started < 0.35
    assert (result.text, result.used, result.reason) == (TEMPLATE, False, "late")


def test_a_failing_model_gives_the_template_and_logs_no_words(caplog):
    caplog.set_level(logging.INFO, logger="appliance.language")
    result = rephraser(FakeModel(error=MemoryError())).attempt(TEMPLATE, KEEP)
    assert (result.text, result.reason) == (TEMPLATE, "failed")
    assert "MemoryError" in caplog.text and "Dr Lee" not in caplog.text


def test_the_answer_is_tidied_before_the_fence():
    assert tidy('  "Sure, one moment."  ') == "Sure, one moment."
    assert tidy("Reworded reply: Sure, one moment.") == "Sure, one moment."
    assert tidy(None) == ""


def test_run_within_returns_in_time_raises_late_and_passes_errors_through():
    assert run_within(200, lambda deadline: deadline > time.monotonic()) is True
    started = time.perf_counter()
    try:
        run_within(50, lambda deadline: time.sleep(0.3))
        raise AssertionError("expected LateReply")
    except LateReply:
        assert time.perf_counter() - started < 0.2
    try:   # the box has one LLM worker: a model that ignores its deadline keeps it until it returns (0.3 s)
        run_within(1000, lambda deadline: 1 / 0)
        raise AssertionError("expected ZeroDivisionError")
    except ZeroDivisionError:
        pass
