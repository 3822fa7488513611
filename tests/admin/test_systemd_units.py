"""The systemd units: `systemd-analyze verify` accepts them, and the service is locked down."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from appliance.events.socket_file import bind_private_socket

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "systemd"
NAMES = ("appliance.service", "appliance-maintenance.service", "appliance-maintenance.timer",
         "appliance-monitor-web.service")
VENV = Path(sys.prefix)


def directives(name: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    section = ""
    for line in (UNITS / name).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        found.setdefault(f"{section}.{key}", []).append(value)
    return found


def render(folder: Path) -> list[Path]:
    """The units as install.sh writes them for a virtualenv that exists here."""
    written = []
    for name in NAMES:
        target = folder / name
        target.write_text((UNITS / name).read_text().replace("/opt/appliance/venv/", f"{VENV}/"))
        written.append(target)
    return written


def verify(paths: list[Path]) -> subprocess.CompletedProcess:
    return subprocess.run(["systemd-analyze", "verify", "--man=no", *map(str, paths)], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_accepts_every_unit(tmp_path):
    assert (VENV / "bin" / "appliance").exists()
    done = verify(render(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "" and done.stdout.strip() == ""   # not even a warning


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_verify_would_catch_a_mistake(tmp_path):
    """The check above has teeth: a misspelt key and a missing program are reported."""
    units = render(tmp_path)
    units[0].write_text(units[0].read_text().replace("WatchdogSec=", "WatchdogSecs="))
    units[1].write_text(units[1].read_text().replace(f"{VENV}/bin/appliance", "/nonexistent/appliance"))
    done = verify(units)
    assert "WatchdogSecs" in done.stderr and "/nonexistent/appliance" in done.stderr


def test_the_service_runs_appliance_run_as_its_own_user_under_the_watchdog():
    unit = directives("appliance.service")
    assert unit["Service.ExecStart"] == ["/opt/appliance/venv/bin/appliance run"]
    assert unit["Service.User"] == ["appliance"] and unit["Service.Group"] == ["appliance-staff"]
    assert unit["Service.Type"] == ["notify"]
    assert unit["Service.WatchdogSec"] == ["30"]
    assert unit["Service.Restart"] == ["on-failure"]
    assert unit["Service.Environment"][:2] == ["APPLIANCE_CONFIG=/etc/appliance/appliance.toml",
                                               "APPLIANCE_DATA=/var/lib/appliance"]
    assert unit["Service.StandardOutput"] == ["journal"] and unit["Service.StandardError"] == ["journal"]
    assert unit["Install.WantedBy"] == ["multi-user.target"]


HARDENING = {
    "NoNewPrivileges": "yes",
    "ProtectSystem": "strict",
    "ProtectHome": "yes",
    "PrivateTmp": "yes",
    "ReadWritePaths": "/var/lib/appliance",
    "CapabilityBoundingSet": "",
    "AmbientCapabilities": "",
    "RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6",
    "ProtectKernelTunables": "yes",
    "ProtectKernelModules": "yes",
    "ProtectKernelLogs": "yes",
    "ProtectControlGroups": "yes",
    "UMask": "0027",                 # what it writes: its own, readable by the staff group at most
    "StateDirectoryMode": "0750",
}


def test_the_service_is_hardened():
    unit = directives("appliance.service")
    for key, value in HARDENING.items():
        assert unit.get(f"Service.{key}") == [value], f"{key}={value} missing (found {unit.get(f'Service.{key}')})"


def test_maintenance_backs_up_then_prunes_daily_as_the_service_user():
    service = directives("appliance-maintenance.service")
    assert service["Service.Type"] == ["oneshot"]
    assert service["Service.User"] == ["appliance"]
    assert service["Service.ExecStart"] == ["/opt/appliance/venv/bin/appliance db backup",
                                            "/opt/appliance/venv/bin/appliance db prune"]
    for key in ("NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp", "ReadWritePaths",
                "CapabilityBoundingSet", "UMask"):
        assert service[f"Service.{key}"] == [HARDENING[key]]
    timer = directives("appliance-maintenance.timer")
    assert timer["Timer.OnCalendar"] == ["*-*-* 03:15:00"]
    assert timer["Timer.Persistent"] == ["true"]
    assert timer["Timer.Unit"] == ["appliance-maintenance.service"]
    assert timer["Install.WantedBy"] == ["timers.target"]


def test_the_browser_monitor_serves_as_the_service_user_and_is_hardened():
    unit = directives("appliance-monitor-web.service")
    assert unit["Service.ExecStart"] == ["/opt/appliance/venv/bin/appliance monitor --serve"]
    # the service's own user: the only one (with root) whose processes may name a signed-in staff account
    assert unit["Service.User"] == ["appliance"] and unit["Service.Group"] == ["appliance-staff"]
    assert unit["Service.Restart"] == ["on-failure"]
    assert unit["Install.WantedBy"] == ["multi-user.target"]
    for key, value in HARDENING.items():
        if key != "StateDirectoryMode":      # appliance.service makes the data folder
            assert unit.get(f"Service.{key}") == [value], f"{key}={value} missing"


def test_the_monitor_socket_stays_0660_under_the_services_umask(tmp_path):
    old = os.umask(0o077)
    try:
        bound = bind_private_socket(tmp_path / "monitor.sock")
    finally:
        os.umask(old)
    try:
        assert stat.S_IMODE(os.stat(bound.path).st_mode) == 0o660
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.connect(str(bound.path))
        probe.close()
    finally:
        bound.remove()
