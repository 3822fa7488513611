"""installer/install.sh in --root mode: the tree it lays out, idempotence, config upgrades, uninstall."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from .installer_runs import LOG, REPO, VENV, install, mode, snapshot, source_copy

UNITS = ("appliance.service", "appliance-maintenance.service", "appliance-maintenance.timer")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    root = tmp_path_factory.mktemp("install") / "root"
    done = install(root)
    assert done.returncode == 0, done.stdout + done.stderr
    return root, done


def config_of(root):
    return (root / "etc/appliance/appliance.toml").read_text()


# ---------------------------------------------------------------- a first install

def test_first_install_lays_out_settings_data_and_units(installed):
    root, _ = installed
    etc, data = root / "etc/appliance", root / "var/lib/appliance"
    assert mode(etc) == 0o750
    assert mode(etc / "appliance.toml") == 0o640 and mode(etc / "clinic.yaml") == 0o640
    assert (etc / "clinic.yaml").read_text() == (REPO / "config/clinic.demo.yaml").read_text()
    assert mode(data) == 0o750 and mode(data / "backups") == 0o700     # the staff group reads, nobody else
    assert mode(data / "appliance.db") == 0o640
    for name in UNITS:
        unit = root / "etc/systemd/system" / name
        assert mode(unit) == 0o644
        assert "/opt/appliance/venv/" not in unit.read_text()   # --from-venv: the units run the given venv
    assert f"ExecStart={VENV}/bin/appliance run" in (root / "etc/systemd/system/appliance.service").read_text()
    assert os.readlink(root / "usr/local/bin/appliance") == f"{VENV}/bin/appliance"
    assert not (root / "opt/appliance").exists()   # --from-venv: nothing built there
    assert not (root / "etc/systemd/system/appliance.service.d").exists()   # no GPU: no device drop-in


def test_the_rendered_config_is_the_template_with_the_device(installed):
    root, _ = installed
    template = (REPO / "config/appliance.toml").read_text()
    assert config_of(root) == template   # no GPU: device = "cpu", as in the template
    assert 'device = "cpu"' in config_of(root)
    assert (root / "etc/appliance/appliance.toml.default").read_text() == template


def test_the_database_is_built_from_the_clinic_file(installed):
    import sqlite3

    root, _ = installed
    conn = sqlite3.connect(root / "var/lib/appliance/appliance.db")
    assert conn.execute("SELECT name FROM clinic").fetchone()[0] == "Harbourside Health"
    conn.close()


def test_progress_is_numbered_logged_and_nothing_touches_the_real_system(installed):
    root, done = installed
    for n in range(1, 12):
        assert f"[{n}/11] " in done.stdout
    assert "would run: systemctl enable appliance.service appliance-maintenance.timer" in done.stdout
    assert "would run: useradd --system --gid appliance" in done.stdout
    assert "would run: groupadd --system appliance-staff" in done.stdout
    assert "would run: chown appliance:appliance-staff /var/lib/appliance" in done.stdout
    assert "running:" not in done.stdout
    assert "usermod -aG appliance-staff" in done.stdout   # next steps: the front desk joins the staff group
    log = root / LOG
    assert mode(log) == 0o600
    assert "[11/11] Checking the installation (appliance doctor)" in log.read_text()
    assert "OK    config" in done.stdout   # the doctor ran on the staged settings


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_installed_units_pass_systemd_analyze_verify(installed):
    root, _ = installed
    done = subprocess.run(["systemd-analyze", "verify", "--man=no",
                           *(str(root / "etc/systemd/system" / name) for name in UNITS)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr


def test_a_second_run_changes_nothing(installed):
    root, _ = installed
    before = snapshot(root)
    again = install(root)
    assert again.returncode == 0, again.stdout + again.stderr
    assert snapshot(root) == before
    assert "0 change(s) made this time" in again.stdout


# ---------------------------------------------------------------- GPU

def test_a_gpu_makes_the_config_say_cuda_and_opens_the_devices(tmp_path):
    root = tmp_path / "root"
    done = install(root, gpu=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "NVIDIA RTX A2000" in done.stdout
    config = config_of(root)
    assert 'device = "cuda"' in config and 'device = "cpu"' not in config
    dropin = root / "etc/systemd/system/appliance.service.d/gpu.conf"
    assert "DeviceAllow=char-nvidia-frontend rw" in dropin.read_text()
    from appliance.settings import load_settings

    assert load_settings(root / "etc/appliance/appliance.toml").device.device == "cuda"


def test_device_option_wins_over_detection(tmp_path):
    root = tmp_path / "root"
    done = install(root, "--device", "cpu", gpu=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'device = "cpu"' in config_of(root)
    assert not (root / "etc/systemd/system/appliance.service.d").exists()


# ---------------------------------------------------------------- upgrades of the settings

NEW_KEY_FROM = '# stt_compute_type = "int8"'
NEW_KEY_TO = 'stt_compute_type = "int8"'


def test_an_edited_config_is_kept_and_a_changed_template_goes_beside_it(tmp_path):
    src = source_copy(tmp_path / "src")
    root = tmp_path / "root"
    assert install(root, src=src).returncode == 0
    config = root / "etc/appliance/appliance.toml"
    edited = config.read_text().replace("port = 5060", "port = 5070")
    config.write_text(edited)

    unchanged = install(root, src=src)   # same template: the edit is simply kept
    assert unchanged.returncode == 0 and config.read_text() == edited
    assert not (root / "etc/appliance/appliance.toml.new").exists()

    template = src / "config/appliance.toml"
    template.write_text(template.read_text().replace(NEW_KEY_FROM, NEW_KEY_TO))
    upgraded = install(root, src=src)
    assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
    assert config.read_text() == edited   # never overwritten
    new = root / "etc/appliance/appliance.toml.new"
    assert new.read_text() == template.read_text() and mode(new) == 0o640
    assert "new settings: device.stt_compute_type" in upgraded.stdout
    assert f"+{NEW_KEY_TO}" in upgraded.stdout and "-port = 5070" in upgraded.stdout   # the diff is shown

    before = snapshot(root)
    third = install(root, src=src)
    assert third.returncode == 0 and snapshot(root) == before
    assert "appliance.toml.new is waiting to be merged" in third.stdout


def test_an_unedited_config_follows_the_new_template(tmp_path):
    src = source_copy(tmp_path / "src")
    root = tmp_path / "root"
    assert install(root, src=src).returncode == 0
    template = src / "config/appliance.toml"
    template.write_text(template.read_text().replace(NEW_KEY_FROM, NEW_KEY_TO))
    done = install(root, src=src)
    assert done.returncode == 0
    assert config_of(root) == template.read_text()
    assert not (root / "etc/appliance/appliance.toml.new").exists()


def test_an_edited_clinic_file_is_never_replaced(tmp_path):
    root = tmp_path / "root"
    assert install(root).returncode == 0
    clinic = root / "etc/appliance/clinic.yaml"
    clinic.write_text(clinic.read_text().replace("Harbourside Health", "Hillside Physio"))
    assert install(root).returncode == 0
    assert "Hillside Physio" in clinic.read_text()


# ---------------------------------------------------------------- uninstall and purge

def test_uninstall_keeps_data_and_settings_and_a_reinstall_brings_the_service_back(tmp_path):
    root = tmp_path / "root"
    assert install(root).returncode == 0
    config = root / "etc/appliance/appliance.toml"
    config.write_text(config.read_text().replace("max_calls = 2", "max_calls = 3"))
    db_before = (root / "var/lib/appliance/appliance.db").read_bytes()

    done = install(root, "--uninstall")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "would run: systemctl disable --now appliance.service appliance-maintenance.timer" in done.stdout
    for name in UNITS:
        assert not (root / "etc/systemd/system" / name).exists()
    assert not (root / "usr/local/bin/appliance").exists()
    assert "max_calls = 3" in config.read_text()
    assert (root / "var/lib/appliance/appliance.db").read_bytes() == db_before
    assert "userdel" not in done.stdout
    assert VENV.joinpath("bin/appliance").exists()   # --from-venv: someone else's venv is never removed

    again = install(root)
    assert again.returncode == 0
    assert (root / "etc/systemd/system/appliance.service").exists()
    assert "max_calls = 3" in config.read_text()
    assert "the database exists: kept" in again.stdout


def test_purge_asks_for_yes_then_deletes_data_settings_and_user(tmp_path):
    root = tmp_path / "root"
    assert install(root).returncode == 0
    refused = install(root, "--uninstall", "--purge")
    assert refused.returncode == 2 and "--yes" in refused.stderr + refused.stdout
    assert (root / "var/lib/appliance/appliance.db").exists()

    done = install(root, "--purge", "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (root / "etc/appliance").exists() and not (root / "var/lib/appliance").exists()
    assert "would run: userdel appliance" in done.stdout and "would run: groupdel appliance" in done.stdout
    assert (root / LOG).exists()


# ---------------------------------------------------------------- failures

def test_a_failing_step_is_named_with_how_to_retry(tmp_path):
    broken = tmp_path / "venv"
    (broken / "bin").mkdir(parents=True)
    (broken / "bin" / "python").symlink_to(sys.executable)   # a venv without the appliance in it
    root = tmp_path / "root"
    done = install(root, venv=broken)
    assert done.returncode == 1
    assert "FAILED at step 2/11: Checking Python" in done.stdout
    assert "the appliance is not installed in it" in done.stdout
    assert "run the same command again" in done.stdout
    assert "FAILED at step 2/11" in (root / LOG).read_text()


def test_an_offline_install_needs_a_real_bundle(tmp_path):
    (tmp_path / "not-a-bundle").mkdir()
    done = install(tmp_path / "root", "--offline", str(tmp_path / "not-a-bundle"))
    assert done.returncode == 1 and "is not an appliance bundle" in done.stdout
    missing = install(tmp_path / "root", "--offline", str(tmp_path / "nothing.tar"))
    assert missing.returncode == 1 and "no such file" in missing.stdout


@pytest.mark.skipif(os.geteuid() == 0, reason="root may install for real")
def test_without_root_it_asks_for_sudo_or_root_mode():
    done = subprocess.run(["bash", str(REPO / "installer/install.sh")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--root DIR" in done.stderr


# ---------------------------------------------------------------- the monitor in a browser

def test_monitor_web_adds_its_service_and_a_certificate_whose_key_only_the_service_user_reads(tmp_path):
    from cryptography import x509

    from appliance.monitor_web.web_server import tls_context
    from appliance.settings import load_settings

    root = tmp_path / "root"
    done = install(root, "--monitor-web")
    assert done.returncode == 0, done.stdout + done.stderr
    unit = root / "etc/systemd/system/appliance-monitor-web.service"
    assert mode(unit) == 0o644 and f"ExecStart={VENV}/bin/appliance monitor --serve" in unit.read_text()
    tls = root / "etc/appliance/tls"
    assert mode(tls) == 0o750 and mode(tls / "monitor-web.crt") == 0o644 and mode(tls / "monitor-web.key") == 0o600
    assert "would run: chown appliance:appliance /etc/appliance/tls/monitor-web.key" in done.stdout
    certificate = x509.load_pem_x509_certificate((tls / "monitor-web.crt").read_bytes())
    names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "localhost" in names.get_values_for_type(x509.DNSName)
    settings = load_settings(root / "etc/appliance/appliance.toml")     # found where the settings expect it
    assert settings.monitor_web_certificate == tls / "monitor-web.crt"
    tls_context(settings.monitor_web_certificate, settings.monitor_web_key)
    assert ("would run: systemctl enable appliance.service appliance-maintenance.timer "
            "appliance-monitor-web.service") in done.stdout
    assert "appliance staff add NAME" in done.stdout and "[monitor_web] listen" in done.stdout

    before = snapshot(root)
    again = install(root)                   # an upgrade without the option keeps it, and changes nothing
    assert again.returncode == 0, again.stdout + again.stderr
    assert snapshot(root) == before and "0 change(s) made this time" in again.stdout
    assert "certificate exists: kept" in again.stdout

    removed = install(root, "--uninstall")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert not unit.exists() and "would run: systemctl disable --now appliance-monitor-web.service" in removed.stdout
