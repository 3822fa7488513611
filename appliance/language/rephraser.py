"""The LLM's second job (off by default on CPU): make a template reply sound natural.

The model's rewording is spoken only if the fact fence accepts it (every time,
date, price, number and name of the reply kept, nothing of those kinds added,
short) and it arrived within `[llm] rephrase_budget_ms`; otherwise the
template reply is spoken, unchanged. The LLM never changes what is said.

    rephraser = Rephraser(LanguageModel.shared(settings), settings=settings)
    spoken = rephraser.rephrase(result.reply, keep=("Dr Jane Roe", "physiotherapy", "Jane"))
"""

from __future__ import annotations

import logging
import math
import re
import time
from dataclasses import dataclass
from typing import Iterable

from ..settings import Settings, load_settings
from .fact_fence import EXTRA_WORDS, MAX_GROWTH, check_rewording
from .intent_classifier import ChatModel
from .time_budget import LateReply, run_within, take_wait_ms

log = logging.getLogger("appliance.language")

SYSTEM = ("You reword a medical clinic receptionist's reply so it sounds warm and natural on the phone. "
          "Keep every name, day, date, time, price and number exactly as written. Add no new information. "
          "If the reply asks a question, still ask it. Keep it short. Answer with the reworded reply only.")
EXAMPLE = ("Just to confirm: massage with Dr Roe on Monday the 3rd at 9:30 am. Shall I book that?",
           "So that's a massage with Dr Roe on Monday the 3rd at 9:30 am. Would you like me to book it?")
_LABELS = re.compile(r"^(reworded( reply)?|rephrased( reply)?|reply|answer|receptionist)\s*:\s*", re.I)


@dataclass(frozen=True)
class Rephrasing:
    text: str       # what to say: the rewording when used, else the template reply
    used: bool      # True when the model's rewording is spoken
    reason: str     # "ok", the fence's reason ("dropped a time"), "late" or "failed"
    ms: float
    queue_ms: float = 0.0   # of `ms`, the wait for the LLM's worker on the box's scheduler


class Rephraser:
    def __init__(self, model: ChatModel, *, settings: Settings | None = None, budget_ms: float | None = None,
                 max_tokens: int | None = None):
        if budget_ms is None or max_tokens is None:
            settings = settings or load_settings()
        self.model = model
        self.budget_ms = budget_ms if budget_ms is not None else settings.llm.rephrase_budget_ms
        self.max_tokens = max_tokens if max_tokens is not None else settings.llm.max_tokens

    def rephrase(self, template_reply: str, keep: Iterable[str] = ()) -> str:
        """The accepted rewording, or `template_reply` unchanged. Never raises.

        `keep`: names the fence must treat as facts even in lower case (the
        clinic's practitioners, services and locations, the caller's name).
        """
        return self.attempt(template_reply, keep).text

    def attempt(self, template_reply: str, keep: Iterable[str] = ()) -> Rephrasing:
        started = time.perf_counter()
        take_wait_ms()   # this thread's earlier waits are not this rewording's

        def done(text: str, used: bool, reason: str) -> Rephrasing:
            return Rephrasing(text, used, reason, (time.perf_counter() - started) * 1000, take_wait_ms())

        if not template_reply.strip():
            return done(template_reply, False, "empty template")
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": EXAMPLE[0]},
                    {"role": "assistant", "content": EXAMPLE[1]},
                    {"role": "user", "content": template_reply}]
        max_tokens = min(self.max_tokens, token_allowance(template_reply))
        try:
            reply = run_within(self.budget_ms, lambda deadline: self.model.chat(
                messages, max_tokens=max_tokens, deadline=deadline, stop=("\n",)),
                urgent=False, size=max_tokens, label="rephrase")   # the template reply can be said as it is
        except LateReply:
            log.info("rephraser: no rewording within %g ms; the template is spoken", self.budget_ms)
            return done(template_reply, False, "late")
        except Exception as exc:  # the words are not logged
            log.warning("rephraser failed: %s; the template is spoken", type(exc).__name__)
            return done(template_reply, False, "failed")
        rewording = tidy(reply)
        verdict = check_rewording(template_reply, rewording, tuple(keep))
        if not verdict.accepted:
            log.info("rephraser: rewording rejected (%s); the template is spoken", verdict.reason)
            return done(template_reply, False, verdict.reason)
        return done(rewording, True, "ok")


def token_allowance(template_reply: str) -> int:
    """Enough tokens for the longest rewording the fence accepts, and no more (a longer one is wasted time)."""
    words = len(template_reply.split())
    return math.ceil((words * MAX_GROWTH + EXTRA_WORDS) * 1.5) + 4


def tidy(reply: str | None) -> str:
    """The model's answer without wrapping quotes or a leading label."""
    text = (reply or "").strip()
    text = _LABELS.sub("", text).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    return text
