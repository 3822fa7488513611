"""What is on this box: `appliance models list` (no hashing) and `appliance models verify` (hashes all)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..settings import Settings, load_settings
from .assemble import model_folder, target_path
from .checksums import FileCheck, Stamps, check_file
from .manifest import Manifest, ModelSpec, load_manifest
from .package_files import describe, locate
from .resolve import chosen_name

ChecksumState = Literal["verified", "not checked", "damaged", "missing", "not in manifest"]


@dataclass(frozen=True)
class VerifyResult:
    name: str
    part: str
    state: Literal["ok", "missing", "damaged"]
    required: bool                  # the configuration needs it (selected, default, or named on the command line)
    files: tuple[FileCheck, ...]

    @property
    def ok(self) -> bool:
        return self.state == "ok" or (self.state == "missing" and not self.required)

    @property
    def problems(self) -> list[str]:
        return [check.message() for check in self.files if not check.ok]


@dataclass(frozen=True)
class ModelStatus:
    name: str
    part: str
    kind: str                       # package | assembled | bundled | local
    selected: bool                  # the settings use it
    default: bool
    present: bool
    size_on_disk: int               # bytes of the usable model's files that exist
    licence: str
    checksum: ChecksumState
    path: Path | None
    description: str = ""


def model_files(spec: ModelSpec, models_dir: Path) -> list[tuple[Path, int, str, str]]:
    """(path, size, sha256, role) for every file of a model: sources and, when assembled, the results."""
    files = [(locate(f.at) or Path(describe(f.at)), f.size, f.sha256, "source" if spec.kind == "assembled" else "file")
             for f in spec.files]
    files += [(target_path(spec, step, models_dir), step.size, step.sha256, "assembled") for step in spec.assemble]
    return files


def _selected(settings: Settings, manifest: Manifest) -> set[str]:
    chosen = set()
    for part in ("stt", "tts", "llm", "vad", "turn"):
        try:
            chosen.add(chosen_name(part, settings, manifest))
        except ValueError:
            pass
    return chosen


def verify(names: list[str] | None = None, *, settings: Settings | None = None,
           manifest: Manifest | None = None) -> list[VerifyResult]:
    """Re-check every file's size and sha256 (no remembered checks).

    Without names: every model the settings use (required), and any other
    model with files on disk. Bundled models whose product package is not
    installed yet are reported missing but not required.
    """
    settings = settings or load_settings()
    manifest = manifest or load_manifest()
    stamps = Stamps(settings.models_dir)
    selected = _selected(settings, manifest)
    if names:
        unknown = [n for n in names if manifest.get(n) is None]
        if unknown:
            raise ValueError(f"unknown model {', '.join(map(repr, unknown))}; the manifest has: "
                             + ", ".join(manifest.names))
        specs = [manifest.get(n) for n in dict.fromkeys(names)]
    else:
        specs = list(manifest.models)
    results = []
    for spec in specs:
        required = bool(names) or (spec.name in selected and spec.kind != "bundled")
        files = model_files(spec, settings.models_dir)
        if not names and not required and not any(path.exists() for path, *_ in files):
            if spec.kind != "bundled":
                continue
        checks = tuple(check_file(path, size, sha, hashing="always", stamps=stamps, role=role)
                       for path, size, sha, role in files)
        if all(c.ok for c in checks):
            state = "ok"
        elif all(c.state == "missing" for c in checks):
            state = "missing"
        else:
            state = "damaged"
        results.append(VerifyResult(spec.name, spec.part, state, required, checks))
    return results


def inventory(*, settings: Settings | None = None, manifest: Manifest | None = None) -> list[ModelStatus]:
    """Every manifest model (and any local model the settings point at), without hashing."""
    settings = settings or load_settings()
    manifest = manifest or load_manifest()
    stamps = Stamps(settings.models_dir)
    selected = _selected(settings, manifest)
    rows = []
    for spec in manifest.models:
        usable = [(path, size, sha) for path, size, sha, role in model_files(spec, settings.models_dir)
                  if role != "source"]
        checks = [check_file(path, size, sha, hashing="never", stamps=stamps) for path, size, sha in usable]
        present = all(c.ok for c in checks)
        if any(c.state == "wrong size" for c in checks):
            checksum: ChecksumState = "damaged"
        elif not present:
            checksum = "missing"
        elif all(c.hashed for c in checks):
            checksum = "verified"
        else:
            checksum = "not checked"
        if spec.kind == "assembled":
            path = model_folder(spec, settings.models_dir)
        else:
            path = locate(spec.path)
        rows.append(ModelStatus(
            name=spec.name, part=spec.part, kind=spec.kind, selected=spec.name in selected, default=spec.default,
            present=present, size_on_disk=sum(c.found_size or 0 for c in checks), licence=spec.licence,
            checksum=checksum, path=path, description=spec.description))
    for part in ("stt", "tts", "llm"):
        choice = getattr(settings.models, part)
        if manifest.get(choice) is None:
            rows.append(_local_row(part, settings.relative_to_config(choice)))
    return rows


def _local_row(part: str, path: Path) -> ModelStatus:
    present = path.exists()
    if path.is_dir():
        size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    elif present:
        size = path.stat().st_size
        sidecar = path.with_name(path.name + ".json")
        if part == "tts" and sidecar.is_file():
            size += sidecar.stat().st_size
    else:
        size = 0
    return ModelStatus(name=path.name, part=part, kind="local", selected=True, default=False, present=present,
                       size_on_disk=size, licence="(local file: see its source)",
                       checksum="not in manifest" if present else "missing", path=path,
                       description="a local model named in the settings")
