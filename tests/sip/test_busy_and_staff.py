"""`appliance run` with one line (`max_calls = 1`) against sipp on loopback: the busy line, and staff actions
from the monitor socket on a live call. One service process for the module (its own config: one line)."""

from __future__ import annotations

import getpass
import re
import subprocess
from datetime import datetime

import pytest

from appliance.events.messages import END_CALL, TRANSFER_NOW

from .conftest import need_the_sip_stack, rows, Service, sipp, staff, start_service, stop_service

BUSY_CALLER = "+61400000123"


@pytest.fixture(scope="module")
def one_line(tmp_path_factory):
    need_the_sip_stack()
    running = start_service(tmp_path_factory.mktemp("sip-one-line"), max_calls=1, metrics=True)
    yield running
    assert stop_service(running) == 0, running.log_text()[-3000:]
    log = running.log_text()
    assert "Assertion" not in log and "Traceback" not in log, log[-3000:]


def held_call(service: Service, tmp_path, scenario: str = "held") -> tuple[subprocess.Popen, dict]:
    """A sipp call held open until the service ends it, and its (open) call record once the greeting is recorded."""
    before = len(service.calls())
    held = sipp(service, scenario, tmp_path, timeout_s=60, background=True)
    try:
        return held, service.new_call(before, ended=False)
    except BaseException:
        held.kill()
        raise


def message_times(report: str) -> list[tuple[datetime, str, str]]:
    """(time, "sent"/"received", first line) of each SIP message in sipp's -trace_msg log."""
    found = []
    for chunk in report.split("----------------------------------------------- ")[1:]:
        match = re.match(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+)\s+\S+ message (sent|received)[^\n]*\n+([^\n]+)",
                         chunk)
        if match:
            found.append((datetime.fromisoformat(match[1]), match[2], match[3].strip()))
    return found


def test_a_caller_over_max_calls_hears_the_busy_line_and_gets_a_callback_request(one_line, tmp_path):
    busy = ("appliance_busy_rejections_total", ())
    turned_away = one_line.scrape()[busy]
    held, first = held_call(one_line, tmp_path)
    try:
        code, report = sipp(one_line, "busy", tmp_path, timeout_s=40, extra=("-key", "caller", BUSY_CALLER))
        assert code == 0, report                  # answered, then BYE from the service
        times = message_times(report)
        answered = next(t for t, way, line in times if way == "received" and line.startswith("SIP/2.0 200"))
        bye = next(t for t, way, line in times if way == "received" and line.startswith("BYE"))
        assert (bye - answered).total_seconds() >= 3.0, times    # the spoken message played before the BYE
        assert (BUSY_CALLER, "all lines busy", "open") in rows(
            one_line, "SELECT phone, reason, status FROM callback_requests")
        assert "all lines busy: callback request" in one_line.log_text()

        code, report = sipp(one_line, "busy_withheld", tmp_path)
        assert code == 0, report                  # no number to call back: 486 Busy Here
        assert "all lines busy, no number to call back: 486" in one_line.log_text()
        assert [c["id"] for c in one_line.calls()][-1] == first["id"]   # neither busy caller got a conversation
        assert one_line.scrape()[busy] == turned_away + 2            # the metrics count both busy callers
    finally:
        result = staff(one_line, END_CALL, first["id"])
        assert held.wait(30) == 0, result


def test_staff_end_call_from_the_monitor_sends_bye_and_is_recorded(one_line, tmp_path):
    held, call = held_call(one_line, tmp_path)
    try:
        result = staff(one_line, END_CALL, call["id"])
        assert result.ok, result.message
        assert result.message == f"call {call['id']}: call ended by {getpass.getuser()}"   # the OS user, not the claim
        assert held.wait(30) == 0                 # the service sent BYE and sipp answered it
    finally:
        if held.poll() is None:
            held.kill()
    record = one_line.new_call(len(one_line.calls()) - 1)
    assert record["id"] == call["id"] and record["ended_at"]
    assert (record["outcome"], record["ended_by"]) == ("ended_by_staff", getpass.getuser())
    actions = rows(one_line, "SELECT user, claimed_user, action, call_id, ok, via FROM staff_actions "
                             "WHERE call_id = ?", call["id"])
    assert actions == [(getpass.getuser(), "someone-else", "end_call", call["id"], 1, "service")]

    again = staff(one_line, END_CALL, call["id"])         # the call is over: refused, and recorded too
    assert not again.ok and "has no phone line here" in again.message


def test_staff_transfer_now_sends_refer_then_bye(one_line, tmp_path):
    held, call = held_call(one_line, tmp_path, "held_refer")
    try:
        result = staff(one_line, TRANSFER_NOW, call["id"])
        assert result.ok, result.message
        assert held.wait(40) == 0                 # REFER (202, NOTIFY 200), then BYE from the service
    finally:
        if held.poll() is None:
            held.kill()
    record = one_line.new_call(len(one_line.calls()) - 1)
    assert record["id"] == call["id"] and record["outcome"] == "transferred_by_staff", record
    assert record["ended_by"] == getpass.getuser()
    assert f"call {call['id']}: transfer done" in one_line.log_text()
    assert rows(one_line, "SELECT action, ok FROM staff_actions WHERE call_id = ?", call["id"]) == [("transfer_now", 1)]
