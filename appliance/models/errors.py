"""What goes wrong with models, said so that a person can fix it."""

from __future__ import annotations

from pathlib import Path

INSTALL_FIX = "appliance models install"
VERIFY_FIX = "appliance models verify"


class ManifestError(ValueError):
    """models/manifest.toml cannot be used; the message names the file and the key."""


class InstallError(RuntimeError):
    """`appliance models install` could not finish (pip failed, or a file stayed wrong)."""


class ModelUnavailable(RuntimeError):
    """A configured model is missing or damaged.

    The message names the model, the path where it was expected and the exact
    command that fixes it.
    """

    def __init__(self, model: str, part: str, path: Path | str, problem: str, fix: str = INSTALL_FIX):
        self.model = model
        self.part = part
        self.path = Path(path)
        self.problem = problem
        self.fix = fix
        super().__init__(f"{part} model '{model}' is not usable: {problem} (expected at {path}); run: {fix}")
