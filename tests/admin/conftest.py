"""An installed-looking appliance in a temporary folder: settings file, private data folder, database."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from appliance.clinic import load_clinic_file
from appliance.settings import load_settings
from appliance.store.database import build_database

ROOT = Path(__file__).resolve().parents[2]
DEMO_CLINIC = ROOT / "config" / "clinic.demo.yaml"
GGUF = b"GGUF" + bytes(range(256)) * 4


def write_config(folder: Path, extra: str = "") -> Path:
    """appliance.toml with its data folder in `folder`, and small local models (no hashing of real ones)."""
    models = folder / "local-models"
    (models / "stt").mkdir(parents=True, exist_ok=True)
    (models / "stt" / "model.bin").write_bytes(b"weights")
    (models / "stt" / "config.json").write_text("{}")
    (models / "voice.onnx").write_bytes(b"onnx")
    (models / "voice.onnx.json").write_text("{}")
    (models / "tiny.gguf").write_bytes(GGUF)
    config = folder / "appliance.toml"
    config.write_text(textwrap.dedent(f"""
        [models]
        stt = "{models / 'stt'}"
        tts = "{models / 'voice.onnx'}"
        llm = "{models / 'tiny.gguf'}"
        data_dir = "{folder / 'data' / 'models'}"

        [paths]
        data_dir = "{folder / 'data'}"
        clinic = "{DEMO_CLINIC}"
    """) + textwrap.dedent(extra))
    return config


@pytest.fixture(scope="session")
def demo_database(tmp_path_factory) -> Path:
    """The demo clinic built once; tests copy it."""
    target = tmp_path_factory.mktemp("demo-db") / "appliance.db"
    build_database(load_clinic_file(DEMO_CLINIC), target)
    return target


@pytest.fixture
def box(tmp_path, demo_database, monkeypatch):
    """A settings file, a 0700 data folder and a 0600 database, as the installer leaves them."""
    for name in ("APPLIANCE_CONFIG", "APPLIANCE_DATA", "APPLIANCE_DB", "APPLIANCE_CLINIC"):
        monkeypatch.delenv(name, raising=False)
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    os.chmod(data, 0o700)
    db = data / "appliance.db"
    db.write_bytes(demo_database.read_bytes())
    os.chmod(db, 0o600)
    config = write_config(tmp_path)
    monkeypatch.setenv("APPLIANCE_CONFIG", str(config))
    return config


@pytest.fixture
def settings(box):
    return load_settings(box)
