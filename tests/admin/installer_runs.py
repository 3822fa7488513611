"""Running installer/install.sh and installer/make-bundle.sh in a folder (--root), never on this machine."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VENV = Path(sys.prefix)          # the checkout's virtualenv, with the appliance installed: --from-venv
LOG = Path("var/log/appliance-install.log")


def fake_bin(folder: Path, gpu: bool = False) -> Path:
    """A PATH folder whose nvidia-smi finds a GPU, or fails like a box without one."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "nvidia-smi"
    if gpu:
        script.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA RTX A2000 (UUID: GPU-00000000-fake)'\n")
    else:
        script.write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.' >&2\nexit 9\n")
    script.chmod(0o755)
    return folder


def clean_env(path_first: Path | None = None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("APPLIANCE_")}
    if path_first is not None:
        env["PATH"] = f"{path_first}:{env.get('PATH', '/usr/bin:/bin')}"
    return env


def install(root: Path, *args: str, src: Path = REPO, gpu: bool = False, models: bool = False,
            venv: Path | None = VENV) -> subprocess.CompletedProcess:
    """install.sh --root ROOT --from-venv VENV --skip-models ARGS (non-interactive, no network)."""
    command = ["bash", str(src / "installer" / "install.sh"), "--root", str(root)]
    if venv is not None:
        command += ["--from-venv", str(venv)]
    if not models:
        command.append("--skip-models")
    bin_dir = fake_bin(root.parent / f"{root.name}-bin-{'gpu' if gpu else 'nogpu'}", gpu=gpu)
    return subprocess.run(command + list(args), capture_output=True, text=True, timeout=600, env=clean_env(bin_dir),
                          stdin=subprocess.DEVNULL)


def source_copy(folder: Path) -> Path:
    """What install.sh reads from a checkout, copied so that a test can change the template."""
    for part in ("installer", "config", "systemd"):
        shutil.copytree(REPO / part, folder / part, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def snapshot(root: Path) -> dict:
    """Every file's mode, mtime and sha256, every link's target, every folder's mode (the log aside).

    Folder mtimes are left out: the doctor opens the database, whose -wal and -shm files
    appear and go again, which touches the data folder's mtime without changing anything in it.
    """
    tree = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel == LOG:
            continue
        info = path.lstat()
        if path.is_symlink():
            tree[str(rel)] = ("link", os.readlink(path))
        elif path.is_dir():
            tree[str(rel)] = ("dir", oct(info.st_mode))
        else:
            tree[str(rel)] = ("file", oct(info.st_mode), info.st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest())
    return tree


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o7777
