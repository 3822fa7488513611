"""Call audio ports on pjsip's conference bridge: retired, never just dropped (see media.retire_port).

Dropping the last reference to a port let Python free it while pjsip's clock
thread could still call it: a SIGSEGV in libpython, seen after 9 SIP calls and
reproduced within about 2,000 port deletions. The race is too rare for a test
to catch in seconds; these check what retiring guarantees instead.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pjsua2")

CHURN = Path(__file__).resolve().parent / "port_churn.py"


def test_a_retired_port_is_off_the_bridge_and_ports_can_come_and_go_many_times():
    done = subprocess.run([sys.executable, str(CHURN), "400"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["heard_live"] > 5 and report["played_live"] > 5      # the clock fed it both ways while live
    assert report["heard_after"] == 0 and report["played_after"] == 0  # and never once it was retired
    assert report["rounds"] == 400


def test_an_ended_call_retires_its_port(monkeypatch):
    from types import SimpleNamespace

    from appliance.sip import phone_call

    retired = []
    monkeypatch.setattr(phone_call, "retire_port", retired.append)
    call = SimpleNamespace(port=object(), label="call-1")
    phone_call._call_class().delete_port(call)
    phone_call._call_class().delete_port(call)          # a second time: nothing left to retire
    assert len(retired) == 1 and call.port is None
