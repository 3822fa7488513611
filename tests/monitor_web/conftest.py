"""The browser monitor's fixtures: staff accounts, its settings, and a web app on a clock the test moves."""

from __future__ import annotations

import pytest

from appliance.monitor_web.staff_accounts import StaffAccounts
from appliance.settings import MonitorWebSettings

PASSWORD = "correct horse battery"


class Clock:
    """Monotonic seconds that move only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def accounts(tmp_path) -> StaffAccounts:
    accounts = StaffAccounts(tmp_path / "staff-accounts")
    accounts.add("alice", PASSWORD)
    accounts.add("bob", PASSWORD + " too")
    return accounts


@pytest.fixture
def web_settings() -> MonitorWebSettings:
    return MonitorWebSettings(session_idle_minutes=10, session_hours=1, sign_in_failures=3, sign_in_window_minutes=5)
