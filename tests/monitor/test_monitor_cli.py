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


def test_a_bad_group_entry_stops_the_monitor_naming_the_key(tmp_path):
    config = tmp_path / "appliance.toml"
    config.write_text('[monitor]\nservices = [{name = "north", address = "10.0.0.21:7443"}]\n')
    run = appliance("monitor", env={"APPLIANCE_CONFIG": str(config)})
    assert run.returncode == 2
    assert f"{config}: monitor.desk_certificate: must be set when a service is watched by address" in run.stderr


def test_the_browser_monitor_names_the_shared_store_without_its_address():
    from appliance.monitor_web.web_server import session_command

    command = session_command(db_path=None, db_given=False, socket_path=Path("/run/m.sock"), flow_file=None)
    assert "--shared-store" in command and "--db" not in command and "postgresql" not in command
