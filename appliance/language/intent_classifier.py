"""The LLM's first job: label an utterance no rule understood.

Only when the rules found nothing does the engine ask; it passes the intents
the current state allows, and the model must answer with one of them or
"unknown", as JSON fixed by a GBNF grammar built for that call:

    {"intent": "reschedule", "confidence": "medium"}

"unknown", a late answer (past `[llm] classify_budget_ms`), or any model error
gives None: the engine then treats the turn as not understood. The caller's
words are never logged.

    engine = Engine(..., classifier=IntentClassifier(LanguageModel.shared(settings), settings=settings))
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from functools import lru_cache
from typing import Protocol

from ..settings import Settings, load_settings
from ..understanding import Signal
from .time_budget import LateReply, run_within

log = logging.getLogger("appliance.language")

UNKNOWN = "unknown"
CONFIDENCES = ("high", "medium", "low")
MAX_TEXT_CHARS = 400
_LABEL = re.compile(r"^[a-z][a-z_]*$")

# What each intent means, in words a small model follows.
MEANINGS = {
    "book": "wants to make a new appointment",
    "reschedule": "wants to move an appointment they already have to another time",
    "cancel": "wants to cancel an appointment",
    "cancel_all": "wants to cancel all of their appointments",
    "query": "asks when or where their existing appointment is",
    "price": "asks how much something costs",
    "hours": "asks when the clinic is open",
    "address": "asks where the clinic is or how to get there",
    "service_info": "asks what a treatment or service involves",
    "human": "wants to speak to a real person or the front desk",
    "callback": "wants someone to call them back later",
    "emergency": "describes an urgent medical emergency (chest pain, cannot breathe, heavy bleeding)",
    "crisis": "talks about wanting to harm themselves or suicide",
    "medical_advice": "asks for medical advice about symptoms, medicine or treatment",
    "non_service": "is selling something, a supplier, or calling about something unrelated to appointments",
    "yes": "says yes, agrees or confirms",
    "no": "says no, declines or disagrees",
    "correction": "corrects something they said before",
    "goodbye": "wants to end the call",
    "withdraw": "says they do not want to book or change anything after all, they were only asking",
}


class ChatModel(Protocol):
    """What the classifier and the rephraser need from a model (runtime.LanguageModel, or a fake)."""

    def chat(self, messages: list[dict[str, str]], *, max_tokens: int, grammar: str | None = None,
             deadline: float | None = None, answer_prefix: str = "", stop: tuple[str, ...] = ()) -> str: ...


ANSWER_PREFIX = '{"intent": "'


@lru_cache(maxsize=64)
def intent_grammar(allowed: tuple[str, ...]) -> str:
    """GBNF for what follows ANSWER_PREFIX: `<one of allowed or unknown>", "confidence": "<high|medium|low>"}`.

    The answer starts with ANSWER_PREFIX in the prompt, so the model generates
    only the label, the confidence and the punctuation between them.
    """
    labels = tuple(dict.fromkeys(a for a in allowed if a != UNKNOWN)) + (UNKNOWN,)
    for label in labels:
        if not _LABEL.match(label):
            raise ValueError(f"intent {label!r} cannot go into the grammar")
    alternatives = " | ".join(f'"{label}"' for label in labels)
    confidences = " | ".join(f'"{c}"' for c in CONFIDENCES)
    return (f'root ::= intent "\\", \\"confidence\\": \\"" confidence "\\"}}"\n'
            f"intent ::= {alternatives}\n"
            f"confidence ::= {confidences}\n")


def _system_prompt() -> str:
    lines = [f"- {label}: the caller {meaning}" for label, meaning in MEANINGS.items()]
    lines.append(f"- {UNKNOWN}: none of these fit")
    return ("You sort what a caller said to a medical clinic's phone receptionist into one intent.\n"
            "Intents:\n" + "\n".join(lines) + "\n"
            'Answer with JSON: {"intent": "<intent>", "confidence": "high" | "medium" | "low"}.')


def _said(text: str) -> str:
    return f'The caller said: "{text}"'


# The same for every call (the allowed intents are enforced by the grammar, not the
# prompt), so llama.cpp keeps it evaluated between calls: its prompt cache reuses the
# longest common prefix, and only the caller's words are new each time. Kept short:
# on the 2-core CPU each prompt token costs about 10 ms the first time. (Worked
# examples in the prompt were tried: they doubled its length and did not make the
# 135M model any more accurate.)
PREAMBLE: tuple[dict[str, str], ...] = ({"role": "system", "content": _system_prompt()},)


def classification_messages(text: str) -> list[dict[str, str]]:
    return [*PREAMBLE, {"role": "user", "content": _said(text)}]


class IntentClassifier:
    """Engine(classifier=...): `classifier(text, allowed) -> Signal | None`."""

    MAX_TOKENS = 24

    def __init__(self, model: ChatModel, *, settings: Settings | None = None, budget_ms: float | None = None):
        self.model = model
        self.budget_ms = budget_ms if budget_ms is not None else (settings or load_settings()).llm.classify_budget_ms

    def warm_up(self, *, background: bool = False) -> threading.Thread | None:
        """Evaluate the fixed part of the prompt now rather than on the first call.

        It costs a few seconds of one core on the 2-core box (about 360 prompt
        tokens); until it is done, the first classification would be late.
        With `background` it runs on a daemon thread, which is returned.
        """
        if background:
            thread = threading.Thread(target=self.warm_up, name="llm-warm-up", daemon=True)
            thread.start()
            return thread
        started = time.perf_counter()
        try:
            self.model.chat(classification_messages("hello"), max_tokens=self.MAX_TOKENS,
                            grammar=intent_grammar(("goodbye",)), answer_prefix=ANSWER_PREFIX)
        except Exception as exc:
            log.warning("intent classifier warm-up failed: %s", type(exc).__name__)
        log.info("intent classifier warmed up in %.0f ms", (time.perf_counter() - started) * 1000)
        return None

    def __call__(self, text: str, allowed: tuple[str, ...]) -> Signal | None:
        return self.classify(text, allowed)

    def classify(self, text: str, allowed: tuple[str, ...]) -> Signal | None:
        """One of `allowed` with the model's confidence, or None (unknown, late, or failed). Never raises."""
        try:
            return self._classify(text, allowed)
        except LateReply:
            log.info("intent classifier: no answer within %g ms", self.budget_ms)
            return None
        except Exception as exc:  # a failing model never stops the call; the words are not logged
            log.warning("intent classifier failed: %s", type(exc).__name__)
            return None

    def _classify(self, text: str, allowed: tuple[str, ...]) -> Signal | None:
        labels = tuple(dict.fromkeys(a for a in allowed if a != UNKNOWN and _LABEL.match(a)))
        words = " ".join(str(text).split())[:MAX_TEXT_CHARS].replace('"', "'")
        if not labels or not words:
            return None
        grammar = intent_grammar(labels)
        messages = classification_messages(words)
        reply = run_within(self.budget_ms, lambda deadline: self.model.chat(
            messages, max_tokens=self.MAX_TOKENS, grammar=grammar, deadline=deadline, answer_prefix=ANSWER_PREFIX),
            urgent=True, size=self.MAX_TOKENS, label="classify")   # the engine waits for the intent
        answer = json.loads(ANSWER_PREFIX + reply)
        intent, confidence = answer.get("intent"), answer.get("confidence")
        if intent not in labels or confidence not in CONFIDENCES:
            return None
        return Signal(intent, confidence, "llm")
