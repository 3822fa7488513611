"""Checking model files by size and sha256, and remembering which were checked.

Hashing every model at every start would cost seconds, so a successful sha256
check is remembered in `<models dir>/.verified.json` with the file's size and
modification time; while both are unchanged the size check is enough. Any
write to the file (a flipped byte, a truncation, a reinstall) changes them and
the next check hashes again. `appliance models verify` always hashes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

log = logging.getLogger("appliance.models")

STAMP_NAME = ".verified.json"
CHUNK = 1 << 20

FileState = Literal["ok", "missing", "wrong size", "wrong checksum"]
Hashing = Literal["always", "if-new", "never"]


@dataclass(frozen=True)
class FileCheck:
    """One file of a model, checked against the manifest."""

    path: Path
    size: int                  # expected bytes
    sha256: str                # expected checksum
    state: FileState
    found_size: int | None = None
    hashed: bool = False       # True when its sha256 was computed (or remembered) and matched
    role: str = "file"         # "file", "source" (a package file an assembled model is built from) or "assembled"

    @property
    def ok(self) -> bool:
        return self.state == "ok"

    def problem(self) -> str:
        """What is wrong, starting with the file's name ("model.bin is missing")."""
        return f"{self.path.name} {self._what()}"

    def message(self) -> str:
        """What is wrong, starting with the file's full path."""
        return f"{self.path}: {self._what().removeprefix('is ')}"

    def _what(self) -> str:
        if self.state == "missing":
            return "is missing"
        if self.state == "wrong size":
            return f"is {self.found_size:,} bytes, expected {self.size:,} (damaged or truncated)"
        if self.state == "wrong checksum":
            return f"has the right size but the wrong sha256 (expected {self.sha256[:12]}...): damaged"
        return "is ok"


def size_text(size: int) -> str:
    """145.2 MB, 2.3 kB, 14 bytes."""
    if size >= 1_000_000:
        return f"{size / 1e6:,.1f} MB"
    if size >= 1_000:
        return f"{size / 1e3:,.1f} kB"
    return f"{size} bytes"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class Stamps:
    """The record of files whose sha256 matched, keyed by absolute path."""

    def __init__(self, models_dir: Path):
        self.file = models_dir / STAMP_NAME
        self._entries: dict[str, dict] | None = None

    def _load(self) -> dict[str, dict]:
        if self._entries is None:
            try:
                self._entries = json.loads(self.file.read_text(encoding="utf-8"))
                if not isinstance(self._entries, dict):
                    self._entries = {}
            except (OSError, ValueError):
                self._entries = {}
        return self._entries

    def fresh(self, path: Path, stat: os.stat_result, sha256: str) -> bool:
        entry = self._load().get(str(path))
        return (isinstance(entry, dict) and entry.get("sha256") == sha256 and entry.get("size") == stat.st_size
                and entry.get("mtime_ns") == stat.st_mtime_ns)

    def record(self, path: Path, stat: os.stat_result, sha256: str) -> None:
        entries = self._load()
        entry = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha256}
        if entries.get(str(path)) == entry:
            return   # already known: a re-check (`models verify`, `doctor`) leaves the file untouched
        entries[str(path)] = entry
        self._save()

    def forget(self, path: Path) -> None:
        if self._load().pop(str(path), None) is not None:
            self._save()

    def _save(self) -> None:
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".verified.", dir=self.file.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(self._entries, handle, indent=1, sort_keys=True)
            os.chmod(tmp, 0o644)
            os.replace(tmp, self.file)
        except OSError as exc:  # a read-only data folder: checks still work, they just hash again next time
            log.debug("cannot record verified checksums in %s: %s", self.file, exc)


def check_file(path: Path, size: int, sha256: str, *, hashing: Hashing, stamps: Stamps | None,
               role: str = "file") -> FileCheck:
    """Check one file: its size always; its sha256 always, never, or only when not remembered."""
    try:
        stat = path.stat()
    except OSError:
        return FileCheck(path, size, sha256, "missing", role=role)
    if not path.is_file():
        return FileCheck(path, size, sha256, "missing", role=role)
    if stat.st_size != size:
        if stamps is not None:
            stamps.forget(path)
        return FileCheck(path, size, sha256, "wrong size", stat.st_size, role=role)
    if hashing == "never":
        remembered = stamps is not None and stamps.fresh(path, stat, sha256)
        return FileCheck(path, size, sha256, "ok", stat.st_size, hashed=remembered, role=role)
    if hashing == "if-new" and stamps is not None and stamps.fresh(path, stat, sha256):
        return FileCheck(path, size, sha256, "ok", stat.st_size, hashed=True, role=role)
    if sha256_of(path) != sha256:
        if stamps is not None:
            stamps.forget(path)
        return FileCheck(path, size, sha256, "wrong checksum", stat.st_size, role=role)
    if stamps is not None:
        stamps.record(path, stat, sha256)
    return FileCheck(path, size, sha256, "ok", stat.st_size, hashed=True, role=role)
