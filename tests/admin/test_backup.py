"""`appliance db backup` and `appliance db restore`."""

from __future__ import annotations

import os
import sqlite3
import stat
from datetime import datetime

import pytest
from click.testing import CliRunner

from appliance.admin import backup
from appliance.admin.backup import BackupError, backup_database, check_backup, restore_database
from appliance.cli import main


@pytest.fixture(autouse=True)
def service_stopped(monkeypatch):
    """Whatever runs on this machine, the tests decide whether 'the service' is running."""
    monkeypatch.setattr(backup.service_process, "service_running", lambda: None)


def count(path, table="patients"):
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def add_patient(path, pid="p-new"):
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("INSERT INTO patients (id, first_name, last_name, dob) VALUES (?, 'Ada', 'Lovelace', '1815-12-10')",
                     [pid])
    conn.close()


def test_backup_writes_a_private_timestamped_copy_in_the_backup_folder(settings):
    result = backup_database(settings, now=datetime(2026, 5, 1, 3, 15, 0))
    assert result.path == settings.backup_dir / "appliance-20260501-031500.db"
    assert stat.S_IMODE(result.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(settings.backup_dir.stat().st_mode) == 0o700
    assert count(result.path) == count(settings.paths.database) > 0
    conn = sqlite3.connect(result.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"   # one self-contained file
    conn.close()
    check_backup(result.path)
    assert not [p for p in settings.backup_dir.iterdir() if p.name.startswith(".")]   # no leftovers


def test_backup_of_a_database_in_use_has_every_committed_row(settings):
    writer = sqlite3.connect(settings.paths.database, isolation_level=None)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("INSERT INTO patients (id, first_name, last_name, dob) VALUES ('p-wal', 'In', 'Wal', '2000-01-01')")
    writer.execute("BEGIN")
    writer.execute("INSERT INTO patients (id, first_name, last_name, dob) VALUES ('p-open', 'Not', 'Yet', '2000-01-01')")
    try:
        result = backup_database(settings, to=settings.paths.data_dir / "copy.db")
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    conn = sqlite3.connect(result.path)
    ids = {row[0] for row in conn.execute("SELECT id FROM patients")}
    conn.close()
    assert "p-wal" in ids and "p-open" not in ids


def test_backup_keeps_only_the_newest(box, settings):
    box.write_text(box.read_text() + "\n[data]\nbackups_kept = 3\n")
    from appliance.settings import load_settings

    settings = load_settings(box)
    settings.backup_dir.mkdir(mode=0o700)
    for day in range(1, 6):
        (settings.backup_dir / f"appliance-202604{day:02d}-031500.db").write_bytes(b"old")
    (settings.backup_dir / "keep-me.db").write_bytes(b"not a rotated backup")
    result = backup_database(settings, now=datetime(2026, 5, 1, 3, 15))
    left = sorted(p.name for p in settings.backup_dir.iterdir())
    assert left == ["appliance-20260404-031500.db", "appliance-20260405-031500.db", "appliance-20260501-031500.db",
                    "keep-me.db"]
    assert len(result.removed) == 3


def test_backup_to_an_existing_file_is_refused(settings, tmp_path):
    target = tmp_path / "taken.db"
    target.write_bytes(b"x")
    with pytest.raises(BackupError, match="already exists"):
        backup_database(settings, to=target)
    assert target.read_bytes() == b"x"


def test_restore_replaces_the_database_and_keeps_the_old_one(settings, tmp_path):
    saved = backup_database(settings, to=tmp_path / "saved.db").path
    before = count(settings.paths.database)
    add_patient(settings.paths.database)
    kept = restore_database(settings, saved)
    assert count(settings.paths.database) == before
    assert kept == settings.paths.database.with_name("appliance.db.before-restore")
    assert count(kept) == before + 1
    assert stat.S_IMODE(settings.paths.database.stat().st_mode) == 0o600
    conn = sqlite3.connect(settings.paths.database)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_restore_refuses_while_the_service_runs_unless_forced(settings, tmp_path, monkeypatch):
    saved = backup_database(settings, to=tmp_path / "saved.db").path
    add_patient(settings.paths.database)
    monkeypatch.setattr(backup.service_process, "service_running", lambda: "systemd reports appliance.service active")
    with pytest.raises(BackupError, match="systemctl stop appliance"):
        restore_database(settings, saved)
    assert count(settings.paths.database, "patients") == count(saved) + 1   # untouched
    restore_database(settings, saved, force=True)
    assert count(settings.paths.database) == count(saved)


def test_restore_checks_the_backup_first(settings, tmp_path):
    damaged = tmp_path / "damaged.db"
    data = bytearray(backup_database(settings, to=tmp_path / "good.db").path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    for start in range(page, len(data), page):   # scribble over every page header but the first
        data[start:start + 12] = b"\x5a" * 12
    damaged.write_bytes(bytes(data))
    original = settings.paths.database.read_bytes()
    with pytest.raises(BackupError, match="damaged.db"):
        restore_database(settings, damaged)
    assert settings.paths.database.read_bytes() == original
    assert not settings.paths.database.with_name("appliance.db.before-restore").exists()


def test_restore_refuses_a_database_that_is_not_the_appliances(settings, tmp_path):
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE notes (text)")
    conn.commit()
    conn.close()
    with pytest.raises(BackupError, match="not an appliance database"):
        restore_database(settings, other)


def test_cli_backup_restore_round_trip(settings, tmp_path):
    runner = CliRunner()
    target = tmp_path / "by-hand.db"
    done = runner.invoke(main, ["db", "backup", "--to", str(target)])
    assert done.exit_code == 0, done.output
    assert f"backed up to {target}" in done.output
    add_patient(settings.paths.database)
    done = runner.invoke(main, ["db", "restore", str(target)])
    assert done.exit_code == 0, done.output
    assert "before-restore" in done.output
    assert count(settings.paths.database) == count(target)


def test_cli_backup_default_name_and_restore_refusal(settings, monkeypatch):
    runner = CliRunner()
    done = runner.invoke(main, ["db", "backup"])
    assert done.exit_code == 0, done.output
    made = list(settings.backup_dir.glob("appliance-*.db"))
    assert len(made) == 1
    monkeypatch.setattr(backup.service_process, "service_running", lambda: "`appliance run` is running (pid 42)")
    refused = runner.invoke(main, ["db", "restore", str(made[0])])
    assert refused.exit_code == 2 and "pid 42" in refused.output


def test_backup_without_a_database_says_how_to_make_one(settings):
    os.unlink(settings.paths.database)
    with pytest.raises(BackupError, match="appliance db init"):
        backup_database(settings)


def test_db_init_replace_refuses_while_the_service_runs_and_always_keeps_a_backup(settings, monkeypatch):
    from .conftest import DEMO_CLINIC

    db = settings.paths.database
    add_patient(db)                                     # booked on a live call, say
    patients = count(db)
    runner = CliRunner()
    replace = ["db", "init", "--clinic", str(DEMO_CLINIC), "--db", str(db), "--replace"]
    monkeypatch.setattr(backup.service_process, "service_running", lambda: "`appliance run` is running (pid 42)")
    refused = runner.invoke(main, replace)
    assert refused.exit_code == 2 and "pid 42" in refused.output and "--force" in refused.output
    assert count(db) == patients and not list(settings.backup_dir.glob("before-replace-*.db"))
    done = runner.invoke(main, replace + ["--force"])
    assert done.exit_code == 0, done.output
    (kept,) = settings.backup_dir.glob("before-replace-*.db")
    assert count(kept) == patients and count(db) == patients - 1     # the old one is safe, the new one fresh
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    monkeypatch.setattr(backup.service_process, "service_running", lambda: None)
    again = runner.invoke(main, replace)                # not running: no --force needed, still a backup
    assert again.exit_code == 0 and len(list(settings.backup_dir.glob("before-replace-*.db"))) == 2
