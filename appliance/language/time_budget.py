"""Running a model call within a time budget: a late answer is no answer.

The call is a job on the box's "llm" lane (`appliance.voice`'s scheduler: one
llama.cpp worker for every call on the box, the most urgent job first, each
job's queue wait recorded), and the caller waits at most the budget. The work
is handed the deadline too (a `time.monotonic()` value), so the real model
stops generating at that moment instead of holding the shared model for
nothing; a model that ignores it is simply not waited for. A job still queued
when its budget runs out is dropped, never run.

The queue waits of the calls made on a thread add up for that thread
(`take_wait_ms`), so the voice pipeline can add an engine turn's LLM wait to
the turn's queue wait.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Callable, TypeVar

T = TypeVar("T")

_WAITS = threading.local()


class LateReply(TimeoutError):
    """The model did not answer within its budget."""


def run_within(budget_ms: float, work: Callable[[float], T], *, urgent: bool = True, size: float = 0.0,
               label: str = "llm", scheduler=None) -> T:
    """`work(deadline)` on the box's LLM lane; its result if it arrives in time, else LateReply.

    `urgent`: the call cannot go on without the answer (an intent to classify), so it runs before optional work
    (a rewording the template reply can do without). `size`: what the work asks of the model (tokens), shorter
    first among equals. Exceptions raised by `work` reach the caller unchanged.
    """
    from ..voice import Priority, box_scheduler

    deadline = time.monotonic() + budget_ms / 1000
    lanes = scheduler or box_scheduler()
    job = lanes.submit("llm", lambda: work(deadline), priority=Priority.TURN_ENDED if urgent else Priority.OPTIONAL,
                       size=size, label=label)
    try:
        result = job.future.result(timeout=max(0.0, deadline - time.monotonic()))
    except FutureTimeout:
        lanes.cancel(job)  # when still queued behind other calls, it never starts
        raise LateReply(f"no answer within {budget_ms:g} ms") from None
    finally:
        waited = job.wait_ms if job.wait_ms is not None else (time.time() - job.submitted) * 1000
        _WAITS.ms = getattr(_WAITS, "ms", 0.0) + waited
    if time.monotonic() > deadline:
        raise LateReply(f"the answer came after {budget_ms:g} ms")
    return result


def take_wait_ms() -> float:
    """How long the model calls made on this thread since the last take waited for the LLM's worker (ms)."""
    waited = getattr(_WAITS, "ms", 0.0)
    _WAITS.ms = 0.0
    return waited
