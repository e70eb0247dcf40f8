"""The agent's side of a lab episode, walled off from the evaluator.

Agents here are programs with a shell (a coding agent, a script, the model's code-execution tool). They run
under bubblewrap in a filesystem view that holds the operating system's read-only directories, the agents'
Python (a separate environment with the client's dependencies and common scientific packages, never
actloop), the workspace (read-write, at ``/workspace``) and a private ``/tmp``; the evaluator's package, its
environment, the records and everything else of the host are absent, and the process sees only its own
process tree. The loopback network is shared, so the agent reaches the bench's server (and nothing else
needs to be reachable).

Where bubblewrap is missing the command runs unsandboxed in the workspace with a scrubbed environment, and
the fallback is reported loudly and recorded as ``isolation: none``; ``require=True`` refuses instead.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from actloop.errors import ConfigError

AGENT_PACKAGES = ("httpx", "numpy", "scipy", "pillow", "matplotlib")
"""What the agents' Python holds: the client's HTTP library and common scientific packages."""
AGENT_PYTHON_ENV = "ACTLOOP_AGENT_PYTHON"
DEFAULT_AGENT_PYTHON = Path.home() / ".cache" / "actloop" / "agent-python"
WORKSPACE_MOUNT = "/workspace"
SYSTEM_DIRS = ("/usr", "/bin", "/lib", "/lib64", "/etc", "/sbin")
PATH = "/usr/local/bin:/usr/bin:/bin"
KILL_GRACE_S = 5.0


def agent_python_dir() -> Path:
    """Where the agents' Python lives: ``$ACTLOOP_AGENT_PYTHON`` or ``~/.cache/actloop/agent-python``."""
    return Path(os.environ.get(AGENT_PYTHON_ENV) or DEFAULT_AGENT_PYTHON)


def ensure_agent_python(directory: Path | None = None) -> Path:
    """The agents' Python environment, created on first use from this interpreter's base installation
    (``python -m venv`` without system packages, then ``pip install`` of :data:`AGENT_PACKAGES`); an
    environment whose creation was cut off is made again."""
    directory = directory or agent_python_dir()
    complete = directory / ".complete"
    if complete.exists():
        return directory
    print(f"creating the agents' Python at {directory} ({', '.join(AGENT_PACKAGES)})", file=sys.stderr)
    shutil.rmtree(directory, ignore_errors=True)
    directory.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(Path(sys.base_prefix) / "bin" / "python3"), "-m", "venv", str(directory)], check=True)
    pip = [
        str(directory / "bin" / "python"),
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ]
    subprocess.run([*pip, *AGENT_PACKAGES], check=True)
    complete.touch()
    return directory


@dataclass(frozen=True)
class SandboxRun:
    """How a sandboxed command ended: its exit status (None when it was killed at the wall-clock limit),
    its wall time and the isolation it ran under (``bubblewrap`` or ``none``)."""

    returncode: int | None
    wall_s: float
    isolation: str

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


@dataclass(frozen=True)
class Sandbox:
    """Runs commands for the agent in ``workspace`` (see the module docstring). ``read_only`` adds host
    paths the agent's own program needs (a coding agent's installation and its credentials), mounted at the
    same place; ``env`` adds variables (e.g. an API key) to the otherwise empty environment."""

    workspace: Path
    python: Path = field(default_factory=agent_python_dir)
    read_only: tuple[Path, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    require: bool = False

    @property
    def isolation(self) -> str:
        """``bubblewrap`` when it is installed, else ``none`` (or an error when isolation is required)."""
        if shutil.which("bwrap"):
            return "bubblewrap"
        if self.require:
            raise ConfigError("bubblewrap is not installed (Debian: apt-get install bubblewrap); no sandbox")
        return "none"

    def environment(self, home: str) -> dict[str, str]:
        python_bin = self.python / "bin"
        return {
            "PATH": f"{python_bin}:{PATH}",
            "HOME": home,
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "VIRTUAL_ENV": str(self.python),
            "MPLBACKEND": "Agg",
            **self.env,
        }

    def command(self, argv: Sequence[str]) -> list[str]:
        """The full command line that runs ``argv`` for the agent."""
        if self.isolation == "none":
            return list(argv)
        shown = [Path(d) for d in SYSTEM_DIRS if Path(d).exists()]
        shown += [self.python, _base_prefix(self.python), *self.read_only]
        mounts = [arg for path in shown for arg in ("--ro-bind", str(path), str(path))]
        for hidden in _evaluator_paths():
            if any(hidden.is_relative_to(path) for path in shown):
                mounts += ["--tmpfs", str(hidden)]
        environment = [arg for key, value in self.environment(WORKSPACE_MOUNT).items() for arg in
                       ("--setenv", key, value)]  # fmt: skip
        return [
            "bwrap",
            "--die-with-parent",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--clearenv",
            *environment,
            "--tmpfs", "/tmp",  # first, so a Python or a mount that lives under /tmp still shows
            *mounts,
            "--proc", "/proc",
            "--dev", "/dev",
            "--bind", str(self.workspace.resolve()), WORKSPACE_MOUNT,
            "--chdir", WORKSPACE_MOUNT,
            "--",
            *argv,
        ]  # fmt: skip

    def run(
        self, argv: Sequence[str], timeout_s: float, stdout: int | None = None, stderr: int | None = None
    ) -> SandboxRun:
        """Run ``argv`` to its end or to the wall-clock limit ``timeout_s`` (then its whole process group
        is killed); nothing of the evaluator is reachable from it."""
        isolation = self.isolation
        if isolation == "none":
            print(
                "WARNING: bubblewrap is not installed: the agent runs WITHOUT a sandbox and can read the "
                "evaluator's files (install it: apt-get install bubblewrap)",
                file=sys.stderr,
                flush=True,
            )
        start = time.monotonic()
        process = subprocess.Popen(
            self.command(argv),
            cwd=self.workspace,
            env=self.environment(str(self.workspace.resolve())) if isolation == "none" else {},
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
        try:
            returncode: int | None = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            returncode = None
        return SandboxRun(returncode, time.monotonic() - start, isolation)


def _base_prefix(python: Path) -> Path:
    """The installation an agents' Python environment was made from (its interpreter lives there)."""
    config = python / "pyvenv.cfg"
    if config.exists():
        for line in config.read_text().splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home":
                return Path(value.strip()).parent
    return Path(sys.base_prefix)


def _evaluator_paths() -> list[Path]:
    """Where actloop itself is installed: hidden even when a mounted directory contains it."""
    import actloop

    hidden = [Path(actloop.__file__).resolve().parent]
    if sys.prefix != sys.base_prefix:  # a virtual environment holding actloop and its dependencies
        hidden.append(Path(sys.prefix).resolve())
    return hidden


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    for sig, wait_s in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue
