"""The phone service with the shared PostgreSQL store configured: it loads the clinic into an empty store (once,
however many boxes start), its calls' engines book there, a busy caller's callback request goes there, and its
restart closes only the calls this box left open."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import psycopg
import pytest

from appliance.engine.types import CallInfo
from appliance.settings import ConfigError, load_settings
from appliance.sip.service import PhoneService

ROOT = Path(__file__).resolve().parents[2]
BOOKING = ["Hi, I'd like to book a remedial massage please", "Sarah Johnson", "the fourth of March, nineteen eighty five",
           "Neutral Bay please", "Thursday afternoon", "the first one", "yes please"]


def service_for(tmp_path: Path, dsn: str) -> PhoneService:
    dsn_file = tmp_path / "database.dsn"
    dsn_file.write_text(dsn + "\n")
    dsn_file.chmod(0o600)
    config = tmp_path / "appliance.toml"
    config.write_text(f'[data]\ndatabase_file = "{dsn_file}"\n[paths]\ndata_dir = "{tmp_path / "data"}"\n'
                      f'clinic = "{ROOT / "config" / "clinic.demo.yaml"}"\n')
    (tmp_path / "data").mkdir(exist_ok=True)
    service = PhoneService(load_settings(config, warn=False), serve_monitor=False)
    service.runtime = SimpleNamespace(classifier=None)
    return service


def test_the_service_loads_books_and_recovers_on_the_shared_store(tmp_path, postgres_dsn):
    service = service_for(tmp_path, postgres_dsn)
    assert service._prepare_clinic()                        # the greeting, from the clinic it loaded
    assert service_for(tmp_path, postgres_dsn)._prepare_clinic()   # a second box finds it loaded
    service._open_journal()

    engine = service._default_engine(CallInfo(caller_id="0491 570 006"))
    engine.start(CallInfo(caller_id="0491 570 006"))
    for line in BOOKING:
        engine.turn(line)
    assert not engine.ended                                 # the box "crashes" mid-call after booking
    callback = service._callback_request("call-busy", "0491 570 006")

    with psycopg.connect(postgres_dsn) as conn:
        another = conn.execute("INSERT INTO calls (id, started_at, box) VALUES ('call-elsewhere', "
                               "'2026-11-24T09:00:00', 'another-box') RETURNING id").fetchone()[0]
        conn.commit()
    service.maintain(recover=True)
    assert service.recovery.interrupted == [engine.ctx.call_id]
    with psycopg.connect(postgres_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM appointments WHERE created_by_call = %s",
                            [engine.ctx.call_id]).fetchone() == (1,)
        assert conn.execute("SELECT phone FROM callback_requests WHERE id = %s", [callback]).fetchone() == (
            "+61491570006",)
        assert conn.execute("SELECT ended_at FROM calls WHERE id = %s", [another]).fetchone() == (None,)


def test_the_service_refuses_a_dsn_file_others_can_read(tmp_path, postgres_dsn):
    service = service_for(tmp_path, postgres_dsn)
    (tmp_path / "database.dsn").chmod(0o640)
    with pytest.raises(ConfigError, match="readable by others"):
        service._prepare_clinic()
