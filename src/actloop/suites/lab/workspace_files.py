"""The files an agent's workspace receives (the task card, the client module, a guide, the bench's address
and token), and loading that client here."""

from __future__ import annotations

import importlib.util
import json
from importlib import resources
from pathlib import Path
from types import ModuleType

WORKSPACE_DIR = Path(str(resources.files("actloop.suites.lab") / "workspace"))
CLIENT_FILE = WORKSPACE_DIR / "lab_client.py"
GUIDE_FILE = WORKSPACE_DIR / "README.md"
LEVEL_GUIDES = {"T1": WORKSPACE_DIR / "README_T1.md", "T2": WORKSPACE_DIR / "README_T2.md"}
"""What each level adds to the guide (a level's guide includes the ones below it)."""
SKILLS_FILE = WORKSPACE_DIR / "lab_skills.py"
CARD = "card.md"
CONFIG = "lab.json"


def load_client() -> ModuleType:
    """The workspace client module, loaded from its file as an agent's Python would load it."""
    spec = importlib.util.spec_from_file_location("lab_client", CLIENT_FILE)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {CLIENT_FILE}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def guide(level: str = "T0") -> str:
    """The agents' guide at ``level``: the T0 guide with what each level up to ``level`` adds."""
    levels = {"T0": [], "T1": ["T1"], "T2": ["T1", "T2"]}[level]
    return "\n".join([GUIDE_FILE.read_text(), *(LEVEL_GUIDES[lv].read_text() for lv in levels)])


def write_workspace(directory: Path, card: str, url: str, token: str, level: str = "T0") -> list[Path]:
    """Fill ``directory`` with what an agent starts from at ``level``; returns the files written. Nothing
    here reveals the instance: the card carries public values only, the config only the address and the
    token."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        CARD: card,
        CLIENT_FILE.name: CLIENT_FILE.read_text(),
        GUIDE_FILE.name: guide(level),
        CONFIG: json.dumps({"url": url, "token": token}) + "\n",
    }
    if level == "T2":
        files[SKILLS_FILE.name] = SKILLS_FILE.read_text()
    written = []
    for name, text in files.items():
        path = directory / name
        path.write_text(text)
        written.append(path)
    (directory / CONFIG).chmod(0o600)
    return written
