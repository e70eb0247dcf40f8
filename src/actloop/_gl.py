"""Headless OpenGL backend selection for MuJoCo rendering.

MuJoCo reads ``MUJOCO_GL`` once, when ``mujoco`` is first imported, so the choice has to be made before
that import. A user's explicit ``MUJOCO_GL`` always wins; otherwise EGL is used when its library is
present, OSMesa (software) when only that is.
"""

from __future__ import annotations

import ctypes.util
import os


def select_gl_backend() -> str | None:
    """Set ``MUJOCO_GL`` if unset; returns the backend in effect (None if no headless GL was found)."""
    if os.environ.get("MUJOCO_GL"):
        return os.environ["MUJOCO_GL"]
    for backend, library in (("egl", "EGL"), ("osmesa", "OSMesa")):
        if ctypes.util.find_library(library):
            os.environ["MUJOCO_GL"] = backend
            if backend == "osmesa":
                os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")
            return backend
    return None
