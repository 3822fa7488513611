"""models/manifest.toml: which package ships each model, what is in it, and how to assemble it.

The manifest is checked when it is read: unknown keys, loose version pins,
malformed checksums and assembly steps that use files the model does not list
are errors naming the file and the key.
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .. import paths
from .errors import ManifestError

MANIFEST_PATH = paths.REPO_ROOT / "models" / "manifest.toml"

PARTS = ("stt", "tts", "llm", "vad", "turn")
Part = Literal["stt", "tts", "llm", "vad", "turn"]

_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?P<extras>\[[A-Za-z0-9._,-]+\])?==(?P<version>[A-Za-z0-9.+!-]+)$")
_REF = re.compile(r"^(?P<module>[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*):(?P<path>[^:]+)$")
_SHA256 = r"^[0-9a-f]{64}$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Requirement(_Strict):
    """An exact pip pin: `name[extras]==version`."""

    text: str
    name: str
    version: str

    @classmethod
    def parse(cls, text: str) -> Requirement:
        match = _PIN.match(text.strip())
        if match is None:
            raise ValueError(f"{text!r} is not an exact pin like 'package==1.2.3'")
        return cls(text=text.strip(), name=match["name"], version=match["version"])


def _ref_parts(ref: str) -> tuple[str, PurePosixPath]:
    match = _REF.match(ref)
    if match is None:
        raise ValueError(f"{ref!r} must be 'module:relative/path'")
    rel = PurePosixPath(match["path"])
    if rel.is_absolute() or ".." in rel.parts:
        raise ValueError(f"{ref!r}: the path must stay inside the package")
    return match["module"], rel


class PackageFile(_Strict):
    """A file inside an installed package: `module:relative/path`, its size and sha256."""

    at: str
    size: int = Field(ge=0)
    sha256: str = Field(pattern=_SHA256)

    @field_validator("at")
    @classmethod
    def _ref(cls, value: str) -> str:
        _ref_parts(value)
        return value

    @property
    def module(self) -> str:
        return _ref_parts(self.at)[0]

    @property
    def relative(self) -> PurePosixPath:
        return _ref_parts(self.at)[1]


class Assembly(_Strict):
    """One file of an assembled model: `join` (package files, in order) written to `target`."""

    target: str
    join: tuple[str, ...] = Field(min_length=1)
    size: int = Field(ge=0)
    sha256: str = Field(pattern=_SHA256)

    @field_validator("target")
    @classmethod
    def _inside(cls, value: str) -> str:
        rel = PurePosixPath(value)
        if not value or rel.is_absolute() or ".." in rel.parts:
            raise ValueError(f"{value!r} must be a relative path inside the model's folder")
        return value


class ModelSpec(_Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")
    part: Part
    default: bool = False
    description: str
    licence: str
    packages: tuple[str, ...] = ()
    runtime: tuple[str, ...] = ()
    build_env: dict[str, str] = {}
    bundled_in: str | None = None
    kind: Literal["package", "assembled", "bundled"]
    path: str
    files: tuple[PackageFile, ...] = Field(min_length=1)
    assemble: tuple[Assembly, ...] = ()

    @field_validator("packages", "runtime")
    @classmethod
    def _pins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for text in value:
            Requirement.parse(text)
        return value

    @model_validator(mode="after")
    def _consistent(self) -> ModelSpec:
        listed = {f.at for f in self.files}
        if self.kind == "assembled":
            if not self.assemble:
                raise ValueError('kind "assembled" needs [[model.assemble]] steps')
            for step in self.assemble:
                unknown = [ref for ref in step.join if ref not in listed]
                if unknown:
                    raise ValueError(f"assemble {step.target}: {', '.join(unknown)} is not in files")
                if len(step.join) == 1:
                    source = next(f for f in self.files if f.at == step.join[0])
                    if (source.size, source.sha256) != (step.size, step.sha256):
                        raise ValueError(f"assemble {step.target}: a copy must have its source's size and sha256")
        else:
            _ref_parts(self.path)
            if self.assemble:
                raise ValueError(f'kind "{self.kind}" has no assemble steps')
        if self.kind == "bundled":
            if self.bundled_in is None:
                raise ValueError('kind "bundled" needs bundled_in (the package that ships it)')
            Requirement.parse(self.bundled_in)
        elif not self.packages:
            raise ValueError("packages is empty")
        return self

    @property
    def requirements(self) -> tuple[Requirement, ...]:
        return tuple(Requirement.parse(t) for t in self.packages)

    @property
    def runtime_requirements(self) -> tuple[Requirement, ...]:
        return tuple(Requirement.parse(t) for t in self.runtime)

    @property
    def size(self) -> int:
        """Bytes the usable model takes (the assembled files, or the package files)."""
        if self.kind == "assembled":
            return sum(step.size for step in self.assemble)
        return sum(f.size for f in self.files)


class Manifest(_Strict):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_version: Literal[1] = Field(alias="schema")
    model: tuple[ModelSpec, ...]
    source: Path | None = Field(default=None, exclude=True)

    @field_validator("model")
    @classmethod
    def _unique(cls, value: tuple[ModelSpec, ...]) -> tuple[ModelSpec, ...]:
        seen: set[str] = set()
        for spec in value:
            if spec.name in seen:
                raise ValueError(f"model {spec.name!r} is listed twice")
            seen.add(spec.name)
        return value

    @property
    def models(self) -> tuple[ModelSpec, ...]:
        return self.model

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.model)

    def get(self, name: str) -> ModelSpec | None:
        return next((spec for spec in self.model if spec.name == name), None)

    def default_for(self, part: str) -> ModelSpec | None:
        return next((spec for spec in self.model if spec.part == part and spec.default), None)

    def for_part(self, part: str) -> tuple[ModelSpec, ...]:
        return tuple(spec for spec in self.model if spec.part == part)


def load_manifest(path: str | Path | None = None) -> Manifest:
    """Read and check the manifest (default: models/manifest.toml in the checkout)."""
    chosen = Path(path) if path is not None else MANIFEST_PATH
    return _load(chosen.resolve(), chosen.stat().st_mtime_ns if chosen.exists() else 0)


@lru_cache(maxsize=8)
def _load(path: Path, _mtime_ns: int) -> Manifest:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{path}: the model manifest is missing (it ships with the appliance)") from None
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}: not valid TOML: {exc}") from None
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as exc:
        raise ManifestError("\n".join(f"{path}: {_where(err['loc'], data)}: {err['msg'].removeprefix('Value error, ')}"
                                      for err in exc.errors())) from None
    return manifest.model_copy(update={"source": path})


def _where(loc: tuple, data: dict) -> str:
    """`model[whisper-base].files[2].sha256` rather than `model.0.files.2.sha256`."""
    text = ""
    node = data
    for part in loc:
        if isinstance(part, int):
            label = part
            if isinstance(node, list) and part < len(node):
                item = node[part]
                if isinstance(item, dict) and isinstance(item.get("name"), str):
                    label = item["name"]
                node = item
            text += f"[{label}]"
        else:
            text += ("." if text else "") + str(part)
            node = node.get(part) if isinstance(node, dict) else None
    return text or "(top level)"
