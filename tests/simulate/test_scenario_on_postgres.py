"""A whole caller scenario, played in text through the engine with its clinic in the shared PostgreSQL store: the
engine's tools, guards and call record work there as on the SQLite file, and the checks read PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from appliance.simulate.runner import judge, play_scenario
from appliance.simulate.scenario import load_scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


@pytest.mark.parametrize("name", ["book-returning-patient-with-caller-id", "cancel-one-of-several",
                                  "callback-request-withheld-number"])
def test_a_scenario_plays_and_passes_on_postgresql(name, postgres_dsn, flow):
    path = SCENARIOS / f"{name}.yaml"
    scenario, clinic = load_scenario(path)
    played = play_scenario(scenario, clinic, flow, db_path=postgres_dsn)
    result = judge(path, played, flow)
    assert result.passed, result.failures
    conn = played.store.db.conn
    assert conn.dialect.NAME == "PostgreSQL"
    ((tools,),) = conn.execute("SELECT count(*) FROM tool_calls WHERE call_id = ?", [played.call_id]).fetchall()
    assert tools == len(result.tools) > 0
    played.store.db.close()
