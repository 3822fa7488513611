"""One scheduler per box for the models every call shares: which waiting job runs next.

Each model is a lane (`stt`, `tts`, `llm`) with as many worker threads as the model runs side by side (one
CTranslate2 worker for Whisper: a second made each decode 60% slower on 2 cores). A plain thread pool runs jobs
in the order they came, so a call's short "yes" at the end of its turn waited behind another call's long
decode taken speculatively at a pause. Here a lane runs the most urgent job first:

- by `Priority`: the decode of a turn that has ended (the caller is waiting for the answer) before a barge-in
  check, before a decode taken speculatively while the caller may still be speaking; on the LLM's lane, an
  intent the engine waits for before a rewording the template reply can do without;
- then the shortest job (seconds of audio, or characters to speak) first;
- then the oldest.

A speculative job that becomes the turn's own when the turn ends is moved up (`promote`) if it has not
started. Every job records how long it waited for a worker (`Job.wait_ms`), and the scheduler keeps the
recent waits per lane and priority (`waits`), for the latency table's queue-wait column.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import enum
import functools
import heapq
import itertools
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

# worker threads per model: one CTranslate2 worker for Whisper (a second made each decode 60% slower on 2 cores,
# appliance/voice/runtime.py), two for Piper (a reply's next phrase while a filler is spoken), one for the LLM
# (llama.cpp is not thread-safe: its calls queue here, by priority, instead of on its lock)
LANES = {"stt": 1, "tts": 2, "llm": 1}
RECENT_WAITS = 2000   # waits kept per scheduler, for the bench (a long day's calls need not keep them all)


class Priority(enum.IntEnum):
    TURN_ENDED = 0     # the caller has finished and waits for the answer
    BARGE_IN = 1       # is the caller speaking over the agent?
    SPECULATIVE = 2    # made ahead of need: a decode at a pause in case the caller says no more, a brief for the
                       # front desk while its phone rings
    OPTIONAL = 3       # the call goes on without it: the LLM's rewording of a template reply


@dataclass(eq=False)
class Job:
    lane: str
    priority: Priority
    size: float
    label: str
    future: concurrent.futures.Future = field(default_factory=concurrent.futures.Future)
    submitted: float = field(default_factory=time.time)   # wall-clock moments, as the call's timings are
    started: float | None = None
    finished_at: float | None = None
    _key: tuple | None = None

    @property
    def wait_ms(self) -> float | None:
        """How long it waited for a worker (None while it waits)."""
        return None if self.started is None else (self.started - self.submitted) * 1000

    def wrap(self) -> asyncio.Future:
        """The job's result as an awaitable of the running loop."""
        return asyncio.wrap_future(self.future)


@dataclass(frozen=True)
class WaitRecord:
    lane: str
    priority: Priority
    label: str
    wait_ms: float


class _Lane:
    def __init__(self, name: str, workers: int, scheduler: BoxScheduler):
        self.name = name
        self.heap: list[tuple] = []
        self.ready = threading.Condition()
        self.threads = [threading.Thread(target=scheduler._serve, args=(self,), name=f"{name}-{i}", daemon=True)
                        for i in range(workers)]
        for thread in self.threads:
            thread.start()


class BoxScheduler:
    """Priority queues for the shared models, one lane each (see the module)."""

    def __init__(self, lanes: dict[str, int]):
        self._order = itertools.count()
        self._lock = threading.Lock()
        self.waits: deque[WaitRecord] = deque(maxlen=RECENT_WAITS)
        self._lanes = {name: _Lane(name, workers, self) for name, workers in lanes.items()}

    def submit(self, lane: str, fn: Callable[[], Any], *, priority: Priority, size: float = 0.0,
               label: str = "") -> Job:
        """Queue `fn` on `lane`; the job's future holds its result or exception."""
        if lane not in self._lanes:
            raise KeyError(f"no scheduler lane {lane!r} (lanes: {', '.join(self._lanes)})")
        job = Job(lane=lane, priority=priority, size=size, label=label)
        job.fn = fn  # type: ignore[attr-defined]
        self._push(job, priority)
        return job

    def promote(self, job: Job, priority: Priority) -> None:
        """Run `job` as `priority` if that is more urgent and it has not started."""
        lane = self._lanes[job.lane]
        with lane.ready:
            if job.started is not None or job.future.done() or priority >= job.priority:
                return
        self._push(job, priority)

    def cancel(self, job: Job, *, only: Priority | None = None) -> bool:
        """Drop `job` if it has not started (a speculative decode that newer audio has made useless); with
        `only`, just while it still has that priority (not once it was promoted)."""
        with self._lanes[job.lane].ready:
            if job.started is not None or (only is not None and job.priority is not only):
                return False
            job._key = None
        return job.future.cancel()

    def queued(self, lane: str) -> int:
        """Jobs waiting on `lane` (entries of promoted jobs counted once)."""
        with self._lanes[lane].ready:
            return len({id(entry[-1]) for entry in self._lanes[lane].heap if entry[-1]._key is entry})

    def _push(self, job: Job, priority: Priority) -> None:
        lane = self._lanes[job.lane]
        with lane.ready:
            job.priority = priority
            entry = (int(priority), job.size, next(self._order), job)
            job._key = entry   # an older entry of a promoted job is skipped when popped
            heapq.heappush(lane.heap, entry)
            lane.ready.notify()

    def _serve(self, lane: _Lane) -> None:
        while True:
            with lane.ready:
                while not lane.heap:
                    lane.ready.wait()
                entry = heapq.heappop(lane.heap)
                job = entry[-1]
                if job._key is not entry or job.started is not None:
                    continue
                job.started = time.time()
            if not job.future.set_running_or_notify_cancel():
                continue
            self.waits.append(WaitRecord(lane.name, job.priority, job.label, job.wait_ms or 0.0))
            try:
                result = job.fn()
            except BaseException as exc:   # the caller of submit sees it on the future
                job.finished_at = time.time()
                job.future.set_exception(exc)
            else:
                job.finished_at = time.time()
                job.future.set_result(result)


@functools.cache
def box_scheduler() -> BoxScheduler:
    """The process's one scheduler: every call on the box queues its model work here."""
    return BoxScheduler(LANES)
