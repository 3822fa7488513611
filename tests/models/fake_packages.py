"""Fake model package contents shared by the model tests."""

from __future__ import annotations

import hashlib
from pathlib import Path


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


PART1 = b"first half of the weights " * 40
PART2 = b"second half of the weights " * 37
CONFIG = b'{"fake": true}'
GGUF = b"GGUF" + bytes(range(256)) * 8


def flip_byte(path: Path, offset: int = 5) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


DISTRIBUTIONS = {"fake-part-one": "1.0", "fake-part-two": "1.0", "fake-llm": "0.1"}


def add_distribution(site: Path, name: str, version: str) -> None:
    """What pip leaves behind: the metadata importlib.metadata.version() reads."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def remove_distribution(site: Path, name: str) -> None:
    for info in site.glob(f"{name.replace('-', '_')}-*.dist-info"):
        for child in info.iterdir():
            child.unlink()
        info.rmdir()
