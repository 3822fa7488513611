"""Building an assembled model (split Whisper base) in the models folder.

The source parts stay in site-packages, untouched; each target file is written
beside its final name, hashed as it is written, and moved into place only when
its size and sha256 match the manifest, so a half-written or wrong file never
has the final name (and two processes assembling at once both end up right).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Callable

from .checksums import CHUNK, FileCheck, Stamps, check_file, size_text
from .errors import ModelUnavailable
from .manifest import Assembly, ModelSpec
from .package_files import describe, locate


def model_folder(spec: ModelSpec, models_dir: Path) -> Path:
    return models_dir / spec.name


def target_path(spec: ModelSpec, step: Assembly, models_dir: Path) -> Path:
    return model_folder(spec, models_dir) / step.target


def build(spec: ModelSpec, step: Assembly, models_dir: Path, stamps: Stamps | None,
          progress: Callable[[str], None] | None = None) -> FileCheck:
    """Write one target from its sources; raises ModelUnavailable when a source is missing or wrong."""
    target = target_path(spec, step, models_dir)
    sources: list[Path] = []
    for ref in step.join:
        found = locate(ref)
        listed = next(f for f in spec.files if f.at == ref)
        if found is None or not found.is_file():
            raise ModelUnavailable(spec.name, spec.part, describe(ref), f"its package file {ref} is not installed")
        if found.stat().st_size != listed.size:
            raise ModelUnavailable(spec.name, spec.part, found,
                                   f"package file {ref} is {found.stat().st_size:,} bytes, expected {listed.size:,}")
        sources.append(found)
    if progress is not None:
        joined = " + ".join(p.name for p in sources)
        verb = "joining" if len(sources) > 1 else "copying"
        progress(f"  {spec.name}: {verb} {joined} -> {target} ({size_text(step.size)})")
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    written = 0
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for source in sources:
                with source.open("rb") as handle:
                    while chunk := handle.read(CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        written += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        if written != step.size or digest.hexdigest() != step.sha256:
            what = (f"{written:,} bytes, expected {step.size:,}" if written != step.size
                    else "its sha256 differs from the manifest's")
            raise ModelUnavailable(spec.name, spec.part, target,
                                   f"joining {', '.join(step.join)} gave {what}: the package files are damaged")
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    stat = target.stat()
    if stamps is not None:
        stamps.record(target, stat, step.sha256)
    return FileCheck(target, step.size, step.sha256, "ok", stat.st_size, hashed=True, role="assembled")


def ensure_assembled(spec: ModelSpec, models_dir: Path, stamps: Stamps | None, *, rebuild_damaged: bool,
                     progress: Callable[[str], None] | None = None) -> list[FileCheck]:
    """Make every target exist: build missing ones (and damaged ones when asked); hash new ones.

    Without `rebuild_damaged` a damaged target is reported, not replaced: the
    caller (resolve) raises, naming the file, and `appliance models install`
    rebuilds it.
    """
    checks = []
    for step in spec.assemble:
        target = target_path(spec, step, models_dir)
        check = check_file(target, step.size, step.sha256, hashing="if-new", stamps=stamps, role="assembled")
        if check.state == "missing" or (not check.ok and rebuild_damaged):
            check = build(spec, step, models_dir, stamps, progress)
        checks.append(check)
    return checks
