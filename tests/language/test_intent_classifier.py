"""IntentClassifier with stand-in models: only allowed labels, None for unknown, late or failing answers."""

import inspect
import logging
import time

import pytest

from appliance.engine.engine import FallbackClassifier
from appliance.language import IntentClassifier, intent_grammar
from appliance.language.intent_classifier import ANSWER_PREFIX, PREAMBLE
from appliance.understanding import Signal

from .fake_models import FakeModel

ALLOWED = ("book", "price", "goodbye")


def answer(intent, confidence="medium"):
    """What the model generates after the answer prefix."""
    return f'{intent}", "confidence": "{confidence}"}}'


def classifier(model, budget_ms=500):
    return IntentClassifier(model, budget_ms=budget_ms)


def test_an_allowed_label_becomes_a_signal():
    model = FakeModel(answer("price", "high"))
    assert classifier(model).classify("how much is it", ALLOWED) == Signal("price", "high", "llm")
    (call,) = model.calls
    assert call["answer_prefix"] == ANSWER_PREFIX
    assert call["grammar"] == intent_grammar(ALLOWED)
    assert call["deadline"] is not None


def test_it_is_the_engines_classifier():
    model = FakeModel(answer("book"))
    engine_classifier: FallbackClassifier = classifier(model)
    assert engine_classifier("I want to come in", ALLOWED) == Signal("book", "medium", "llm")
    assert list(inspect.signature(IntentClassifier.__call__).parameters) == ["self", "text", "allowed"]


@pytest.mark.parametrize("reply", [
    answer("unknown", "low"),          # the model found nothing
    answer("cancel"),                  # not allowed here (a model ignoring its grammar)
    answer("price", "certain"),        # not a confidence
    "price, high",                     # not JSON
    "",
])
def test_anything_but_an_allowed_label_is_none(reply):
    assert classifier(FakeModel(reply)).classify("hmm", ALLOWED) is None


def test_nothing_to_ask_means_no_call():
    model = FakeModel(answer("book"))
    assert classifier(model).classify("   ", ALLOWED) is None
    assert classifier(model).classify("book me in", ()) is None
    assert classifier(model).classify("book me in", ("unknown",)) is None
    assert model.calls == []


def test_a_failing_model_gives_none_and_logs_no_words(caplog):
    caplog.set_level(logging.INFO, logger="appliance.language")
    model = FakeModel(error=RuntimeError("llama_decode returned -1 for: my name is Maria Lopez"))
    assert classifier(model).classify("my name is Maria Lopez", ALLOWED) is None
    assert "RuntimeError" in caplog.text
    assert "Maria" not in caplog.text and "Lopez" not in caplog.text


def test_a_late_answer_is_ignored_within_the_budget():
    model = FakeModel(answer("book"), delay=0.6)
    clf = classifier(model, budget_ms=100)
    started = time.perf_counter()
    assert clf.classify("I want to book", ALLOWED) is None
    assert 0.09 <= time.perf_counter() - started < 0.4


def test_the_grammar_allows_exactly_the_labels_and_unknown():
    grammar = intent_grammar(("yes", "no"))
    assert 'intent ::= "yes" | "no" | "unknown"' in grammar
    assert 'confidence ::= "high" | "medium" | "low"' in grammar
    assert grammar.startswith('root ::= intent "\\", \\"confidence\\": \\"" confidence "\\"}"')
    with pytest.raises(ValueError):
        intent_grammar(('yes" | "cancel',))


def test_the_callers_words_are_only_in_the_last_turn():
    model = FakeModel(answer("book"))
    clf = classifier(model)
    clf.classify('book "me" in', ALLOWED)
    clf.classify("something else", ("yes", "no"))
    first, second = (call["messages"] for call in model.calls)
    assert first[:-1] == second[:-1] == list(PREAMBLE)  # the same prefix every time: llama.cpp reuses it
    assert first[-1] == {"role": "user", "content": "The caller said: \"book 'me' in\""}


def test_the_engine_acts_on_its_label(flow, store, clock, recorder):
    from appliance.engine.clock import CountingIds
    from appliance.engine.engine import Engine
    from appliance.engine.types import CallInfo

    model = FakeModel(answer("book", "medium"))
    engine = Engine(flow=flow, store=store, clock=clock, new_id=CountingIds(), recorder=recorder,
                    classifier=IntentClassifier(model, budget_ms=500))
    engine.start(CallInfo(caller_id="+61400000001"))
    result = engine.turn("mmm the thing for my shoulder")
    assert (result.trigger.route, result.trigger.confidence) == ("llm", "medium")
    assert result.waiting_for == "full_name"
    assert "book" in model.calls[0]["grammar"] and '"yes"' not in model.calls[0]["grammar"]


def test_warm_up_evaluates_the_fixed_prompt_once_in_the_background():
    model = FakeModel(answer("goodbye"))
    thread = classifier(model).warm_up(background=True)
    thread.join(timeout=2)
    (call,) = model.calls
    assert call["messages"][:-1] == list(PREAMBLE) and call["deadline"] is None
