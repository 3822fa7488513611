"""`appliance doctor`: each check with its fault injected."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections import namedtuple
from datetime import datetime, timedelta, timezone

import pytest
from click.testing import CliRunner

from appliance.admin import doctor
from appliance.cli import main
from appliance.models import load_manifest
from appliance.settings import load_settings

from .conftest import GGUF, write_config

Usage = namedtuple("Usage", "total used free")


@pytest.fixture(autouse=True)
def quiet_world(monkeypatch):
    """A synchronised clock, no systemd: each test breaks only what it is about."""
    monkeypatch.setattr(doctor, "_timedatectl", lambda: {"Timezone": "Australia/Sydney", "NTPSynchronized": "yes",
                                                          "NTP": "yes"})
    monkeypatch.setattr(doctor.service_process, "systemd_state", lambda unit="appliance.service": "active")


def by_name(checks, name):
    found = [c for c in checks if c.name == name]
    assert found, f"no check {name!r} in {[c.name for c in checks]}"
    return found[0]


def free_port(kind=socket.SOCK_DGRAM) -> int:
    with socket.socket(socket.AF_INET, kind) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# ---------------------------------------------------------------- the whole run

def test_a_healthy_box_passes_and_prints_one_line_per_check(box, monkeypatch):
    port = free_port()
    box.write_text(box.read_text() + f'\n[sip]\nbind_address = "127.0.0.1"\nport = {port}\ntransports = ["udp"]\n')
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert all(line.split()[0] in ("OK", "WARN", "FAIL") or line.strip().startswith("fix:") for line in lines)
    names = [line[6:29].strip() for line in lines if not line.strip().startswith("fix:")]
    for name in ("config", "sip port", "sip registration", "metrics port", "data folder", "database", "disk", "clock",
                 "time sync", "gpu", "service"):
        assert name in names
    assert not [line for line in lines if line.startswith("FAIL")]


def test_any_fail_exits_1_and_says_the_fix(box):
    box.write_text(box.read_text() + "\n[sip]\nprot = 5060\n")
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 1
    assert "FAIL  config" in result.output
    assert "fix:" in result.output


# ---------------------------------------------------------------- config

def test_a_bad_key_names_the_file_and_the_key(box):
    box.write_text(box.read_text() + "\n[sip]\nprot = 5060\n")
    settings, checks = doctor.check_config(box)
    assert settings is None
    assert checks[0].status == "FAIL"
    assert str(box) in checks[0].detail and "sip.prot" in checks[0].detail and "unknown key" in checks[0].detail


def test_a_bad_value_names_the_key(box):
    box.write_text(box.read_text() + "\n[data]\ntranscript_days = 0\n")
    _, checks = doctor.check_config(box)
    assert checks[0].status == "FAIL" and "data.transcript_days" in checks[0].detail


def test_other_checks_still_run_when_the_config_is_broken(box):
    box.write_text("[device\n")
    checks = doctor.run_checks(box)
    assert checks[0].status == "FAIL" and "not valid TOML" in checks[0].detail
    assert {"disk", "clock", "service"} <= {c.name for c in checks}


# ---------------------------------------------------------------- models

def _fake_manifest(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "fake_doctor_llm").mkdir(parents=True)
    (site / "fake_doctor_llm" / "__init__.py").write_text("")
    (site / "fake_doctor_llm" / "tiny.gguf").write_bytes(GGUF)
    monkeypatch.syspath_prepend(str(site))
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(textwrap.dedent(f"""
        schema = 1

        [[model]]
        name = "fake-llm"
        part = "llm"
        default = true
        description = "a tiny gguf"
        licence = "Apache-2.0"
        packages = ["fake-doctor-llm==0.1"]
        kind = "package"
        path = "fake_doctor_llm:tiny.gguf"
        files = [{{ at = "fake_doctor_llm:tiny.gguf", size = {len(GGUF)}, sha256 = "{hashlib.sha256(GGUF).hexdigest()}" }}]
    """))
    return site / "fake_doctor_llm" / "tiny.gguf", load_manifest(manifest)


def test_models_present_and_verified(box, tmp_path, monkeypatch):
    _, manifest = _fake_manifest(tmp_path, monkeypatch)
    box.write_text(box.read_text().replace(f'llm = "{tmp_path / "local-models" / "tiny.gguf"}"', 'llm = "fake-llm"'))
    checks = doctor.check_models(load_settings(box), manifest)
    assert by_name(checks, "model fake-llm").status == "OK"
    assert "sha256 verified" in by_name(checks, "model fake-llm").detail
    assert by_name(checks, "model stt").status == "OK"   # the local CTranslate2 folder


def test_a_missing_model_fails_naming_it_and_the_command_that_fixes_it(box, tmp_path, monkeypatch):
    gguf, manifest = _fake_manifest(tmp_path, monkeypatch)
    box.write_text(box.read_text().replace(f'llm = "{tmp_path / "local-models" / "tiny.gguf"}"', 'llm = "fake-llm"'))
    gguf.unlink()
    check = by_name(doctor.check_models(load_settings(box), manifest), "model fake-llm")
    assert check.status == "FAIL"
    assert "missing" in check.detail and "tiny.gguf" in check.detail
    assert check.fix == "appliance models install"


def test_a_damaged_model_fails(box, tmp_path, monkeypatch):
    gguf, manifest = _fake_manifest(tmp_path, monkeypatch)
    box.write_text(box.read_text().replace(f'llm = "{tmp_path / "local-models" / "tiny.gguf"}"', 'llm = "fake-llm"'))
    data = bytearray(gguf.read_bytes())
    data[10] ^= 0xFF
    gguf.write_bytes(bytes(data))
    check = by_name(doctor.check_models(load_settings(box), manifest), "model fake-llm")
    assert check.status == "FAIL" and "wrong sha256" in check.detail


def test_a_missing_local_model_fails_with_the_settings_fix(box, tmp_path, monkeypatch):
    _, manifest = _fake_manifest(tmp_path, monkeypatch)
    (tmp_path / "local-models" / "voice.onnx").unlink()
    checks = doctor.check_models(load_settings(box), manifest)
    failing = [c for c in checks if c.status == "FAIL"]
    assert len(failing) == 1 and "tts" in failing[0].detail and "[models] tts" in failing[0].fix


# ---------------------------------------------------------------- SIP port

def _sip(box, port, transports='["udp"]', extra=""):
    box.write_text(box.read_text() + f'\n[sip]\nbind_address = "127.0.0.1"\nport = {port}\n'
                                     f'transports = {transports}\n{extra}')
    return load_settings(box)


def test_a_free_port_is_ok(box):
    port = free_port(socket.SOCK_STREAM)
    check = doctor.check_sip_port(_sip(box, port, '["udp", "tcp"]'))
    assert check.status == "OK" and f"{port}/udp and {port}/tcp free" in check.detail


def test_a_port_taken_by_another_program_fails_naming_it(box):
    holder = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    holder.bind(("127.0.0.1", 0))
    port = holder.getsockname()[1]
    try:
        check = doctor.check_sip_port(_sip(box, port))
    finally:
        holder.close()
    assert check.status == "FAIL"
    assert f"{port}/udp" in check.detail and f"pid {os.getpid()}" in check.detail
    assert "[sip] port" in check.fix


def test_a_tcp_port_taken_fails(box):
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    try:
        check = doctor.check_sip_port(_sip(box, port, '["tcp"]'))
    finally:
        holder.close()
    assert check.status == "FAIL" and f"{port}/tcp" in check.detail


def test_a_port_held_by_appliance_run_is_ok(box, tmp_path):
    fake = tmp_path / "appliance"   # looks like `.../appliance run` in the process list
    fake.write_text(textwrap.dedent("""
        import socket, sys, time
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("127.0.0.1", 0))
        print(sock.getsockname()[1], flush=True)
        time.sleep(60)
    """))
    service = subprocess.Popen([sys.executable, str(fake), "run"], stdout=subprocess.PIPE, text=True)
    try:
        port = int(service.stdout.readline())
        check = doctor.check_sip_port(_sip(box, port))
    finally:
        service.kill()
        service.wait()
    assert check.status == "OK", check
    assert f"pid {service.pid}" in check.detail and "held by the service" in check.detail


def test_an_address_not_on_this_machine_fails(box):
    box.write_text(box.read_text() + '\n[sip]\nbind_address = "192.0.2.77"\ntransports = ["udp"]\n')
    check = doctor.check_sip_port(load_settings(box))
    assert check.status == "FAIL" and "bind_address" in check.fix


# ---------------------------------------------------------------- metrics port

def _metrics(box, listen: str):
    box.write_text(box.read_text() + f'\n[metrics]\nlisten = "{listen}"\n')
    return load_settings(box)


def test_metrics_off_is_ok(settings):
    check = doctor.check_metrics_port(settings)
    assert check.status == "OK" and "off" in check.detail


def test_a_free_metrics_port_is_ok(box):
    port = free_port(socket.SOCK_STREAM)
    check = doctor.check_metrics_port(_metrics(box, f"127.0.0.1:{port}"))
    assert check.status == "OK" and f"127.0.0.1:{port} free" in check.detail


def test_a_metrics_port_serving_the_service_is_ok(box):
    from appliance.sip.metrics import ServiceMetrics

    metrics = ServiceMetrics(calls_in_progress=lambda: 2)
    metrics.serve(("127.0.0.1", 0))
    try:
        check = doctor.check_metrics_port(_metrics(box, f"127.0.0.1:{metrics.port}"))
    finally:
        metrics.close()
    assert check.status == "OK" and "serves the service's metrics (2 call(s) in progress)" in check.detail, check


def test_a_metrics_port_taken_by_another_program_warns_naming_it(box):
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    try:
        check = doctor.check_metrics_port(_metrics(box, f"127.0.0.1:{port}"))
    finally:
        holder.close()
    assert check.status == "WARN" and f"pid {os.getpid()}" in check.detail, check
    assert "[metrics] listen" in check.fix


def test_a_metrics_address_not_on_this_machine_warns(box):
    check = doctor.check_metrics_port(_metrics(box, "192.0.2.77:9464"))
    assert check.status == "WARN" and "[metrics] listen" in check.fix, check


# ---------------------------------------------------------------- TLS and allowed_peers

@pytest.fixture
def tls_box(box, tmp_path):
    """A box with TLS on: certificates from a test CA made here (`issue` makes more)."""
    from certificates import TestCa

    ca = TestCa(tmp_path / "tls")
    base = box.read_text()

    def configure(cert, key):
        box.write_text(base)
        return _sip(box, free_port(socket.SOCK_STREAM), '["udp", "tls"]',
                    f'tls_port = {free_port(socket.SOCK_STREAM)}\ntls_cert_file = "{cert}"\n'
                    f'tls_key_file = "{key}"\ntls_ca_file = "{ca.cert}"\n')

    return ca, configure


def test_tls_in_date_with_its_own_key_is_ok(tls_box):
    ca, configure = tls_box
    issued = ca.issue("service", days=90)
    checks = doctor.check_tls(configure(issued.cert, issued.key))
    assert [(c.name, c.status) for c in checks] == [("tls certificate", "OK"), ("tls ca", "OK"), ("tls key", "OK")]
    assert "CN=127.0.0.1, valid until" in checks[0].detail
    port_check = doctor.check_sip_port(configure(issued.cert, issued.key))
    assert port_check.status == "OK" and "/tls" in port_check.detail


@pytest.mark.parametrize("days, status, words", [(20, "WARN", "expires in 20 day(s)"), (-1, "FAIL", "expired on")])
def test_a_certificate_near_or_past_its_end_warns_or_fails(tls_box, days, status, words):
    ca, configure = tls_box
    issued = ca.issue("service", days=days + 0.5)
    check = by_name(doctor.check_tls(configure(issued.cert, issued.key)), "tls certificate")
    assert check.status == status and words in check.detail and "renew it" in check.fix


def test_a_missing_unreadable_or_wrong_key_fails(tls_box, tmp_path):
    ca, configure = tls_box
    issued, other = ca.issue("service"), ca.issue("other")
    missing = by_name(doctor.check_tls(configure(issued.cert, tmp_path / "nope.key")), "tls key")
    assert missing.status == "FAIL" and "tls_key_file" in missing.detail and "No such file" in missing.detail
    wrong = by_name(doctor.check_tls(configure(issued.cert, other.key)), "tls key")
    assert wrong.status == "FAIL" and "is not the key of" in wrong.detail
    issued.key.chmod(0o644)
    readable = by_name(doctor.check_tls(configure(issued.cert, issued.key)), "tls key")
    assert readable.status == "FAIL" and "chmod 600" in readable.fix
    issued.key.write_text("not a key")
    issued.key.chmod(0o600)
    garbage = by_name(doctor.check_tls(configure(issued.cert, issued.key)), "tls key")
    assert garbage.status == "FAIL" and "not a PEM private key" in garbage.detail


def test_tls_is_not_checked_when_not_used(box):
    assert doctor.check_tls(_sip(box, free_port())) == []


def test_allowed_peers_open_to_everyone_warns(box):
    settings = _sip(box, free_port(), extra='allowed_peers = ["0.0.0.0/0"]\n')
    (check,) = doctor.check_config_warnings(settings)
    assert (check.status, check.name) == ("WARN", "sip allowed_peers") and "any address" in check.detail
    assert "PBX's address" in check.fix
    names = [c.name for c in doctor.run_checks(box, models=False)]
    assert "sip allowed_peers" in names


def test_no_warning_check_for_a_pbx_address(box):
    assert doctor.check_config_warnings(_sip(box, free_port(), extra='allowed_peers = ["192.168.1.10"]\n')) == []


# ---------------------------------------------------------------- SIP registration

REGISTER = 'mode = "register"\nregistrar = "sip:pbx.clinic.lan"\nuser = "201"\n'


def _status(settings, **fields):
    (settings.paths.data_dir / doctor.SIP_STATUS_FILE).write_text(json.dumps(fields))


def test_peer_mode_needs_no_registration(settings):
    check = doctor.check_sip_registration(settings)
    assert check.status == "OK" and "peer" in check.detail


def test_register_mode_without_a_status_file_warns(box):
    check = doctor.check_sip_registration(_sip(box, 5060, extra=REGISTER))
    assert check.status == "WARN" and "sip-status.json" in check.detail


def test_registered_recently_is_ok(box):
    settings = _sip(box, 5060, extra=REGISTER)
    _status(settings, registration="registered", detail="200 OK", updated=datetime.now(timezone.utc).isoformat())
    check = doctor.check_sip_registration(settings)
    assert check.status == "OK" and "201 at sip:pbx.clinic.lan" in check.detail


def test_a_failed_registration_fails(box):
    settings = _sip(box, 5060, extra=REGISTER)
    _status(settings, registration="failed", detail="403 Forbidden", updated=time.time())
    check = doctor.check_sip_registration(settings)
    assert check.status == "FAIL" and "403 Forbidden" in check.detail and "password" in check.fix


def test_the_status_the_phone_service_writes_is_what_doctor_reads(box):
    from appliance.sip.registration_status import STATUS_NAME, write_registration_status

    settings = _sip(box, 5060, extra=REGISTER)
    assert STATUS_NAME == doctor.SIP_STATUS_FILE
    write_registration_status(settings.paths.data_dir, code=200, reason="OK", expiration=300,
                              registrar=settings.sip.registrar)
    assert (settings.paths.data_dir / STATUS_NAME).stat().st_mode & 0o077 == 0
    assert doctor.check_sip_registration(settings).status == "OK"
    write_registration_status(settings.paths.data_dir, code=403, reason="Forbidden", expiration=0,
                              registrar=settings.sip.registrar)
    assert doctor.check_sip_registration(settings).status == "FAIL"


def test_a_stale_status_warns(box):
    settings = _sip(box, 5060, extra=REGISTER)
    _status(settings, registration="registered", updated=(datetime.now(timezone.utc) - timedelta(hours=2)).isoformat())
    check = doctor.check_sip_registration(settings)
    assert check.status == "WARN" and "not updating" in check.detail


# ---------------------------------------------------------------- data folder and database

def test_data_folder_and_database_as_installed_are_ok(settings):
    assert doctor.check_data_dir(settings).status == "OK"
    check = doctor.check_database(settings)
    assert check.status == "OK" and "writable, mode 0600" in check.detail


def test_a_readable_data_folder_fails(settings):
    os.chmod(settings.paths.data_dir, 0o755)
    check = doctor.check_data_dir(settings)
    assert check.status == "FAIL" and "0755" in check.detail and "chmod 750" in check.fix
    assert "appliance-staff" in check.fix          # the one permission model: the staff group may read, no one else


def test_a_database_with_the_wrong_mode_fails(settings):
    os.chmod(settings.paths.database, 0o644)
    check = doctor.check_database(settings)
    assert check.status == "FAIL" and "0644" in check.detail and "chmod 640" in check.fix


def test_a_database_its_owner_cannot_write_fails(settings):
    os.chmod(settings.paths.database, 0o400)
    check = doctor.check_database(settings)
    assert check.status == "FAIL" and "0400: its owner cannot write it (it holds patient data)" in check.detail
    assert "chmod 640" in check.fix


def test_a_data_folder_or_database_owned_by_another_user_fails(settings, monkeypatch):
    monkeypatch.setattr(doctor, "_expected_owner", lambda: (os.getuid() + 1, "appliance"))
    folder, database = doctor.check_data_dir(settings), doctor.check_database(settings)
    assert folder.status == database.status == "FAIL"
    assert ", not appliance" in folder.detail and folder.fix == f"sudo chown -R appliance: {settings.paths.data_dir}"
    assert ", not appliance" in database.detail and database.fix == f"sudo chown appliance: {settings.paths.database}"


def test_a_missing_database_fails_with_the_init_command(settings):
    settings.paths.database.unlink()
    check = doctor.check_database(settings)
    assert check.status == "FAIL" and check.fix.startswith("appliance db init --clinic")


def test_a_database_that_cannot_be_written_fails(settings):
    holder = sqlite3.connect(settings.paths.database, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")   # another process holding it: nothing can be written
    try:
        check = doctor.check_database(settings, lock_timeout=0.2)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert check.status == "FAIL" and "cannot be written" in check.detail


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write a read-only file")
def test_a_read_only_database_fails(settings):
    os.chmod(settings.paths.database, 0o400)
    check = doctor.check_database(settings)
    assert check.status == "FAIL"


def test_a_file_that_is_not_a_database_fails(settings):
    settings.paths.database.write_bytes(b"not a database at all" * 100)
    check = doctor.check_database(settings)
    assert check.status == "FAIL"


def test_refused_writes_waiting_in_the_fallback_journal_are_reported(settings):
    from appliance.store.fallback_journal import FallbackJournal

    assert doctor.check_fallback_journal(settings).status == "OK"
    journal = FallbackJournal(settings.paths.data_dir / "fallback-journal")
    journal.append("callback_request", "call-1", {"row": {"id": "cb-1", "created_at": "2026-11-20T09:00:00"}})
    check = doctor.check_fallback_journal(settings)
    assert check.status == "WARN" and check.detail.startswith("1 call record or callback entry")
    assert "+61" not in check.detail                     # counted, never shown


def test_callers_cut_off_mid_call_waiting_for_staff_are_reported(settings):
    from appliance.store import ClinicStore, open_database
    from appliance.store.recovery import recover

    assert doctor.check_interrupted_calls(settings).status == "OK"
    db = open_database(settings.paths.database)
    db.execute("INSERT INTO calls (id, caller_id, started_at) VALUES ('call-1', '+61491570006', '2026-11-20T09:00')")
    db.conn.commit()
    recover(db)                                          # the next start finds it and raises a callback
    check = doctor.check_interrupted_calls(settings)
    assert check.status == "WARN" and check.detail.startswith("1 caller(s) cut off"), check
    (callback,) = ClinicStore(db).callback_requests()
    ClinicStore(db).mark_callback_done(callback["id"], done_by="frontdesk")
    db.close()
    assert doctor.check_interrupted_calls(settings).status == "OK"


# ---------------------------------------------------------------- disk

@pytest.mark.parametrize("free, status", [(10 * 1024 ** 3, "OK"), (1024 ** 3, "WARN"), (100 * 1024 ** 2, "FAIL")])
def test_free_disk(settings, monkeypatch, free, status):
    monkeypatch.setattr(doctor.shutil, "disk_usage", lambda path: Usage(100 * 1024 ** 3, 0, free))
    check = doctor.check_disk(settings.paths.data_dir)
    assert check.status == status
    assert str(settings.paths.data_dir) in check.detail


# ---------------------------------------------------------------- clock

def test_clock_and_sync_ok():
    clock, sync = doctor.check_clock()
    assert clock.status == "OK" and "Australia/Sydney" in clock.detail
    assert sync.status == "OK"


def test_an_unsynchronised_clock_warns(monkeypatch):
    monkeypatch.setattr(doctor, "_timedatectl", lambda: {"Timezone": "Etc/UTC", "NTPSynchronized": "no", "NTP": "no"})
    _, sync = doctor.check_clock()
    assert sync.status == "WARN" and "NTP is off" in sync.detail and "set-ntp true" in sync.fix


def test_a_clock_never_set_fails():
    clock, _ = doctor.check_clock(datetime(1970, 1, 2, 3, 4))
    assert clock.status == "FAIL"


def test_no_timezone_warns(monkeypatch):
    monkeypatch.setattr(doctor, "_timedatectl", lambda: None)
    monkeypatch.setattr(doctor, "_zone_from_files", lambda: None)
    clock, sync = doctor.check_clock()
    assert clock.status == "WARN" and "set-timezone" in clock.fix
    assert sync.status == "WARN"


# ---------------------------------------------------------------- GPU

def test_gpu_not_used_on_cpu(settings):
    assert doctor.check_gpu(settings).status == "OK"


@pytest.mark.parametrize("count, status", [(1, "OK"), (0, "FAIL")])
def test_gpu_on_cuda(box, monkeypatch, count, status):
    box.write_text(box.read_text() + '\n[device]\ndevice = "cuda"\n')
    monkeypatch.setattr(doctor, "_cuda_device_count", lambda: count)
    monkeypatch.setattr(doctor, "_missing_cuda_libraries", lambda: [])
    check = doctor.check_gpu(load_settings(box))
    assert check.status == status
    if status == "FAIL":
        assert 'device = "cpu"' in check.fix


def test_a_gpu_without_cublas_12_fails_naming_the_library(box, monkeypatch):
    """The driver sees the GPU, but CTranslate2's cuBLAS 12 is not installed (a CUDA 13 only box, and this CPU box)."""
    box.write_text(box.read_text() + '\n[device]\ndevice = "cuda"\n')
    monkeypatch.setattr(doctor, "_cuda_device_count", lambda: 1)
    check = doctor.check_gpu(load_settings(box))
    assert check.status == "FAIL" and "libcublas.so.12" in check.detail and "falls back to the CPU" in check.detail
    assert "appliance[cuda]" in check.fix


def test_gpu_without_a_driver_fails(box, monkeypatch):
    box.write_text(box.read_text() + '\n[device]\ndevice = "cuda"\n')

    def no_driver():
        raise RuntimeError("CUDA driver version is insufficient")

    monkeypatch.setattr(doctor, "_cuda_device_count", no_driver)
    check = doctor.check_gpu(load_settings(box))
    assert check.status == "FAIL" and "insufficient" in check.detail


# ---------------------------------------------------------------- service

def test_an_inactive_service_warns(monkeypatch):
    monkeypatch.setattr(doctor.service_process, "systemd_state", lambda unit="appliance.service": "failed")
    check = doctor.check_service()
    assert check.status == "WARN" and "journalctl" in check.fix


def test_config_written_by_write_config_is_valid(tmp_path):
    assert load_settings(write_config(tmp_path)).paths.data_dir == tmp_path / "data"


def test_no_models_skips_the_model_checks(box):
    result = CliRunner().invoke(main, ["doctor", "--no-models"])
    assert "model " not in result.output and "OK    config" in result.output


# ---------------------------------------------------------------- the browser monitor

def test_the_browser_monitor_is_checked_only_where_it_is_set_up_and_its_secrets_must_be_private(tmp_path):
    from appliance.monitor_web.staff_accounts import StaffAccounts

    settings = load_settings(write_config(tmp_path))
    (tmp_path / "data").mkdir(exist_ok=True)
    assert doctor.check_monitor_web(settings) == []                 # not set up: nothing to say
    accounts = StaffAccounts(settings.staff_file)
    accounts.add("alice", "correct horse battery")
    checks = doctor.check_monitor_web(settings)
    assert by_name(checks, "staff accounts").status == "OK" and "1 account(s)" in by_name(checks, "staff accounts").detail
    assert by_name(checks, "monitor web key").status == "FAIL"       # set up, but no key yet
    (tmp_path / "tls").mkdir()
    settings.monitor_web_key.write_text("key")
    settings.monitor_web_key.chmod(0o640)
    settings.staff_file.chmod(0o640)
    checks = doctor.check_monitor_web(settings)
    for name in ("staff accounts", "monitor web key"):
        check = by_name(checks, name)
        assert check.status == "FAIL" and "other users can read" in check.detail and "chmod 600" in check.fix


@pytest.mark.parametrize("days, status, words", [(90, "OK", "valid until"), (20, "WARN", "expires in 20 day(s)"),
                                                 (-1, "FAIL", "expired on")])
def test_the_browser_monitors_certificate_near_or_past_its_end_warns_or_fails(tmp_path, days, status, words):
    import shutil

    from certificates import TestCa

    settings = load_settings(write_config(tmp_path))
    issued = TestCa(tmp_path / "ca").issue("monitor", days=days + 0.5)
    settings.monitor_web_certificate.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(issued.cert, settings.monitor_web_certificate)
    check = by_name(doctor.check_monitor_web(settings), "monitor web certificate")
    assert check.status == status and words in check.detail
    if status != "OK":
        assert "appliance-monitor-web" in check.fix
