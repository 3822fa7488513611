"""Each folder has one job: the product packages never reach into the simulated-caller harness, and the
phone line and the voice pipeline meet only through the voice package's public names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "appliance"
PRODUCT = ("admin", "calendars", "call_review", "clinic", "engine", "events", "language", "models", "monitor",
           "monitor_web", "sip",
           "store",
           "understanding", "voice")


def _imports(path: Path) -> list[str]:
    """Every module `path` imports, as an absolute dotted name."""
    package = ".".join(("appliance", *path.relative_to(PACKAGE).parent.parts))
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append(module)
    return found


def _modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


@pytest.mark.parametrize("folder", PRODUCT)
def test_no_product_package_imports_the_simulated_caller_harness(folder):
    offenders = [(p.name, m) for p in _modules(folder) for m in _imports(p) if m.startswith("appliance.simulate")]
    assert not offenders


def test_the_voice_pipeline_never_imports_the_phone_line():
    offenders = [(p.name, m) for p in _modules("voice") for m in _imports(p) if m.startswith("appliance.sip")]
    assert not offenders


def test_the_phone_line_uses_only_the_voice_packages_public_names():
    offenders = [(p.name, m) for p in _modules("sip") for m in _imports(p)
                 if m.startswith("appliance.voice.")]
    assert not offenders


def test_the_harness_uses_only_the_voice_packages_public_names():
    offenders = [(p.name, m) for p in _modules("simulate") for m in _imports(p)
                 if m.startswith("appliance.voice.")]
    assert not offenders


def test_every_public_voice_name_resolves():
    import appliance.voice as voice

    pytest.importorskip("pipecat")
    for name in voice.__all__:
        assert getattr(voice, name) is not None, name
