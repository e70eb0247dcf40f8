"""The platform fingerprint: what decides whether two runs may be compared bit for bit.

MuJoCo is deterministic on one platform, but the last bits of a simulation depend on the CPU (numpy's
and OpenBLAS's dispatched kernels), the C maths library MuJoCo links against, and the builds of MuJoCo
and numpy. Manifests and episode records store this fingerprint; bit equality of states is demanded only
between runs whose fingerprints match, and runs on different platforms are compared with tolerances.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

_READ_CHUNK = 1 << 20


def actloop_version() -> str:
    try:
        return metadata.version("actloop")
    except metadata.PackageNotFoundError:
        return "unknown"


def _file_digest(path: str | None) -> str | None:
    """First 16 hex digits of a file's SHA-256 (None if there is no such file)."""
    if not path or not os.path.isfile(path):
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_READ_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()[:16]


def _cpu() -> dict[str, Any]:
    """CPU model and a digest of its feature flags (Linux /proc/cpuinfo; the platform string elsewhere)."""
    fields: dict[str, str] = {}
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    model = fields.get("model name") or platform.processor() or platform.machine()
    flags = " ".join(sorted((fields.get("flags") or fields.get("Features") or "").split()))
    return {
        "machine": platform.machine(),
        "model": model,
        "flags_sha256": hashlib.sha256(flags.encode()).hexdigest()[:16],
    }


def _loaded_library(fragment: str) -> str | None:
    """Path of the first shared library mapped into this process whose name contains ``fragment``."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        return None
    for line in maps.read_text(errors="replace").splitlines():
        path = line.split(maxsplit=5)[-1] if line.count(" ") >= 5 else ""
        if fragment in os.path.basename(path):
            return path
    return None


def _openblas() -> dict[str, Any]:
    """The BLAS library numpy uses and the kernel family it dispatched to on this CPU.

    Other packages (scipy) may load BLAS libraries of their own, depending on what was imported; numpy's
    is the one whose path names numpy (its wheel bundles it), else the first one loaded.
    """
    from threadpoolctl import threadpool_info

    libraries = [info for info in threadpool_info() if info.get("user_api") == "blas"]
    numpy_own = [info for info in libraries if "numpy" in str(info.get("filepath", ""))]
    for info in numpy_own or libraries:
        return {
            "library": info.get("internal_api"),
            "version": info.get("version"),
            "core": info.get("architecture"),
        }
    return {"library": None, "version": None, "core": None}


def _numpy() -> dict[str, Any]:
    simd = getattr(np, "__config__", None)
    config = getattr(simd, "CONFIG", {}) if simd else {}
    extensions = config.get("SIMD Extensions", {})
    return {
        "version": np.__version__,
        "simd_baseline": extensions.get("baseline"),
        "simd_found": extensions.get("found"),
    }


def _mujoco() -> dict[str, Any]:
    library = _loaded_library("libmujoco")
    return {"version": mujoco.__version__, "library_sha256": _file_digest(library)}


def _libm() -> dict[str, Any]:
    libc = " ".join(platform.libc_ver()).strip() or platform.system()
    path = _loaded_library("libm.so") or _loaded_library("libm-")
    return {"libc": libc, "libm": os.path.realpath(path) if path else None, "libm_sha256": _file_digest(path)}


@cache
def platform_fingerprint() -> dict[str, Any]:
    """This process's platform: CPU, BLAS kernels, C maths library, MuJoCo and numpy builds, versions.

    ``digest`` summarizes the rest; two runs are on the same platform exactly when their digests match.
    """
    facts: dict[str, Any] = {
        "cpu": _cpu(),
        "blas": _openblas(),
        "libc": _libm(),
        "mujoco": _mujoco(),
        "numpy": _numpy(),
        "python": platform.python_version(),
        "actloop": actloop_version(),
    }
    canonical = json.dumps(facts, sort_keys=True, separators=(",", ":"))
    return {**facts, "digest": hashlib.sha256(canonical.encode()).hexdigest()[:16]}


def same_platform(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """True when two recorded fingerprints name the same platform (a missing one never matches)."""
    return bool(a and b and a.get("digest") and a.get("digest") == b.get("digest"))
