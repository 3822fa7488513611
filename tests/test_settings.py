"""appliance.settings: TOML settings with defaults, strict keys and errors that name the file and the key."""

import re
from pathlib import Path

import pytest

from appliance import paths
from appliance.settings import (TEMPLATE_PATH, ConfigError, Section, Settings, config_path, load_settings,
                                settings_from_mapping)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "appliance.toml"
    path.write_text(text)
    return path


def error_of(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load_settings(write(tmp_path, text))
    return str(caught.value)


def test_an_empty_file_gives_every_default(tmp_path):
    settings = load_settings(write(tmp_path, ""))
    assert settings.device.device == "cpu"
    assert settings.device.stt_compute_type == "int8"
    assert settings.device.llm_gpu_layers == 0
    assert settings.device.threads == 1
    assert (settings.models.stt, settings.models.tts, settings.models.llm) == ("whisper-base", "piper-joe",
                                                                              "smollm2-135m")
    assert settings.llm.classify is True and settings.llm.rephrase is False
    assert (settings.llm.rephrase_budget_ms, settings.llm.classify_budget_ms, settings.llm.max_tokens) == (600, 800, 48)
    assert settings.voice.silence_checkins_s == (10, 20, 40)
    assert settings.voice.sample_rate == 16000 and settings.voice.stt_beam_size == 1
    assert settings.paths.data_dir == paths.data_dir()
    assert settings.paths.database == paths.database_path()
    assert settings.paths.clinic == paths.clinic_path()
    assert settings.paths.flow == paths.flow_path()
    assert settings.models_dir == paths.data_dir() / "models"
    assert settings.source == tmp_path / "appliance.toml"


def test_the_template_loads_to_the_defaults():
    assert load_settings(TEMPLATE_PATH).model_dump() == Settings().model_dump()


def test_the_template_shows_every_key_with_a_comment_line_above_it():
    lines = TEMPLATE_PATH.read_text().splitlines()
    for section_name, field in Settings.model_fields.items():
        section = field.annotation
        assert f"[{section_name}]" in lines, f"[{section_name}] is missing from {TEMPLATE_PATH.name}"
        start = lines.index(f"[{section_name}]")
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")), len(lines))
        body = lines[start + 1:end]
        for key in section.model_fields:
            at = [i for i, line in enumerate(body) if re.match(rf"^#? ?{key} = ", line)]
            assert at, f"{section_name}.{key} is missing from {TEMPLATE_PATH.name}"
            comment = body[at[0] - 1]
            assert comment.startswith("# ") and " = " not in comment.split("(")[0], f"{section_name}.{key} needs a comment"


def test_errors_name_the_file_and_the_key_path(tmp_path):
    message = error_of(tmp_path, "[voice]\nsilence_checkins_s = [10, -5, 40]\n")
    assert message == f"{tmp_path / 'appliance.toml'}: voice.silence_checkins_s[1]: must be greater than 0"


def test_check_ins_must_grow(tmp_path):
    assert "voice.silence_checkins_s[2]: must be later" in error_of(tmp_path, "[voice]\nsilence_checkins_s = [10, 20, 15]")


@pytest.mark.parametrize("text, expected", [
    ("[voice]\nsilence_checkin = [1]\n", "voice.silence_checkin: unknown key (known keys: sample_rate,"),
    ("[telephony]\nport = 5060\n", "telephony: unknown section (known sections: device, models, llm, voice, sip, data, paths)"),
    ("[device]\ndevice = 'gpu'\n", "device.device: must be 'cpu' or 'cuda'"),
    ("[device]\nllm_gpu_layers = 20\n", 'device.llm_gpu_layers: must be 0 when device = "cpu"'),
    ("[voice]\nsample_rate = 22050\n", "voice.sample_rate: must be 8000 or 16000"),
    ("[llm]\nclassify_budget_ms = 0\n", "llm.classify_budget_ms: must be greater than 0"),
    ("[models]\nstt = ''\n", "models.stt: must not be empty"),
    ("voice = 3\n", "voice: must be a [voice] table of keys"),
    ("[voice\n", "not valid TOML"),
])
def test_bad_values_are_named(tmp_path, text, expected):
    message = error_of(tmp_path, text)
    assert message.startswith(str(tmp_path / "appliance.toml") + ": ")
    assert expected in message


def test_cuda_changes_the_unset_defaults_only(tmp_path):
    settings = load_settings(write(tmp_path, "[device]\ndevice = 'cuda'\n"))
    assert (settings.device.stt_compute_type, settings.device.llm_gpu_layers) == ("float16", -1)
    settings = load_settings(write(tmp_path, "[device]\ndevice = 'cuda'\nstt_compute_type = 'int8_float16'\n"
                                             "llm_gpu_layers = 12\n"))
    assert (settings.device.stt_compute_type, settings.device.llm_gpu_layers) == ("int8_float16", 12)


def test_relative_paths_are_taken_from_the_file_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("APPLIANCE_DB", raising=False)
    settings = load_settings(write(tmp_path, "[paths]\ndata_dir = 'data'\n[models]\ndata_dir = 'cache'\n"))
    assert settings.paths.data_dir == tmp_path / "data"
    assert settings.paths.database == tmp_path / "data" / "appliance.db"
    assert settings.models_dir == tmp_path / "cache"
    assert settings.relative_to_config("voices/x.onnx") == tmp_path / "voices" / "x.onnx"


def test_lookup_order(tmp_path, monkeypatch):
    monkeypatch.setenv("APPLIANCE_CONFIG", str(write(tmp_path, "[llm]\nmax_tokens = 7\n")))
    assert config_path() == tmp_path / "appliance.toml"
    assert load_settings().llm.max_tokens == 7
    monkeypatch.setenv("APPLIANCE_CONFIG", str(tmp_path / "absent.toml"))
    with pytest.raises(ConfigError, match=r"absent\.toml: no such settings file \(named by \$APPLIANCE_CONFIG\)"):
        load_settings()
    monkeypatch.delenv("APPLIANCE_CONFIG")
    expected = paths.ETC / "appliance.toml" if (paths.ETC / "appliance.toml").is_file() else TEMPLATE_PATH
    assert config_path() == expected


def test_settings_are_read_only_and_sections_are_strict():
    settings = settings_from_mapping({})
    with pytest.raises(Exception):
        settings.llm.max_tokens = 3
    assert all(issubclass(field.annotation, Section) for field in Settings.model_fields.values())
