"""The files an agent's workspace receives (the task card, the client module, a guide, the bench's address
and token), and loading that client here."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import stat
from importlib import resources
from pathlib import Path
from types import ModuleType

from actloop.errors import ConfigError

WORKSPACE_DIR = Path(str(resources.files("actloop.suites.lab") / "workspace"))
CLIENT_FILE = WORKSPACE_DIR / "lab_client.py"
GUIDE_FILE = WORKSPACE_DIR / "README.md"
LEVEL_GUIDES = {"T1": WORKSPACE_DIR / "README_T1.md", "T2": WORKSPACE_DIR / "README_T2.md"}
"""What each level adds to the guide (a level's guide includes the ones below it)."""
SKILLS_FILE = WORKSPACE_DIR / "lab_skills.py"
CARD = "card.md"
CONFIG = "lab.json"


def load_client(workspace: Path | None = None) -> ModuleType:
    """The client module, loaded from its file as an agent's Python would load it: from ``workspace`` (a
    directory :func:`write_workspace` filled, where its exports go), or else from the package, where the
    client finds no ``lab.json`` and so refuses to export (nothing is ever written into the package)."""
    return _load("lab_client", CLIENT_FILE if workspace is None else workspace / CLIENT_FILE.name)


def load_skills() -> ModuleType:
    """The T2 skills module, loaded from its file as an agent's Python would load it."""
    return _load("lab_skills", SKILLS_FILE)


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def guide(level: str = "T0") -> str:
    """The agents' guide at ``level``: the T0 guide with what each level up to ``level`` adds."""
    levels = {"T0": [], "T1": ["T1"], "T2": ["T1", "T2"]}[level]
    return "\n".join([GUIDE_FILE.read_text(), *(LEVEL_GUIDES[lv].read_text() for lv in levels)])


def write_workspace(
    directory: Path, card: str, url: str, token: str, level: str = "T0", socket: str | None = None
) -> list[Path]:
    """Fill ``directory`` with what an agent starts from at ``level``; returns the files written. Nothing
    here reveals the instance: the card carries public values only, the config only the addresses (``url``
    on the loopback, ``socket`` the bench's Unix socket as the agent sees it) and the token. A name that is
    anything but a regular file (a symbolic link above all) is refused, never followed."""
    directory.mkdir(parents=True, exist_ok=True)
    config = {"url": url, "token": token, **({"socket": socket} if socket else {})}
    files = {
        CARD: card,
        CLIENT_FILE.name: CLIENT_FILE.read_text(),
        GUIDE_FILE.name: guide(level),
        CONFIG: json.dumps(config) + "\n",
    }
    if level == "T2":
        files[SKILLS_FILE.name] = SKILLS_FILE.read_text()
    for name in files:
        refuse_link(directory, name)
    return [
        write_file(directory, name, text, 0o600 if name == CONFIG else 0o644) for name, text in files.items()
    ]


def refuse_link(directory: Path, name: str) -> None:
    """Refuse (ConfigError) when ``directory/name`` exists as anything but a regular file (with no other hard
    link) or a directory."""
    try:
        mode = os.lstat(directory / name).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        raise ConfigError(
            f"{directory / name} is a symbolic link; the workspace's own files are never written through a "
            "link: remove it (or use a fresh workspace)"
        )
    if stat.S_ISREG(mode) and os.lstat(directory / name).st_nlink > 1:
        raise ConfigError(f"{directory / name} has other hard links; remove it (or use a fresh workspace)")
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise ConfigError(f"{directory / name} is not a regular file; remove it (or use a fresh workspace)")


def write_file(directory: Path, name: str, text: str | bytes, mode: int = 0o644) -> Path:
    """Write ``directory/name`` without following a symbolic link at either (the directory is opened with
    O_NOFOLLOW, the file with O_NOFOLLOW relative to it); a link is refused with a ConfigError."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        folder = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as err:
        raise ConfigError(f"cannot open the workspace {directory} without following a link: {err}") from None
    try:
        refuse_link(directory, name)
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, mode, dir_fd=folder)
        except OSError as err:
            raise ConfigError(f"refusing to write {directory / name}: {err.strerror}") from None
        with os.fdopen(fd, "wb") as out:
            os.fchmod(out.fileno(), mode)
            out.write(data)
    finally:
        os.close(folder)
    return directory / name


def own_directory(directory: Path, name: str) -> Path:
    """``directory/name`` as a real directory of the evaluator's: whatever else stands there (a link the
    agent made, a file) is removed, never followed."""
    path = directory / name
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = 0
    if mode and not stat.S_ISDIR(mode):
        path.unlink()  # a link itself, not what it names
    path.mkdir(exist_ok=True)
    return path


def own_file(directory: Path, name: str, text: str) -> Path:
    """Write ``directory/name`` afresh as the evaluator's file: a link or anything else standing there is
    removed first, never followed."""
    path = directory / name
    if os.path.lexists(path):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            path.unlink()
    return write_file(directory, name, text)
