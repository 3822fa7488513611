"""Stand-ins for the language model: canned answers, slow answers, failing answers."""

from __future__ import annotations

import time


class FakeModel:
    """Answers every chat with `reply` after `delay` seconds (ignoring the deadline, as a stuck model would)."""

    def __init__(self, reply: str = "", *, delay: float = 0.0, error: Exception | None = None):
        self.reply = reply
        self.delay = delay
        self.error = error
        self.calls: list[dict] = []

    def chat(self, messages, *, max_tokens, grammar=None, deadline=None, answer_prefix="", stop=()):
        self.calls.append({"messages": messages, "max_tokens": max_tokens, "grammar": grammar,
                           "deadline": deadline, "answer_prefix": answer_prefix, "stop": stop})
        if self.delay:
            time.sleep(self.delay)
        if self.error is not None:
            raise self.error
        return self.reply
