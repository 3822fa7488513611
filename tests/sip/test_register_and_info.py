"""Register mode against sipp as the PBX's registrar (digest auth, 200 or 403), what `appliance doctor` makes
of it, the password file's mode check, and a keypad 0 sent by SIP INFO (application/dtmf-relay).

One registered `appliance run` for the module (it also takes the SIP INFO call); the wrong-password service
is a second process started alongside it, so the two model loads overlap.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import (APPLIANCE, SCENARIOS, free_port, need_the_sip_stack, Service,
                       sipp, sipp_report, start_service, stop_service)

PASSWORD = "clinic-201-secret"
USER = "201"
REALM = "clinic.test"           # the realm scenarios/registrar.xml challenges with; the password answers only it
REGISTRAR_WAIT_S = 200         # covers the service's start (models) and its first REGISTER


class Registrar:
    """sipp as a one-registration registrar (scenarios/registrar.xml) on its own port."""

    def __init__(self, work: Path, password: str = PASSWORD):
        self.work = work
        self.work.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.process = subprocess.Popen(
            ["sipp", "-sf", str(SCENARIOS / "registrar.xml"), "-i", "127.0.0.1", "-p", str(self.port),
             "-m", "1", "-key", "password", password, "-timeout", f"{REGISTRAR_WAIT_S}s", "-timeout_error",
             "-trace_err", "-trace_msg", "-trace_logs", "-nostdin"],
            cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    @property
    def uri(self) -> str:
        return f"sip:127.0.0.1:{self.port}"

    def wait(self, timeout: float) -> tuple[int, str]:
        try:
            output, _ = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            output, _ = self.process.communicate()
        report = sipp_report(self.work, output or "")
        for log in sorted(self.work.glob("*_logs.log")):
            report += f"\n--- {log.name}\n{log.read_text(errors='replace')[-3000:]}"
        return self.process.returncode, report

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def password_file(folder: Path, password: str, mode: int = 0o600) -> Path:
    path = folder / "sip-password"
    path.write_text(password + "\n")
    path.chmod(mode)
    return path


def register_config(tmp: Path, registrar: Registrar, password: str, mode: int = 0o600) -> dict:
    return {"mode": "register", "registrar": registrar.uri, "user": USER, "realm": REALM,
            "password_file": str(password_file(tmp, password, mode))}


def status(service: Service, timeout: float = 15.0, *, want: str | None = None) -> dict:
    path = service.data / "sip-status.json"
    until = time.monotonic() + timeout
    data: dict = {}
    while time.monotonic() < until:
        if path.is_file():
            data = json.loads(path.read_text())
            if want is None or data.get("registration") == want:
                return data
        time.sleep(0.2)
    raise AssertionError(f"{path}: {data or 'missing'}; log:\n{service.log_text()[-3000:]}")


def doctor_line(service: Service, check: str = "sip registration") -> str:
    """`appliance doctor --no-models` on the service's config: one check's line (the SIP registration's)."""
    config = service.data.parent / "appliance.toml"
    env = {k: v for k, v in os.environ.items() if k not in ("APPLIANCE_CONFIG", "APPLIANCE_DB")}
    done = subprocess.run([str(APPLIANCE), "doctor", "--config", str(config), "--no-models"], capture_output=True,
                          text=True, timeout=60, env=env)
    lines = [line for line in done.stdout.splitlines() if line[6:].startswith(check)]
    assert len(lines) == 1, done.stdout + done.stderr
    return lines[0]


def _stop(service: Service) -> None:
    assert stop_service(service) == 0, service.log_text()[-3000:]
    log = service.log_text()
    assert "Assertion" not in log and "Traceback" not in log, log[-3000:]


@dataclass
class Registered:
    service: Service
    registrar_port: int
    sipp_code: int            # the registrar's exit status
    sipp_report: str


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    """The registered service and the wrong-password one (started together: their model loads overlap)."""
    need_the_sip_stack()
    plans = {"good": PASSWORD, "bad": "not-the-password"}
    folders = {name: tmp_path_factory.mktemp(f"sip-register-{name}") for name in plans}
    registrars = {name: Registrar(folders[name] / "registrar") for name in plans}
    results: dict[str, object] = {}

    def start(name: str) -> None:
        try:
            results[name] = start_service(folders[name], metrics=True,
                                          **register_config(folders[name], registrars[name], plans[name]))
        except BaseException as exc:              # raised below, on the fixture's thread
            results[name] = exc

    threads = [threading.Thread(target=start, args=(name,)) for name in plans]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        for result in results.values():
            if isinstance(result, BaseException):
                raise result
        done = {}
        for name in plans:
            code, report = registrars[name].wait(30)
            done[name] = Registered(results[name], registrars[name].port, code, report)
        yield done["good"], done["bad"]
    finally:
        for name in plans:
            registrars[name].kill()
        for result in results.values():
            if isinstance(result, Service) and result.alive():
                _stop(result)


def test_register_mode_registers_with_digest_auth_and_doctor_says_ok(services):
    good, _ = services
    assert good.sipp_code == 0, good.sipp_report             # 401, REGISTER with a valid digest, 200
    assert f"REGISTER with Authorization for {USER}" in good.sipp_report, good.sipp_report
    assert "digest verified: 200 OK" in good.sipp_report, good.sipp_report
    data = status(good.service, want="registered")
    assert data["detail"] == "200 OK" and data["registrar"] == f"sip:127.0.0.1:{good.registrar_port}", data
    assert stat.S_IMODE((good.service.data / "sip-status.json").stat().st_mode) == 0o600
    log = good.service.log_text()
    assert "registered with the registrar (200 OK)" in log and PASSWORD not in log, log[-3000:]
    line = doctor_line(good.service)
    assert line.startswith("OK ") and f"{USER} at sip:127.0.0.1:{good.registrar_port}: registered (200 OK)" in line, \
        line
    assert good.service.scrape()[("appliance_sip_registration", (("state", "registered"),))] == 1
    line = doctor_line(good.service, "metrics port")
    assert line.startswith("OK ") and "serves the service's metrics" in line, line


def test_a_wrong_password_is_refused_and_doctor_says_fail(services):
    _, bad = services
    assert bad.sipp_code == 0, bad.sipp_report               # the scenario's 403 branch ran to its end
    assert "digest wrong: 403 Forbidden" in bad.sipp_report, bad.sipp_report
    data = status(bad.service, want="failed")
    # 403 from the registrar (a retry 30 s later finds no registrar: failed still, another code)
    assert "registration failed: 403 Forbidden" in bad.service.log_text(), bad.service.log_text()[-3000:]
    assert stat.S_IMODE((bad.service.data / "sip-status.json").stat().st_mode) == 0o600
    line = doctor_line(bad.service)
    assert line.startswith("FAIL ") and f"{USER} at sip:127.0.0.1:{bad.registrar_port}: registration failed (" \
        in line, (line, data)
    scraped = bad.service.scrape()
    assert scraped[("appliance_sip_registration", (("state", "failed"),))] == 1
    assert scraped[("appliance_sip_registration", (("state", "registered"),))] == 0


def test_a_password_file_readable_by_others_stops_the_service(tmp_path):
    from .conftest import write_config

    secret = password_file(tmp_path, PASSWORD, 0o644)
    config = write_config(tmp_path, port=free_port(), mode="register", registrar="sip:127.0.0.1:5999", user=USER,
                          password_file=str(secret))
    env = {k: v for k, v in os.environ.items() if k not in ("APPLIANCE_DB", "NOTIFY_SOCKET", "WATCHDOG_USEC")}
    env["APPLIANCE_CONFIG"] = str(config)
    done = subprocess.run([str(APPLIANCE), "run", "--config", str(config)], capture_output=True, text=True,
                          timeout=60, env=env)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "password_file" in output and str(secret) in output and "chmod 600" in output, output
    assert "answering calls" not in output


def test_keypad_zero_by_sip_info_transfers_to_the_front_desk(services, tmp_path):
    service = services[0].service
    before = len(service.calls())
    code, report = sipp(service, "info_zero", tmp_path, timeout_s=60)
    assert code == 0, report                                  # INFO 200, REFER (202, NOTIFY), BYE from the service
    # register mode: the demo clinic's front desk number at the registrar
    assert f"Refer-To: sip:+61255504101@127.0.0.1:{services[0].registrar_port}" in report, report
    call = service.new_call(before)
    turns = service.turns(call["id"])
    assert any(t["caller_text"] == "keypad 0" for t in turns), turns
    assert call["outcome"] == "transferred", call
