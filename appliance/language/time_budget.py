"""Running a model call within a time budget: a late answer is no answer.

The call runs on a small pool of worker threads and the caller waits at most
the budget. The work is handed the deadline too (a `time.monotonic()` value),
so the real model stops generating at that moment instead of holding the
shared model for nothing; a model that ignores it is simply not waited for.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Callable, TypeVar

T = TypeVar("T")

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="llm-call")


class LateReply(TimeoutError):
    """The model did not answer within its budget."""


def run_within(budget_ms: float, work: Callable[[float], T]) -> T:
    """`work(deadline)` on a worker thread; its result if it arrives in time, else LateReply.

    Exceptions raised by `work` reach the caller unchanged.
    """
    deadline = time.monotonic() + budget_ms / 1000
    future = _POOL.submit(work, deadline)
    try:
        result = future.result(timeout=max(0.0, deadline - time.monotonic()))
    except FutureTimeout:
        future.cancel()  # when still queued behind other calls, it never starts
        raise LateReply(f"no answer within {budget_ms:g} ms") from None
    if time.monotonic() > deadline:
        raise LateReply(f"the answer came after {budget_ms:g} ms")
    return result
