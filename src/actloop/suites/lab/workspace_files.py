"""The files an agent's workspace receives (for now the client module), and loading that client here."""

from __future__ import annotations

import importlib.util
from importlib import resources
from pathlib import Path
from types import ModuleType

CLIENT_FILE = Path(str(resources.files("actloop.suites.lab") / "workspace" / "lab_client.py"))


def load_client() -> ModuleType:
    """The workspace client module, loaded from its file as an agent's Python would load it."""
    spec = importlib.util.spec_from_file_location("lab_client", CLIENT_FILE)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {CLIENT_FILE}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
