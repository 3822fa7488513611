"""In a real terminal: `appliance monitor` shows a warm transfer of the SIP demo call, brief and all.

What a person would do (docs/monitor.md): start the monitor, then
`appliance demo --sip --scenario config/demo/warm-transfer.yaml` beside it, open the live call, and watch
the receptionist brief the front desk and put the caller through; afterwards the call is in History as
`transferred`. The caller, the phone service and the front desk's phone are real SIP parties on loopback
(the demo starts them), so this needs pjsua2, Pipecat and the voice models.
"""

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from .test_demo_in_tmux import APPLIANCE, ROOT, Tmux, monitor_beside_a_shell

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None or not APPLIANCE.exists(),
                                reason="needs tmux and the project's .venv")

SCENARIO = ROOT / "config" / "demo" / "warm-transfer.yaml"


def need_the_sip_demo() -> None:
    """Skip, saying what is missing, where the SIP demo's stack is not installed."""
    for module in ("pjsua2", "pipecat", "piper"):
        pytest.importorskip(module, reason=f"the SIP demo needs {module} (installer/dev-setup.sh installs it)")


def wait_for_words(tmux: Tmux, pane: str, *texts: str, timeout: float) -> str:
    """The pane's text with its lines run together (a long transcript line wraps), once it has all of `texts`."""
    deadline = time.monotonic() + timeout
    words = ""
    while time.monotonic() < deadline:
        words = " ".join(tmux.screen(pane).split())
        if all(text in words for text in texts):
            return words
        time.sleep(0.3)
    raise AssertionError(f"pane {pane} never showed {texts!r}; it shows:\n{tmux.screen(pane)}")


def test_the_monitor_shows_a_warm_transfers_brief_and_the_connected_call(tmp_path):
    need_the_sip_demo()
    data = Path(tempfile.mkdtemp(prefix="mon-", dir="/tmp"))     # short: the socket lives here
    tmux = Tmux(f"appliance-test-{os.getpid()}")
    env = f"APPLIANCE_DATA={data}"
    out = data / "demo.out"
    try:
        monitor, demo = monitor_beside_a_shell(tmux, env, height=60)
        tmux("respawn-pane", "-k", "-t", demo, "-e", env,
             f"cd {ROOT} && {APPLIANCE} demo --sip --scenario {SCENARIO} > {out} 2>&1; sleep 60")

        def demo_output() -> str:
            return out.read_text() if out.exists() else "(no output)"

        try:
            tmux.wait_for(monitor, "service running", "1 call in progress", timeout=120)   # models load first
            tmux("send-keys", "-t", monitor, "Enter")
            tmux.wait_for(monitor, "Live call: ", "caller: ", timeout=30)
            # the receptionist puts the caller on hold, rings the desk and briefs it; once joined the record has
            # the desk leg: who answered, that the two are connected, and what the desk was told
            during = wait_for_words(tmux, monitor, "DeskLeg", "connected with the caller",
                                    "brief to the desk: Hello, this is the automated receptionist", timeout=150)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\ndemo output:\n{demo_output()[-3000:]}") from None
        assert "Sarah Johnson" in during
        tmux("send-keys", "-t", monitor, "Escape")
        tmux.wait_for(monitor, "SERVICE NOT RUNNING", timeout=60)    # the caller hung up; the demo has finished
        tmux("send-keys", "-t", monitor, "4")
        history = tmux.wait_for(monitor, "1 call, newest first", "transferred")
        assert "Sarah Johnson" in history
        printed = demo_output()
        assert "the front desk's phone rings" in printed and "connected: the front desk is joined" in printed
        assert "PASS demo call" in printed, printed[-3000:]
        tmux("send-keys", "-t", monitor, "q")
    finally:
        subprocess.run(["tmux", "-L", tmux.name, "kill-server"], capture_output=True)
        shutil.rmtree(data, ignore_errors=True)
