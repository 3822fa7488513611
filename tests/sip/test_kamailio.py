"""The shipped Kamailio dispatcher config (config/kamailio/) in front of two boxes on loopback.

The boxes are sipp user agents (they answer OPTIONS with -aa, as pjsua does): the test is about the proxy's
routing, not the appliance, which bench/kamailio.py puts behind the same config with real calls.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .conftest import SCENARIOS, free_port
from .kamailio_proxy import CONFIG, KamailioProxy, program


@pytest.fixture(autouse=True)
def _need_kamailio_and_sipp():
    if program("kamailio") is None or program("kamcmd") is None:
        pytest.skip("Kamailio is not installed (apt-get install kamailio)")
    if program("sipp") is None:
        pytest.skip("sipp is not installed (apt-get install sip-tester)")


class Box:
    """A sipp user agent on a loopback port playing `scenario` (box: answers; busy_box: 486)."""

    def __init__(self, folder: Path, port: int, scenario: str):
        self.port, self.messages = port, folder / f"box-{port}-{scenario}.log"
        self.process = subprocess.Popen(
            ["sipp", "-sf", str(SCENARIOS / f"{scenario}.xml"), "-aa", "-i", "127.0.0.1", "-p", str(port),
             "-nostdin", "-trace_msg", "-message_file", str(self.messages)],
            cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

    def invites(self) -> int:
        if not self.messages.exists():
            return 0
        return sum(line.startswith("INVITE sip:") for line in self.messages.read_text(errors="replace").splitlines())

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


def place_calls(proxy: KamailioProxy, folder: Path, count: int, *, scenario: str = "proxied_call",
                local_ip: str = "127.0.0.1") -> subprocess.CompletedProcess:
    """`count` calls one after another through the proxy, each ACKed and hung up along the recorded route."""
    return subprocess.run(
        ["sipp", f"127.0.0.1:{proxy.port}", "-sf", str(SCENARIOS / f"{scenario}.xml"), "-i", local_ip,
         "-p", str(free_port()), "-m", str(count), "-l", "1", "-d", "100", "-s", "service", "-nostdin",
         "-timeout", "20s", "-timeout_error", "-trace_err"],
        cwd=folder, capture_output=True, text=True, timeout=40)


def test_the_shipped_config_passes_kamailios_check(tmp_path):
    done = subprocess.run([program("kamailio"), "-c", "-f", str(CONFIG)], capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0, done.stderr[-2000:]
    rendered = KamailioProxy(tmp_path, boxes=[free_port(), free_port()]).check()
    assert rendered.returncode == 0, rendered.stderr[-2000:]


def test_calls_spread_over_the_boxes_and_move_on_from_a_busy_or_dead_one(tmp_path):
    one, two = free_port(), free_port()
    boxes = [Box(tmp_path, one, "box"), Box(tmp_path, two, "box")]
    proxy = KamailioProxy(tmp_path / "proxy", boxes=[one, two])
    try:
        proxy.start()
        up = proxy.wait_for(lambda state: len(state) == 2 and all(f.startswith("A") for f in state.values()))
        assert set(up) == set(proxy.boxes)

        calls = place_calls(proxy, tmp_path, 4)
        assert calls.returncode == 0, calls.stdout[-2000:]
        assert [box.invites() for box in boxes] == [2, 2]           # round robin, every BYE through the proxy

        stranger = place_calls(proxy, tmp_path, 1, scenario="refused", local_ip="127.0.0.2")
        assert stranger.returncode == 0, stranger.stdout[-2000:]    # 403 from the proxy: not in CALLERS
        assert [box.invites() for box in boxes] == [2, 2]

        boxes[1].stop()
        boxes[1] = Box(tmp_path, two, "busy_box")                   # the second box now has every line in use
        calls = place_calls(proxy, tmp_path, 4)
        assert calls.returncode == 0, calls.stdout[-2000:]          # no caller heard busy
        assert boxes[0].invites() == 2 + 4
        assert boxes[1].invites() >= 1
        assert "486 from a box, trying sip:127.0.0.1:%d" % one in proxy.log_text()

        boxes[1].stop()                                             # the second box goes away altogether
        proxy.wait_for(lambda state: state[f"sip:127.0.0.1:{two}"].startswith("I"), timeout=8)
        calls = place_calls(proxy, tmp_path, 2)
        assert calls.returncode == 0, calls.stdout[-2000:]
        assert boxes[0].invites() == 2 + 4 + 2
    finally:
        proxy.stop()
        for box in boxes:
            box.stop()
