"""In a real terminal: `appliance monitor` in one tmux pane shows the demo call playing in another.

What a person would do (docs/monitor.md): start the monitor, then
`appliance demo --text --turn-delay 1` beside it, and watch the call appear,
move through its states, end, and land in History. This runs exactly that
under a private tmux server and reads the monitor's pane with capture-pane.
"""

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APPLIANCE = ROOT / ".venv" / "bin" / "appliance"

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None or not APPLIANCE.exists(),
                                reason="needs tmux and the project's .venv")


class Tmux:
    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.name, *args], check=True, capture_output=True, text=True).stdout

    def screen(self, pane: str) -> str:
        return self("capture-pane", "-p", "-t", pane)

    def wait_for(self, pane: str, *texts: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen(pane)
            if all(text in screen for text in texts):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"pane {pane} never showed {texts!r}; it shows:\n{screen}")


def monitor_beside_a_shell(tmux: Tmux, env: str, height: int = 50) -> tuple[str, str]:
    """`appliance monitor` in the top pane and an idle pane under it for the demo; once the monitor is up, the
    panes' names (monitor, demo)."""
    tmux("new-session", "-d", "-s", "demo", "-x", "100", "-y", str(height), "-e", env,
         f"cd {ROOT} && {APPLIANCE} monitor; sleep 60")
    tmux("split-window", "-v", "-t", "demo", "-e", env, f"cd {ROOT} && sleep 60")
    monitor, demo = "demo.0", "demo.1"
    tmux.wait_for(monitor, "SERVICE NOT RUNNING", "1 Live calls")
    return monitor, demo


def test_the_monitor_shows_the_demo_call_live(tmp_path):
    data = Path(tempfile.mkdtemp(prefix="mon-", dir="/tmp"))     # short: the socket lives here
    tmux = Tmux(f"appliance-test-{os.getpid()}")
    env = f"APPLIANCE_DATA={data}"
    try:
        monitor, demo = monitor_beside_a_shell(tmux, env)
        tmux("respawn-pane", "-k", "-t", demo, "-e", env,
             f"cd {ROOT} && {APPLIANCE} demo --text --turn-delay 1.5 > {data}/demo.out 2>&1; sleep 60")
        during = tmux.wait_for(monitor, "service running", "1 call in progress", "Sarah Johnson")
        assert "R: " in during or "C: " in during
        tmux("send-keys", "-t", monitor, "Enter")
        tmux.wait_for(monitor, "Live call: Sarah Johnson", "caller: ", "receptionist", "→ ")   # states inline
        tmux.wait_for(monitor, "call ended: booked", timeout=90)
        tmux("send-keys", "-t", monitor, "Escape")
        tmux.wait_for(monitor, "SERVICE NOT RUNNING", timeout=30)   # the demo has finished and closed its socket
        tmux("send-keys", "-t", monitor, "4")
        history = tmux.wait_for(monitor, "1 call, newest first", "booked")
        assert "Sarah Johnson" in history
        assert "PASS demo call" in (data / "demo.out").read_text()
        tmux("send-keys", "-t", monitor, "q")
    finally:
        subprocess.run(["tmux", "-L", tmux.name, "kill-server"], capture_output=True)
        shutil.rmtree(data, ignore_errors=True)
