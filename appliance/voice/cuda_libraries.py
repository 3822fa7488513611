"""The CUDA libraries CTranslate2 (Whisper) opens at its first GPU matrix product, made loadable.

CTranslate2's wheel links the CUDA runtime statically but opens cuBLAS 12 and cuDNN 9 by name
(`libcublas.so.12`, `libcudnn*.so.9`) only when it first computes on the GPU. A box with the
NVIDIA driver and a newer CUDA (13) sees the GPU (`get_cuda_device_count()` is 1) and loads the
model, then fails on the first caller's words: "Library libcublas.so.12 is not found". Seen on an
H100 with driver 580 and CUDA 13 only. The `cuda` extra (pyproject.toml) installs both from PyPI as
NVIDIA ships them (`nvidia-cublas-cu12`, `nvidia-cudnn-cu12`); their folders are not on the loader's
path, so they are opened here by full path first. Once a library of that soname is in the process,
CTranslate2's dlopen by name finds it.

No import here may need the voice stack: `appliance doctor` uses it too.
"""

from __future__ import annotations

import ctypes
import importlib.util
from pathlib import Path

# in dependency order: cuBLAS needs cuBLASLt; cuDNN's front library opens its parts itself
NEEDED = ("libcublasLt.so.12", "libcublas.so.12", "libcudnn.so.9")
# where NVIDIA's PyPI packages put them, under the `nvidia` namespace package
PACKAGE_FOLDERS = ("cublas/lib", "cudnn/lib", "cu12/lib")
INSTALL_HINT = "pip install 'appliance[cuda]' in the appliance's virtualenv (the installer does this for device = cuda)"


def package_folders() -> list[Path]:
    """The library folders of NVIDIA's PyPI packages that are installed, if any."""
    spec = importlib.util.find_spec("nvidia")
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(root) / sub for root in spec.submodule_search_locations for sub in PACKAGE_FOLDERS
            if (Path(root) / sub).is_dir()]


def _open(name: str, folders: list[Path]) -> bool:
    for folder in folders:
        path = folder / name
        if path.exists():
            try:
                ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
                return True
            except OSError:
                continue
    try:
        ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)   # the system's, on the loader's path
        return True
    except OSError:
        return False


def preload() -> list[str]:
    """Open each needed library; return the names that could not be opened (empty: Whisper can use the GPU)."""
    folders = package_folders()
    return [name for name in NEEDED if not _open(name, folders)]


if __name__ == "__main__":   # a check an admin (or a GPU smoke test) can run without the voice stack
    missing = preload()
    print("CUDA libraries for Whisper:", "all loadable" if not missing else "missing " + ", ".join(missing))
    raise SystemExit(1 if missing else 0)
