"""Where the appliance finds its configuration and keeps its data.

An installed appliance reads /etc/appliance and writes /var/lib/appliance; a
checkout uses its own config/ folder and a var/ folder beside it. Environment
variables override both (the tests and the installer use them).
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
ETC = Path("/etc/appliance")


def _first_existing(*candidates: Path) -> Path:
    for path in candidates:
        if path.exists():
            return path
    return candidates[-1]


def flow_path() -> Path:
    if os.environ.get("APPLIANCE_FLOW"):
        return Path(os.environ["APPLIANCE_FLOW"])
    return _first_existing(ETC / "flows" / "clinic.yaml", REPO_ROOT / "config" / "flows" / "clinic.yaml")


def regions_path() -> Path:
    """The region table (what differs between countries); the installed copy wins."""
    if os.environ.get("APPLIANCE_REGIONS"):
        return Path(os.environ["APPLIANCE_REGIONS"])
    return _first_existing(ETC / "regions.yaml", REPO_ROOT / "config" / "regions.yaml")


def clinic_path() -> Path:
    if os.environ.get("APPLIANCE_CLINIC"):
        return Path(os.environ["APPLIANCE_CLINIC"])
    return _first_existing(ETC / "clinic.yaml", REPO_ROOT / "config" / "clinic.demo.yaml")


def data_dir() -> Path:
    if os.environ.get("APPLIANCE_DATA"):
        return Path(os.environ["APPLIANCE_DATA"])
    system = Path("/var/lib/appliance")
    if system.is_dir() and os.access(system, os.W_OK):
        return system
    return REPO_ROOT / "var"


def database_path() -> Path:
    if os.environ.get("APPLIANCE_DB"):
        return Path(os.environ["APPLIANCE_DB"])
    return data_dir() / "appliance.db"
