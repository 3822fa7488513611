"""Clocks the engine can be given: the wall clock in the clinic's timezone, or a frozen one."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo


class Clock(Protocol):
    def now(self) -> datetime:
        """Clinic-local time, naive (the clinic's own wall clock)."""


class ClinicClock:
    def __init__(self, timezone: str):
        self._zone = ZoneInfo(timezone)

    def now(self) -> datetime:
        return datetime.now(self._zone).replace(tzinfo=None, microsecond=0)


class FrozenClock:
    """A clock that stands still unless moved: scenarios and tests use it."""

    def __init__(self, moment: datetime):
        self._moment = moment

    def now(self) -> datetime:
        return self._moment

    def advance(self, seconds: float) -> None:
        self._moment += timedelta(seconds=seconds)


class CountingIds:
    """Deterministic ids ("call-1", "apt-2"...) for tests and scenarios."""

    def __init__(self) -> None:
        self._n = 0

    def __call__(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}-{self._n}"


def random_ids(prefix: str) -> str:
    import uuid

    return f"{prefix}-{uuid.uuid4().hex[:10]}"
