"""Fake model packages on sys.path, a fake manifest describing them, and settings in a temporary folder."""

from __future__ import annotations

import textwrap

import pytest

from appliance.models import load_manifest
from appliance.settings import settings_from_mapping

from .fake_packages import CONFIG, DISTRIBUTIONS, GGUF, PART1, PART2, add_distribution, sha


@pytest.fixture
def fake_site(tmp_path, monkeypatch):
    """A folder on sys.path holding two 'split model' packages and one 'gguf' package."""
    site = tmp_path / "site"
    files = {
        "fake_part_one/data/model.bin.part1": PART1,
        "fake_part_one/data/config.json": CONFIG,
        "fake_part_two/data/model.bin.part2": PART2,
        "fake_llm/tiny.gguf": GGUF,
    }
    for name in ("fake_part_one", "fake_part_two", "fake_llm"):
        (site / name).mkdir(parents=True)
        # importing any of these would fail: the code must find them without importing
        (site / name / "__init__.py").write_text("raise RuntimeError('model packages are never imported')\n")
    for rel, data in files.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_bytes(data)
    for dist, version in DISTRIBUTIONS.items():
        add_distribution(site, dist, version)
    monkeypatch.syspath_prepend(str(site))
    return site


@pytest.fixture
def fake_manifest(tmp_path, fake_site):
    joined = PART1 + PART2
    text = textwrap.dedent(f"""
        schema = 1

        [[model]]
        name = "fake-stt"
        part = "stt"
        default = true
        description = "two parts joined"
        licence = "MIT"
        packages = ["fake-part-one==1.0", "fake-part-two==1.0"]
        kind = "assembled"
        path = "."
        files = [
            {{ at = "fake_part_one:data/model.bin.part1", size = {len(PART1)}, sha256 = "{sha(PART1)}" }},
            {{ at = "fake_part_two:data/model.bin.part2", size = {len(PART2)}, sha256 = "{sha(PART2)}" }},
            {{ at = "fake_part_one:data/config.json", size = {len(CONFIG)}, sha256 = "{sha(CONFIG)}" }},
        ]

        [[model.assemble]]
        target = "model.bin"
        join = ["fake_part_one:data/model.bin.part1", "fake_part_two:data/model.bin.part2"]
        size = {len(joined)}
        sha256 = "{sha(joined)}"

        [[model.assemble]]
        target = "config.json"
        join = ["fake_part_one:data/config.json"]
        size = {len(CONFIG)}
        sha256 = "{sha(CONFIG)}"

        [[model]]
        name = "fake-llm"
        part = "llm"
        default = true
        description = "a tiny gguf"
        licence = "Apache-2.0"
        packages = ["fake-llm==0.1"]
        kind = "package"
        path = "fake_llm:tiny.gguf"
        files = [{{ at = "fake_llm:tiny.gguf", size = {len(GGUF)}, sha256 = "{sha(GGUF)}" }}]

        [[model]]
        name = "fake-vad"
        part = "vad"
        default = true
        description = "ships inside a product package that is not installed"
        licence = "MIT"
        bundled_in = "not-installed-product==1.0"
        kind = "bundled"
        path = "not_installed_product:vad.onnx"
        files = [{{ at = "not_installed_product:vad.onnx", size = 3, sha256 = "{sha(b'abc')}" }}]
    """)
    path = tmp_path / "manifest.toml"
    path.write_text(text)
    return load_manifest(path)


@pytest.fixture
def settings(tmp_path):
    """Default model choices, the models folder in tmp."""
    return settings_from_mapping({"models": {"data_dir": str(tmp_path / "models")}})


@pytest.fixture
def fake_settings(tmp_path):
    return settings_from_mapping({"models": {"data_dir": str(tmp_path / "models"), "stt": "fake-stt",
                                             "llm": "fake-llm"}})



@pytest.fixture(scope="session")
def real_models_dir(tmp_path_factory):
    """A models folder where the real whisper-base has been assembled once for the whole session."""
    from appliance.models import resolve

    folder = tmp_path_factory.mktemp("real-models")
    resolve("stt", settings_from_mapping({"models": {"data_dir": str(folder)}}))
    return folder


@pytest.fixture
def real_copy(real_models_dir, tmp_path):
    """A models folder of our own holding the real assembled whisper-base (the big file hard-linked)."""
    import os
    import shutil

    folder = tmp_path / "models"
    (folder / "whisper-base").mkdir(parents=True)
    for source in (real_models_dir / "whisper-base").iterdir():
        target = folder / "whisper-base" / source.name
        if source.name == "model.bin":
            os.link(source, target)
        else:
            shutil.copy2(source, target)
    return folder
