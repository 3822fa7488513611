"""One caller more than `max_calls`: the busy message and a callback request on a single box, or 486 for every
one with `when_busy = "reject"` (boxes behind a proxy, which then tries the next box). The service's choice is
tested with a stand-in call; the busy message over real SIP is in test_busy_and_staff.py."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from appliance.settings import Settings
from appliance.sip.service import PhoneService


class StandInCall:
    def __init__(self):
        self.codes: list[int] = []
        self.handle = object()

    def hang_up(self, code: int) -> None:
        self.codes.append(code)


def busy_service(when_busy: str) -> PhoneService:
    service = PhoneService.__new__(PhoneService)     # only what _busy reads
    service.settings = Settings.model_validate({"sip": {"when_busy": when_busy}})
    service.metrics = SimpleNamespace(busy_rejection=lambda: None)
    service.runtime = SimpleNamespace(speech_cache=SimpleNamespace(get=lambda line, rate: b"\0\0" * 800))
    service.rate = 8000
    service._database = "clinic.db"
    service.loop = SimpleNamespace(call_soon_threadsafe=lambda fn: service.answered.append(fn))
    service.answered = []
    return service


def test_behind_a_proxy_every_caller_one_too_many_gets_486():
    service, call = busy_service("reject"), StandInCall()
    service._busy(call, "call-x", "+61400000555")
    assert call.codes == [486] and service.answered == []


def test_a_single_box_answers_a_caller_it_can_call_back_with_the_busy_message():
    service, call = busy_service("message"), StandInCall()
    service._busy(call, "call-x", "+61400000555")
    assert call.codes == [] and len(service.answered) == 1
    service._busy(call, "call-y", "")                 # a withheld number: 486
    assert call.codes == [486]


def test_when_busy_takes_only_its_two_values():
    with pytest.raises(ValueError):
        Settings.model_validate({"sip": {"when_busy": "queue"}})
