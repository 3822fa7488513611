"""The IT admin's tools with the shared PostgreSQL store configured: the doctor checks the connection, the schema
and the clinic; retention prunes the shared store; a backup says the server backs it up; a restore refuses."""

from __future__ import annotations

from datetime import datetime, timedelta

import psycopg
import pytest
from click.testing import CliRunner

from appliance.admin import doctor
from appliance.admin.backup import BackupError, NotHere, backup_database, restore_database
from appliance.admin.retention import prune
from appliance.clinic import load_clinic_file
from appliance.cli import main
from appliance.settings import load_settings
from appliance.store import open_database
from appliance.store.database import build_database
from appliance.store.records import CallRecorder

from .conftest import DEMO_CLINIC, write_config


@pytest.fixture
def configure(tmp_path, monkeypatch):
    """Settings naming a PostgreSQL database through a 0600 DSN file."""
    def settings_for(dsn: str):
        dsn_file = tmp_path / "database.dsn"
        dsn_file.write_text(dsn + "\n")
        dsn_file.chmod(0o600)
        (tmp_path / "data").mkdir(mode=0o700, exist_ok=True)
        config = write_config(tmp_path, f"\n[data]\ndatabase_file = \"{dsn_file}\"\n")
        monkeypatch.setenv("APPLIANCE_CONFIG", str(config))
        return load_settings(config)
    return settings_for


def test_the_doctor_passes_a_loaded_store_and_says_which(configure, postgres_dsn):
    build_database(load_clinic_file(DEMO_CLINIC), postgres_dsn)
    check = doctor.check_database(configure(postgres_dsn))
    assert check.status == "OK", check
    assert "PostgreSQL" in check.detail and "schema 3" in check.detail and "double bookings refused" in check.detail
    assert doctor.check_interrupted_calls(configure(postgres_dsn)).status == "OK"


def test_the_doctor_fails_a_store_without_tables_or_clinic(configure, postgres_dsn):
    check = doctor.check_database(configure(postgres_dsn))
    assert check.status == "FAIL" and "no appliance tables" in check.detail and "db migrate" in check.fix
    open_database(postgres_dsn).close()             # the tables, no clinic
    check = doctor.check_database(configure(postgres_dsn))
    assert check.status == "FAIL" and "holds no clinic" in check.detail
    assert check.fix.startswith("appliance db init --clinic")


def test_the_doctor_fails_a_server_it_cannot_reach_without_showing_the_password(configure, postgres_server):
    dsn = postgres_server.dsn("appliance").replace(f":{postgres_server.port}", ":1").replace("appliance@",
                                                                                             "appliance:s3cret@")
    check = doctor.check_database(configure(dsn))
    assert check.status == "FAIL" and "cannot connect" in check.detail and "pg_hba.conf" in check.fix
    assert "s3cret" not in check.detail + check.fix


def test_the_doctor_refuses_a_dsn_file_others_can_read(configure, postgres_dsn, tmp_path):
    settings = configure(postgres_dsn)
    (tmp_path / "database.dsn").chmod(0o644)
    check = doctor.check_database(settings)
    assert check.status == "FAIL" and "readable by others" in check.detail


def test_retention_prunes_the_shared_store(configure, postgres_dsn):
    build_database(load_clinic_file(DEMO_CLINIC), postgres_dsn)
    db = open_database(postgres_dsn)
    recorder = CallRecorder(db)
    old = datetime(2026, 1, 5, 10, 0)
    recorder.call_started(call_id="call-old", clinic="demo", caller_id="+61491570006", started_at=old)
    recorder.turn(call_id="call-old", seq=0, caller_text="my name is Sarah", agent_text="Hello", state="greeting",
                  waiting_for="intent", trigger=None, at=old)
    db.close()
    settings = configure(postgres_dsn)
    report = prune(settings, now=old + timedelta(days=200))
    assert (report.calls, report.turns) == (1, 1)
    with psycopg.connect(postgres_dsn) as conn:
        assert conn.execute("SELECT caller_text FROM turns WHERE call_id = 'call-old'").fetchone() == (None,)
    assert prune(settings, now=old + timedelta(days=200)).turns == 0


def test_backups_are_the_servers_and_a_restore_refuses(configure, postgres_dsn, tmp_path):
    settings = configure(postgres_dsn)
    with pytest.raises(NotHere, match="backed up on its server"):
        backup_database(settings)
    with pytest.raises(BackupError, match="pg_restore"):
        restore_database(settings, tmp_path / "some.db")
    done = CliRunner().invoke(main, ["db", "backup"])
    assert done.exit_code == 0 and "nothing backed up here" in done.output


def test_the_monitor_reads_the_shared_store_it_is_configured_with(configure, postgres_dsn, monkeypatch):
    import appliance.monitor
    opened = {}
    monkeypatch.setattr(appliance.monitor, "run_monitor", lambda **kwargs: opened.update(kwargs))
    configure(postgres_dsn)
    done = CliRunner().invoke(main, ["monitor"])
    assert done.exit_code == 0, done.output
    assert opened["db_path"] == postgres_dsn and opened["db_given"]
