"""The agent's side of a lab episode, walled off from the evaluator.

Agents here are programs with a shell (a coding agent, a script, the model's code-execution tool). They run
under bubblewrap in a filesystem view that holds the operating system's read-only directories, the agents'
Python (a separate environment with the client's dependencies and common scientific packages, never
actloop), the workspace (read-write, at ``/workspace``) and a private ``/tmp``; the evaluator's package, its
environment, the records and everything else of the host are absent, and the process sees only its own
process tree. The agent runs in a user namespace with every capability dropped, no new privileges, no
further user namespaces, a new session, and dies with its parent, so a root caller gives it no power over
the host (no ``mount``, no ``open_by_handle_at``).

Network: by default (``none``) the agent has a network namespace of its own with only a loopback device;
the bench is reachable through its Unix socket, mounted at :data:`BENCH_SOCKET`, and nothing else on the
host is. ``model-api`` (for coding agents that call their model's API) adds a route out through
slirp4netns with the host's loopback closed and unreachable routes to the host's own addresses and to
link-local addresses (cloud metadata), and a resolver (slirp4netns's, which forwards to the host's): the
internet and the rest of the host's network are reachable, the host's services are not
(:mod:`actloop.suites.lab.sandbox_namespaces`).

Limits (:class:`Limits`): memory (data per process), CPU time per process, processes, file size, the
size of ``/tmp`` (a tmpfs) and of the workspace; :meth:`Limits.text` states them for the card and the
command's help, and a run that hit one says which in :attr:`SandboxRun.limits_hit`.

Without bubblewrap nothing runs unless the caller allows an unsandboxed run (``allow_unsandboxed``); it is
then reported loudly and recorded as ``isolation: none``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from actloop.errors import ConfigError
from actloop.suites.lab.api_relay import RELAY_DIR, relayed
from actloop.suites.lab.sandbox_namespaces import NETWORKS, network_for, reaper

AGENT_PACKAGES = ("httpx", "numpy", "scipy", "pillow", "matplotlib")
"""What the agents' Python holds: the client's HTTP library and common scientific packages."""
AGENT_PYTHON_ENV = "ACTLOOP_AGENT_PYTHON"
DEFAULT_AGENT_PYTHON = Path.home() / ".cache" / "actloop" / "agent-python"
WORKSPACE_MOUNT = "/workspace"
BENCH_SOCKET_DIR = "/run/lab"
BENCH_SOCKET = f"{BENCH_SOCKET_DIR}/lab.sock"
"""Where the bench's Unix socket appears inside the sandbox."""
SYSTEM_DIRS = ("/usr", "/bin", "/lib", "/lib64", "/etc", "/sbin")
PATH = "/usr/local/bin:/usr/bin:/bin"
KILL_GRACE_S = 5.0
WATCH_S = 0.5
"""How often the workspace's size is checked while the agent runs."""
CPU_GRACE_S = 5
"""After SIGXCPU at the CPU-time limit a process has this long before SIGKILL."""
STDERR_TAIL_BYTES = 64 * 1024
MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """What an agent's run may use. ``memory_mb`` and ``cpu_s`` hold for each process (the data it
    allocates, RLIMIT_DATA, and its CPU time, RLIMIT_CPU), ``processes`` for the whole run (a pids cgroup,
    where the host lets us make one), ``file_mb`` for any one file written, ``tmp_mb`` for ``/tmp`` and for
    ``/dev/shm`` (tmpfs: writes past it fail with ENOSPC; the rest of the sandbox's own file system is
    read-only) and ``workspace_mb`` for the workspace (checked every :data:`WATCH_S`; the run is stopped
    when over)."""

    memory_mb: int = 4096
    cpu_s: int = 3600
    processes: int = 256
    file_mb: int = 1024
    tmp_mb: int = 1024
    workspace_mb: int = 2048

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if isinstance(value, bool) or not (isinstance(value, int) and value > 0):
                raise ConfigError(f"sandbox limit {name} must be a positive whole number, got {value!r}")

    def text(self) -> str:
        """The limits in one sentence (the card's sandbox rule, the guide, ``run-agent --help``)."""
        return (
            f"memory {self.memory_mb} MB and CPU time {self.cpu_s} s per process, {self.processes} "
            f"processes, {self.file_mb} MB per file, {self.tmp_mb} MB in /tmp (and in /dev/shm) and "
            f"{self.workspace_mb} MB in the workspace"
        )

    def prlimit(self) -> list[str]:
        """The ``prlimit`` options that set the per-process limits."""
        return [
            f"--data={self.memory_mb * MB}",
            f"--cpu={self.cpu_s}:{self.cpu_s + CPU_GRACE_S}",
            f"--fsize={self.file_mb * MB}",
            "--core=0",
        ]


LIMIT_OPTIONS = {
    "memory_mb": "memory (data) per process, MB",
    "cpu_s": "CPU time per process, s",
    "processes": "processes at once",
    "file_mb": "size of any one file, MB",
    "tmp_mb": "size of /tmp and of /dev/shm (tmpfs), MB",
    "workspace_mb": "size of the workspace, MB",
}
"""What each of :class:`Limits` bounds (``run-agent``'s options)."""


def sandbox_rule(limits: Limits | None = None) -> str:
    """The card's line on the sandbox: what the agent's programs may reach and use."""
    return (
        "- Sandbox: your programs run isolated, with no network but the bench's (unless the run allows "
        f"your model's API), and limits: {(limits or Limits()).text()}."
    )


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
    its wall time, the isolation and network it ran under, and the limits it hit (one sentence each)."""

    returncode: int | None
    wall_s: float
    isolation: str
    network: str = "none"
    limits_hit: tuple[str, ...] = ()
    not_enforced: tuple[str, ...] = ()
    """The limits this host did not let the sandbox enforce (the process count without a pids cgroup)."""
    stopped: str = ""
    """Why the evaluator stopped the command before its end ("" when it did not)."""

    @property
    def timed_out(self) -> bool:
        return self.returncode is None and not self.stopped

    def ended(self) -> str:
        """How the command ended, in words (with the limits it hit)."""
        if self.stopped:
            said = f"stopped: {self.stopped}"
        else:
            said = "killed at the wall-clock limit" if self.timed_out else f"exited with {self.returncode}"
        return "; ".join([said, *self.limits_hit])


@dataclass(frozen=True)
class Sandbox:
    """Runs commands for the agent in ``workspace`` (see the module docstring). ``read_only`` adds host
    paths the agent's own program needs (a coding agent's installation and its credentials), mounted at the
    same place; ``env`` adds variables (e.g. an API key) to the otherwise empty environment;
    ``bench_socket`` is the bench server's Unix socket on the host, mounted at :data:`BENCH_SOCKET`;
    ``api_relay`` the directory of a model API relay (:mod:`.api_relay`), mounted at its place, the command
    then run behind its forwarder (the API answers on the sandbox's ``127.0.0.1:API_PORT``)."""

    workspace: Path
    python: Path = field(default_factory=agent_python_dir)
    read_only: tuple[Path, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    allow_unsandboxed: bool = False
    network: str = "none"
    limits: Limits = field(default_factory=Limits)
    bench_socket: Path | None = None
    api_relay: Path | None = None

    def __post_init__(self) -> None:
        if self.network not in NETWORKS:
            raise ConfigError(f"network must be one of {', '.join(NETWORKS)}, got {self.network!r}")

    @property
    def isolation(self) -> str:
        """``bubblewrap`` when it is installed; ``none`` only when unsandboxed runs are allowed."""
        if shutil.which("bwrap"):
            missing = [tool for tool in ("slirp4netns", "ip", "nsenter") if not shutil.which(tool)]
            if self.network == "model-api" and missing:
                raise ConfigError(
                    f"--network model-api needs {', '.join(missing)} (Debian: slirp4netns, iproute2, "
                    "util-linux; scripts/setup-lab-sandbox.sh installs them)"
                )
            return "bubblewrap"
        if not self.allow_unsandboxed:
            raise ConfigError(
                "bubblewrap is not installed (Debian: apt-get install bubblewrap, or run "
                "scripts/setup-lab-sandbox.sh); refusing to run the agent without a sandbox "
                "(--allow-unsandboxed runs it anyway, with access to everything this user can reach)"
            )
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

    def command(
        self, argv: Sequence[str], bwrap_options: Sequence[str] = (), cgroup: Path | None = None
    ) -> list[str]:
        """The full command line that runs ``argv`` for the agent, under the per-process limits (and in the
        pids ``cgroup``, joined before anything else runs)."""
        joined = ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(cgroup / "cgroup.procs")] if cgroup else []
        limited = [*reaper(joined), "prlimit", *self.limits.prlimit(), "--"]
        if self.isolation == "none":
            if self.api_relay is not None:
                raise ConfigError("the model API relay needs the sandbox's own loopback: install bubblewrap")
            return [*limited, *argv]
        shown = [Path(d) for d in SYSTEM_DIRS if Path(d).exists()]
        shown += [self.python, _base_prefix(self.python), *self.read_only]
        mounts = [arg for path in shown for arg in ("--ro-bind", str(path), str(path))]
        for hidden in _evaluator_paths():
            if any(hidden.is_relative_to(path) for path in shown):
                mounts += ["--tmpfs", str(hidden)]
        if self.bench_socket is not None:
            mounts += ["--ro-bind", str(self.bench_socket.parent), BENCH_SOCKET_DIR]
        if self.api_relay is not None:
            mounts += ["--ro-bind", str(self.api_relay), RELAY_DIR]
            argv = [str(self.python / "bin" / "python"), *relayed(argv)]
        environment = [arg for key, value in self.environment(WORKSPACE_MOUNT).items() for arg in
                       ("--setenv", key, value)]  # fmt: skip
        return [
            *limited,
            "bwrap",
            "--die-with-parent",
            "--new-session",
            "--unshare-user",
            "--disable-userns",
            "--cap-drop", "ALL",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-net",
            "--unshare-cgroup-try",
            "--clearenv",
            *environment,
            "--size", str(self.limits.tmp_mb * MB),
            "--tmpfs", "/tmp",  # first, so a Python or a mount that lives under /tmp still shows
            *mounts,
            "--proc", "/proc",
            "--dev", "/dev",
            "--size", str(self.limits.tmp_mb * MB),
            "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev",  # its tmpfs would hold anything, unlimited: only /dev/shm takes files
            "--bind", str(self.workspace.resolve()), WORKSPACE_MOUNT,
            "--chdir", WORKSPACE_MOUNT,
            *bwrap_options,
            "--remount-ro", "/",  # likewise the sandbox's root
            "--",
            *argv,
        ]  # fmt: skip

    def run(
        self,
        argv: Sequence[str],
        timeout_s: float,
        stdout: int | None = None,
        stderr: int | None = None,
        stop_when: Callable[[], str] | None = None,
    ) -> SandboxRun:
        """Run ``argv`` to its end, to the wall-clock limit ``timeout_s``, until the workspace outgrows its
        limit or until ``stop_when`` gives a reason (then the whole sandbox is killed); nothing of the
        evaluator is reachable from it, and its standard input is empty. Its standard error goes to
        ``stderr``, or to ours (and is then read for the limits it hit)."""
        isolation = self.isolation
        if isolation == "none":
            print(
                "WARNING: bubblewrap is not installed: the agent runs WITHOUT a sandbox and can read the "
                "evaluator's files (install it: apt-get install bubblewrap)",
                file=sys.stderr,
                flush=True,
            )
        start = time.monotonic()
        with _pids_cgroup(self.limits.processes) as pids, network_for(self.network, isolation) as net:
            command = self.command(argv, net.bwrap_options, pids)
            process = subprocess.Popen(
                command,
                cwd=self.workspace,
                env=self.environment(str(self.workspace.resolve())) if isolation == "none" else {},
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=subprocess.PIPE if stderr is None else stderr,
                start_new_session=True,
                pass_fds=net.pass_fds,
            )
            tail = _Tee(process.stderr) if process.stderr is not None else None
            try:
                net.started(process.pid)
            except BaseException:
                _kill_group(process)
                raise
            returncode, over, stopped = self._wait(process, timeout_s, stop_when or (lambda: ""))
            if tail is not None:
                tail.join()
            said = tail.text() if tail else _file_tail(stderr)
            hits = _limits_hit(self.limits, returncode, said, over, pids)
        unenforced = () if pids else ("processes: no pids cgroup could be made on this host",)
        return SandboxRun(
            returncode, time.monotonic() - start, isolation, self.network, hits, unenforced, stopped
        )

    def _wait(
        self, process: subprocess.Popen[bytes], timeout_s: float, stop_when: Callable[[], str]
    ) -> tuple[int | None, bool, str]:
        """Wait for ``process`` to end; kill it at the wall-clock limit (None), once the workspace holds
        more than its limit (True) or once ``stop_when`` gives a reason (returned)."""
        deadline = time.monotonic() + timeout_s
        try:
            while True:
                try:
                    wait_s = max(0.0, min(WATCH_S, deadline - time.monotonic()))
                    return process.wait(timeout=wait_s), False, ""
                except subprocess.TimeoutExpired:
                    pass
                if time.monotonic() >= deadline:
                    _kill_group(process)
                    return None, False, ""
                if _usage_bytes(self.workspace) > self.limits.workspace_mb * MB:
                    _kill_group(process)
                    return process.returncode, True, ""
                if reason := stop_when():
                    _kill_group(process)
                    return process.returncode, False, reason
        except BaseException:  # an interrupt of the evaluator ends the agent too
            _kill_group(process)
            raise


class _Tee(threading.Thread):
    """Copies a process's standard error to ours and keeps its last :data:`STDERR_TAIL_BYTES`."""

    def __init__(self, stream: IO[bytes]) -> None:
        super().__init__(daemon=True, name="sandbox-stderr")
        self.stream = stream
        self.tail = b""
        self.start()

    def run(self) -> None:
        out = sys.stderr.buffer if hasattr(sys.stderr, "buffer") else None
        for chunk in iter(lambda: os.read(self.stream.fileno(), 65536), b""):
            self.tail = (self.tail + chunk)[-STDERR_TAIL_BYTES:]
            if out is not None:
                out.write(chunk)
                out.flush()
            else:
                sys.stderr.write(chunk.decode(errors="replace"))
        self.stream.close()

    def text(self) -> str:
        return self.tail.decode(errors="replace")


LIMIT_SIGNS = (
    ("MemoryError", "memory"),
    ("Cannot allocate memory", "memory"),
    ("out of memory", "memory"),
    ("No space left on device", "tmp"),
    ("File too large", "file"),
    ("Resource temporarily unavailable", "processes"),
)
"""What a program says on its standard error when a limit refused it."""


def _limits_hit(limits: Limits, returncode: int | None, stderr: str, workspace_over: bool,
                pids: Path | None) -> tuple[str, ...]:  # fmt: skip
    """The limits a run hit, each as a sentence for the run's result."""
    said = {
        "memory": f"memory limit ({limits.memory_mb} MB per process) reached: an allocation failed",
        "tmp": "a file system is full (ENOSPC): /tmp holds at most "
        f"{limits.tmp_mb} MB, the workspace {limits.workspace_mb} MB",
        "file": f"file size limit ({limits.file_mb} MB) reached: a write failed (EFBIG)",
        "processes": f"process limit ({limits.processes}) reached: a new process could not start (EAGAIN)",
    }
    hits: list[str] = []
    signals = {
        signal.SIGXCPU: f"CPU time limit ({limits.cpu_s} s per process) reached: killed by SIGXCPU",
        signal.SIGXFSZ: f"file size limit ({limits.file_mb} MB) reached: killed by SIGXFSZ",
        signal.SIGKILL: "killed by SIGKILL (out of memory, or the CPU time limit's hard stop)",
    }
    if returncode is not None:
        number = -returncode if returncode < 0 else returncode - 128
        if number in {int(sig) for sig in signals}:
            hits.append(signals[signal.Signals(number)])
    if workspace_over:
        hits.append(f"workspace size limit ({limits.workspace_mb} MB) exceeded: the run was stopped")
    if pids is not None and _pids_refused(pids):
        hits.append(said["processes"])
    for sign, limit in LIMIT_SIGNS:
        if sign in stderr and said[limit] not in hits:
            hits.append(said[limit])
    return tuple(hits)


def _file_tail(fd: int | None) -> str:
    """The end of what a command wrote to ``fd`` when it is a regular file (else nothing)."""
    try:
        if fd is None or not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        with open(f"/proc/self/fd/{fd}", "rb") as reopened:  # the descriptor itself may be write-only
            reopened.seek(max(0, os.fstat(fd).st_size - STDERR_TAIL_BYTES))
            return reopened.read().decode(errors="replace")
    except OSError:
        return ""


def _usage_bytes(directory: Path) -> int:
    """The space the files under ``directory`` take (links are not followed)."""
    total = 0
    for root, dirs, files in os.walk(directory, followlinks=False):
        for name in [*dirs, *files]:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue
    return total


CGROUP_ROOTS = {"pids": Path("/sys/fs/cgroup/pids"), "": Path("/sys/fs/cgroup")}
"""Where the cgroup hierarchies holding a pids controller are mounted (cgroup v1's and v2's)."""


@contextmanager
def _pids_cgroup(limit: int) -> Iterator[Path | None]:
    """A new pids cgroup below ours allowing ``limit`` processes, or None where the host does not let us
    make one (then the process count is not limited)."""
    made = None
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, own = line.split(":", 2)
        root = CGROUP_ROOTS.get(controllers) if controllers in ("pids", "") else None
        if root is None:
            continue
        candidate = root / own.lstrip("/") / f"actloop-sandbox-{uuid.uuid4().hex[:12]}"
        try:
            candidate.mkdir()
        except OSError:
            continue
        try:
            (candidate / "pids.max").write_text(str(limit))
            made = candidate
            break
        except OSError:
            candidate.rmdir()
    try:
        yield made
    finally:
        if made is not None:
            _remove_cgroup(made)


def _pids_refused(cgroup: Path) -> bool:
    """Whether the cgroup refused a new process at its limit."""
    try:
        events = dict(line.split() for line in (cgroup / "pids.events").read_text().splitlines())
    except OSError:
        return False
    return int(events.get("max", "0")) > 0


def _remove_cgroup(cgroup: Path) -> None:
    for _ in range(50):  # the last processes may still be exiting
        try:
            cgroup.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            for pid in (cgroup / "cgroup.procs").read_text().split():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), signal.SIGKILL)
            time.sleep(0.05)


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
