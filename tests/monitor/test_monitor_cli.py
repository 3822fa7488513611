"""The `appliance monitor` command and the text demo's publishing, from the command line."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def appliance(*args, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "appliance.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def test_monitor_help_names_its_options():
    run = appliance("monitor", "--help")
    assert run.returncode == 0
    for option in ("--db", "--socket", "--flow"):
        assert option in run.stdout


def test_the_text_demo_serves_the_monitor_socket_and_removes_it_after(tmp_path):
    data = Path(tempfile.mkdtemp(prefix="cli-", dir="/tmp"))
    try:
        run = appliance("demo", "--text", env={"APPLIANCE_DATA": str(data)})
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip().splitlines()[-1].startswith("PASS demo call")
        assert (data / "demo.db").exists() and not (data / "monitor.sock").exists()
        assert "monitor will not show" not in run.stderr
        assert (data / "calendars" / "lee.ics").exists()      # the practitioners' feeds, after the call's booking
    finally:
        shutil.rmtree(data)
