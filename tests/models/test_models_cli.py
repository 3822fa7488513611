"""`appliance models list | verify | install` and their exit codes."""

import pytest
from click.testing import CliRunner

from appliance.cli import main

from .fake_packages import flip_byte


@pytest.fixture
def run(monkeypatch, tmp_path):
    def invoke(models_dir, *args):
        config = tmp_path / "appliance.toml"
        config.write_text(f"[models]\ndata_dir = '{models_dir}'\n")
        monkeypatch.setenv("APPLIANCE_CONFIG", str(config))
        return CliRunner().invoke(main, ["models", *args])
    return invoke


def test_list_shows_a_table_of_every_model(run, real_models_dir):
    result = run(real_models_dir, "list")
    assert result.exit_code == 0, result.output
    header, *rows = result.output.splitlines()
    assert header.split() == ["NAME", "PART", "KIND", "PRESENT", "SIZE", "CHECKSUM", "LICENCE"]
    whisper = next(row for row in rows if " whisper-base " in row)
    assert whisper.startswith("*") and "147.9 MB" in whisper and "MIT" in whisper
    assert any(" smollm2-135m " in row and "Apache-2.0" in row for row in rows)


def test_verify_passes_on_good_models(run, real_models_dir):
    result = run(real_models_dir, "verify", "whisper-base", "smollm2-135m")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith("OK      whisper-base (stt): 9 file(s)")


def test_verify_fails_naming_the_model_and_the_file(run, real_copy):
    flip_byte(real_copy / "whisper-base" / "tokenizer.json", offset=100)
    result = run(real_copy, "verify")
    assert result.exit_code == 1
    assert "FAILED  whisper-base (stt): damaged" in result.output
    assert f"{real_copy / 'whisper-base' / 'tokenizer.json'}: has the right size but the wrong sha256" in result.output
    assert "fix: run `appliance models install`" in result.output


def test_verify_fails_on_a_truncated_model_file(run, real_copy):
    with open(real_copy / "whisper-base" / "vocabulary.txt", "r+b") as handle:
        handle.truncate(1000)
    result = run(real_copy, "verify", "whisper-base")
    assert result.exit_code == 1
    assert "vocabulary.txt: 1,000 bytes, expected 459,861 (damaged or truncated)" in result.output


def test_unknown_names_and_bad_settings_exit_2(run, real_models_dir, tmp_path, monkeypatch):
    result = run(real_models_dir, "verify", "whisper-huge")
    assert result.exit_code == 2 and "unknown model 'whisper-huge'" in result.output
    (tmp_path / "bad.toml").write_text("[models]\nstt_model = 'x'\n")
    monkeypatch.setenv("APPLIANCE_CONFIG", str(tmp_path / "bad.toml"))
    result = CliRunner().invoke(main, ["models", "list"])
    assert result.exit_code == 2 and "bad.toml: models.stt_model: unknown key" in result.output
