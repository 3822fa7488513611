import os
import sqlite3
import stat

import pytest

from appliance.store import ClinicStore, DatabaseFileError, build_database, open_database
from appliance.store.database import SCHEMA_VERSION

TABLES = {
    "schema_version", "clinic", "locations", "services", "practitioners", "practitioner_services",
    "practitioner_locations", "opening_hours", "patients", "appointments", "callback_requests", "waitlist",
    "calls", "turns", "transitions", "tool_calls", "journal_replayed",
}


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def loose_umask():
    old = os.umask(0o000)
    yield
    os.umask(old)


def test_new_file_is_private_even_with_a_loose_umask(tmp_path, loose_umask):
    # the owner writes, the front desk's group reads (the monitor), nobody else
    path = tmp_path / "clinic.db"
    db = open_database(path)
    db["calls"].insert({"id": "c", "started_at": "2026-11-23T09:05:00"})
    assert mode_of(path) == 0o640
    for suffix in ("-wal", "-shm"):
        side = tmp_path / f"clinic.db{suffix}"
        if side.exists():
            assert mode_of(side) == 0o640
    db.close()


def test_existing_file_keeps_its_mode(tmp_path):
    path = tmp_path / "clinic.db"
    open_database(path).close()
    os.chmod(path, 0o640)
    open_database(path).close()
    assert mode_of(path) == 0o640


def test_wal_and_foreign_keys(tmp_path):
    db = open_database(tmp_path / "clinic.db")
    assert db.journal_mode == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with pytest.raises(sqlite3.IntegrityError):
        db.execute("INSERT INTO turns (call_id, seq) VALUES ('no-such-call', 0)")
    db.close()


def test_all_tables_and_indexes(tmp_path):
    db = open_database(tmp_path / "clinic.db")
    assert TABLES <= set(db.table_names())
    indexed = {tuple(index.columns) for index in db["appointments"].indexes}
    assert ("practitioner_id", "start") in indexed and ("patient_id", "start") in indexed
    for table in ("turns", "transitions", "tool_calls"):
        assert any(index.columns[0] == "call_id" for index in db[table].indexes), table
    timing = {"speech_start", "speech_end", "stt_ms", "engine_ms", "llm_ms", "tts_first_audio_ms",
              "agent_speech_start", "agent_speech_end"}
    assert timing <= set(db["turns"].columns_dict)
    db.close()


def test_opening_is_idempotent(tmp_path):
    path = tmp_path / "clinic.db"
    db = open_database(path)
    db["calls"].insert({"id": "c1", "started_at": "2026-11-23T09:05:00"})
    db.close()
    db = open_database(path)
    assert db["calls"].count == 1
    assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    db.close()


def test_memory_database():
    db = open_database(":memory:")
    assert TABLES <= set(db.table_names())
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "clinic.db"
    db = open_database(path)
    db.execute("UPDATE schema_version SET version = ?", [SCHEMA_VERSION + 1])
    db.close()
    with pytest.raises(DatabaseFileError, match="newer"):
        open_database(path)


def test_not_a_database(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("this is not sqlite " * 100)
    with pytest.raises(DatabaseFileError, match=str(path)):
        open_database(path)


# -- build_database ----------------------------------------------------------


def test_build_database(tmp_path, clinic, loose_umask):
    path = build_database(clinic, tmp_path / "var" / "clinic.db")
    assert path == tmp_path / "var" / "clinic.db"
    assert mode_of(path) == 0o640
    assert sorted(p.name for p in path.parent.iterdir()) == ["clinic.db"]  # no temp or -wal left over
    db = open_database(path)
    store = ClinicStore(db)
    assert store.profile() == clinic.profile()
    assert store.catalog() == clinic.catalog()
    assert store.appointment("a1").patient_id == "p1"
    assert db.journal_mode == "wal"
    db.close()


def test_build_refuses_an_existing_file(tmp_path, clinic):
    path = tmp_path / "clinic.db"
    path.write_bytes(b"precious")
    with pytest.raises(ValueError) as caught:
        build_database(clinic, path)
    assert str(path) in str(caught.value) and "--replace" in str(caught.value)
    assert path.read_bytes() == b"precious"


def test_build_replace(tmp_path, clinic):
    path = tmp_path / "clinic.db"
    build_database(clinic, path)
    db = open_database(path)
    ClinicStore(db).cancel_appointment("a1")
    db.close()
    build_database(clinic, path, replace=True)
    db = open_database(path)
    assert ClinicStore(db).appointment("a1").status == "booked"
    db.close()


def test_build_failure_writes_nothing(tmp_path, clinic, monkeypatch):
    def broken(self, clinic):
        raise RuntimeError("boom")

    monkeypatch.setattr(ClinicStore, "load_clinic", broken)
    with pytest.raises(RuntimeError):
        build_database(clinic, tmp_path / "clinic.db")
    assert list(tmp_path.iterdir()) == []


def test_build_failure_keeps_the_old_database(tmp_path, clinic, monkeypatch):
    path = tmp_path / "clinic.db"
    build_database(clinic, path)
    before = path.read_bytes()

    def broken(self, clinic):
        raise RuntimeError("boom")

    monkeypatch.setattr(ClinicStore, "load_clinic", broken)
    with pytest.raises(RuntimeError):
        build_database(clinic, path, replace=True)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clinic.db"]


def test_a_bad_clinic_file_never_reaches_the_database(tmp_path):
    from appliance.clinic import ClinicFileError, load_clinic_file

    source = tmp_path / "clinic.yaml"
    source.write_text("name: x\ntimezone: Mars/Olympus\n")
    with pytest.raises(ClinicFileError):
        build_database(load_clinic_file(source), tmp_path / "clinic.db")
    assert not (tmp_path / "clinic.db").exists()


def test_processes_opening_a_new_file_together_all_get_the_database(tmp_path):
    """Switching a new file to WAL needs it to itself for a moment, and SQLite refuses at once, without waiting
    out busy_timeout, while another process is opening it too (the demo and its monitor feed)."""
    from concurrent.futures import ProcessPoolExecutor

    paths = [tmp_path / f"new-{n}.db" for n in range(12)]
    with ProcessPoolExecutor(max_workers=3) as pool:
        for path in paths:
            opened = [pool.submit(_open_and_count_tables, path) for _ in range(3)]
            assert all(future.result() == opened[0].result() > 0 for future in opened)


def _open_and_count_tables(path) -> int:
    db = open_database(path)
    try:
        return len(db.table_names())
    finally:
        db.close()
