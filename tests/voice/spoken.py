"""Helpers for the voice tests: settings around the real models, scenarios with a changed caller script."""

from __future__ import annotations

from pathlib import Path

import yaml

from appliance.settings import load_settings, settings_from_mapping
from appliance.simulate.scenario import scenario_from_mapping

HERE = Path(__file__).resolve().parent
HOURS_CALL = HERE / "hours-then-goodbye.yaml"


def voice_settings(data_dir: Path, **voice):
    """Default models (assembled where the checkout keeps them), no LLM, data in `data_dir`, `voice` overrides."""
    base = load_settings()
    return settings_from_mapping({
        "device": {"device": "cpu"},
        "models": {"stt": base.models.stt, "tts": base.models.tts, "data_dir": str(base.models_dir)},
        "llm": {"classify": False, "rephrase": False},
        "voice": voice,
        "paths": {"data_dir": str(data_dir)},
    })


def scenario(path: Path = HOURS_CALL, *, opening: str | None = None, **answers):
    """A scenario file with the caller's opening or answers (by waiting_for) replaced: (Scenario, clinic)."""
    data = yaml.safe_load(path.read_text())
    if opening is not None:
        data["caller"]["opening"] = opening
    data["caller"]["answers"].update(answers)
    return scenario_from_mapping(data)
