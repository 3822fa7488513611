"""The checks on a played call: a name heard by ear is compared without its accents, a name typed is not."""

from __future__ import annotations

from pathlib import Path

import yaml
from anyascii import anyascii

from appliance.simulate.runner import judge, play_scenario
from appliance.simulate.scenario import load_scenario

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "new-patient-name-correction.yaml"


def _accented(tmp_path: Path) -> Path:
    """The scenario with its caller's surname written with accents ("Smÿth")."""
    text = SCENARIO.read_text(encoding="utf-8").replace("Smyth", "Smÿth")
    path = tmp_path / "accented.yaml"
    path.write_text(text, encoding="utf-8")
    assert "Smÿth" in yaml.safe_load(text)["expect"]["patients_created"][0]
    return path


def _played_without_accents(path: Path, flow, by_ear: bool):
    """The call played with every accent lost on the way, as a caller's words reach a transcriber."""
    scenario, clinic = load_scenario(path)
    played = play_scenario(scenario, clinic, flow, player=lambda engine, line: engine.turn(anyascii(line)))
    played.by_ear = by_ear
    return judge(path, played, flow)


def test_a_spoken_call_s_names_are_checked_without_accents(tmp_path, flow):
    verdict = _played_without_accents(_accented(tmp_path), flow, by_ear=True)
    assert verdict.passed, verdict.failures


def test_a_typed_call_s_names_are_checked_with_their_accents(tmp_path, flow):
    verdict = _played_without_accents(_accented(tmp_path), flow, by_ear=False)
    assert not verdict.passed and any("Smÿth" in f for f in verdict.failures), verdict.failures
