"""The real SmolLM2 135M file, loaded once for this module: labels under the grammar, fenced rewordings."""

import json

import pytest

from appliance.language import IntentClassifier, LanguageModel, Rephraser, check_rewording, intent_grammar
from appliance.language.intent_classifier import ANSWER_PREFIX, classification_messages
from appliance.settings import settings_from_mapping
from appliance.understanding import INTENTS

# generous budgets: these tests check what the model says, not how fast (a shared 2-core box)
SLOW_BOX = {"classify_budget_ms": 10_000, "rephrase_budget_ms": 10_000}


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    return settings_from_mapping({"models": {"data_dir": str(tmp_path_factory.mktemp("models"))}, "llm": SLOW_BOX})


@pytest.fixture(scope="module")
def model(settings):
    return LanguageModel.shared(settings)


@pytest.fixture(scope="module")
def classifier(model, settings):
    clf = IntentClassifier(model, settings=settings)
    clf.warm_up()
    return clf


def test_the_model_is_loaded_once_and_shared(model, settings):
    assert LanguageModel.shared(settings) is model
    assert model.name == "smollm2-135m"
    assert model.prompt_for([{"role": "user", "content": "hi"}])[0].endswith("<|im_start|>assistant\n")


def test_the_grammar_holds_the_model_to_the_allowed_labels(model):
    for allowed in (("hours",), ("yes", "no"), ("book", "reschedule", "cancel", "goodbye")):
        raw = model.chat(classification_messages("could you tell me about your parking"), max_tokens=24,
                         grammar=intent_grammar(allowed), answer_prefix=ANSWER_PREFIX)
        answer = json.loads(ANSWER_PREFIX + raw)
        assert set(answer) == {"intent", "confidence"}
        assert answer["intent"] in allowed + ("unknown",)
        assert answer["confidence"] in ("high", "medium", "low")


UTTERANCES = [
    ("I'd like to make an appointment for next week", ("book", "reschedule", "cancel", "price", "goodbye")),
    ("can you move my booking to friday", ("book", "reschedule", "cancel", "query")),
    ("how much is a massage", ("price", "hours", "address", "service_info")),
    ("where are you located", ("price", "hours", "address")),
    ("yep go ahead", ("yes", "no", "emergency", "crisis", "human", "goodbye")),
    ("that's everything, bye", ("yes", "no", "goodbye")),
    ("the weather is lovely today", ("book", "cancel")),
]


def test_the_classifier_returns_only_allowed_intents_or_none(classifier):
    seen = []
    for text, allowed in UTTERANCES:
        signal = classifier(text, allowed)
        assert signal is None or (signal.name in allowed and signal.name in INTENTS
                                  and signal.confidence in ("high", "medium", "low") and signal.evidence == "llm")
        seen.append(signal)
    assert any(signal is not None for signal in seen)


def test_a_tiny_budget_gives_none_and_leaves_the_model_usable(model):
    late = IntentClassifier(model, budget_ms=1)
    assert late("I want to book", ("book", "cancel")) is None
    raw = model.chat(classification_messages("hello"), max_tokens=24, grammar=intent_grammar(("goodbye",)),
                     answer_prefix=ANSWER_PREFIX)
    assert json.loads(ANSWER_PREFIX + raw)["intent"] in ("goodbye", "unknown")


TEMPLATE = "Just to confirm: physiotherapy with Dr Sarah Patel on Thursday the 26th at 12:15 pm. Shall I book that?"
KEEP = ("Dr Sarah Patel", "physiotherapy")


def test_rephrasing_runs_and_what_it_returns_is_fenced(model, settings):
    result = Rephraser(model, settings=settings).attempt(TEMPLATE, KEEP)
    assert result.text
    if result.used:
        assert check_rewording(TEMPLATE, result.text, KEEP).accepted
    else:
        assert result.text == TEMPLATE


class AddsARoomNumber:
    """The real model, with an invented fact tacked on (as the 135M model sometimes does)."""

    def __init__(self, model):
        self.model = model

    def chat(self, messages, **kwargs):
        return self.model.chat(messages, **kwargs).rstrip() + " Please go to room 12."


def test_a_real_rewording_with_an_invented_number_falls_back_to_the_template(model, settings):
    result = Rephraser(AddsARoomNumber(model), settings=settings).attempt(TEMPLATE, KEEP)
    assert (result.text, result.used) == (TEMPLATE, False)
    assert result.reason in ("added a number", "too long", "dropped a time", "dropped a name", "dropped a date",
                             "dropped a number", "added a name", "dropped the question", "added a question")


def test_a_late_rewording_is_not_used(model):
    result = Rephraser(model, budget_ms=1, max_tokens=48).attempt(TEMPLATE, KEEP)
    assert (result.text, result.reason) == (TEMPLATE, "late")
