"""Reading a YAML data file (the region table, the question declarations) with errors that name the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def read_yaml(path: Path, *, what: str, error: type[Exception]) -> Any:
    """The file's YAML; `error(message)` naming the file and `what` it is when it cannot be read or parsed."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise error(f"{path}: not valid YAML: {exc}") from None
