"""The sandbox's namespaces beyond bubblewrap's own: its network (none, or a route out for a model's API
through slirp4netns with the host's addresses closed) and, as root, a process namespace that dies with the
evaluator."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from actloop.errors import ConfigError

NETWORKS = ("none", "model-api")
SLIRP_DNS = "10.0.2.3"
"""The resolver slirp4netns serves to the namespace (it forwards queries to the host's)."""
HOST_CLOSED = ("169.254.0.0/16",)
"""Closed to a ``model-api`` sandbox besides the host's own addresses: link-local (cloud metadata)."""


@dataclass
class Network:
    """What a run's network needs: bubblewrap's options, the descriptors they name, and what to do once
    the sandbox has started (give it a route out, then let it go on)."""

    bwrap_options: list[str] = field(default_factory=list)
    pass_fds: tuple[int, ...] = ()
    started: Callable[[int], None] = lambda pid: None
    """Called with the pid of the command that runs bubblewrap once it has started."""


@contextmanager
def network_for(network: str, isolation: str) -> Iterator[Network]:
    """``none``: bubblewrap's own network namespace is all there is. ``model-api``: bubblewrap waits (its
    ``--block-fd``) until slirp4netns gives the namespace a route out, with the host's loopback closed."""
    if network == "none" or isolation == "none":
        yield Network()
        return
    info_r, info_w = os.pipe()
    block_r, block_w = os.pipe()
    opened = {info_r, info_w, block_r, block_w}
    slirp: list[subprocess.Popen[bytes]] = []

    def close(fd: int) -> None:
        if fd in opened:
            opened.discard(fd)
            os.close(fd)

    def started(root: int) -> None:
        close(info_w)
        close(block_r)
        info = read_json(info_r)
        if "child-pid" not in info:
            return  # bubblewrap failed before it made the namespace (it says why)
        child = host_pid(root, int(str(info["child-pid"])))
        wait_for_loopback(child)
        ready_r, ready_w = os.pipe()
        slirp.append(subprocess.Popen(
            ["slirp4netns", "--configure", "--mtu=65520", "--disable-host-loopback", "--ready-fd",
             str(ready_w), "--netns-type=path", f"/proc/{child}/ns/net", "tap0"],
            pass_fds=(ready_w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        ))  # fmt: skip
        os.close(ready_w)
        ready = os.read(ready_r, 1)
        os.close(ready_r)
        if ready != b"1":
            raise ConfigError("slirp4netns could not give the sandbox its network (--network model-api)")
        close_routes(child, HOST_CLOSED + tuple(f"{a}/32" for a in host_addresses()))
        os.write(block_w, b"go")

    resolver = Path(tempfile.mkdtemp(prefix="actloop-net-")) / "resolv.conf"
    resolver.write_text(f"nameserver {SLIRP_DNS}\n")  # slirp4netns forwards it to the host's resolver
    options = [
        "--info-fd",
        str(info_w),
        "--block-fd",
        str(block_r),
        "--ro-bind",
        str(resolver),
        "/etc/resolv.conf",
    ]
    try:
        yield Network(options, (info_w, block_r), started)
    finally:
        shutil.rmtree(resolver.parent, ignore_errors=True)
        for fd in list(opened):
            close(fd)
        for process in slirp:
            process.terminate()
            process.wait()


def reaper(joined: Sequence[str] = ()) -> list[str]:
    """What makes the whole sandbox die with the evaluator. bubblewrap's own --die-with-parent is armed only
    once it has set the sandbox up, so as root the sandbox runs in a process namespace of its own whose
    first process, a shell that dies with its parent, takes every process in it along; otherwise only the
    parent-death signal of ``setpriv`` (lost at bubblewrap's start) guards that first moment."""
    reaper = ["setpriv", "--pdeathsig", "KILL", "--", *joined]  # first: the parent-death signal
    if reaped():
        reaper += ["unshare", "--pid", "--fork", "--kill-child=KILL", "--", "sh", "-c", '"$@"; exit $?', "sh"]
    return reaper


@functools.cache
def reaped() -> bool:
    """Whether this host lets us make the process namespace :func:`reaper` wants (root, and not a
    container that withholds it)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    tried = subprocess.run(["unshare", "--pid", "--fork", "--", "true"], capture_output=True)
    return tried.returncode == 0


def host_pid(root: int, pid: int) -> int:
    """The host's pid of the process bubblewrap calls ``pid`` (its info names it in the process namespace
    :func:`reaper` made), found among the descendants of ``root``."""
    if not reaped():
        return pid
    todo = [root]
    while todo:
        here = todo.pop()
        try:
            status = Path(f"/proc/{here}/status").read_text()
            spaces = next(line.split()[1:] for line in status.splitlines() if line.startswith("NSpid:"))
            if len(spaces) >= 2 and int(spaces[1]) == pid:
                return here
            for task in Path(f"/proc/{here}/task").iterdir():
                todo += [int(child) for child in (task / "children").read_text().split()]
        except (OSError, StopIteration):
            continue
    raise ConfigError(f"the sandbox's process {pid} is not among the evaluator's (--network model-api)")


def host_addresses() -> list[str]:
    """The host's own IPv4 addresses (its services listening on any address answer on each)."""
    shown = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True, check=True)
    return [line.split()[3].split("/")[0] for line in shown.stdout.splitlines() if len(line.split()) > 3]


def close_routes(pid: int, destinations: Sequence[str]) -> None:
    """Make ``destinations`` unreachable from the network namespace of ``pid`` (the agent, without any
    capability, cannot change its routes)."""
    batch = "".join(f"route add unreachable {destination}\n" for destination in destinations)
    closed = subprocess.run(
        ["nsenter", f"--net=/proc/{pid}/ns/net", "ip", "-batch", "-"],
        input=batch,
        capture_output=True,
        text=True,
    )
    if closed.returncode != 0:
        raise ConfigError(
            f"could not close the host's addresses to the sandbox's network: {closed.stderr.strip()}"
        )


def wait_for_loopback(pid: int, timeout_s: float = 10.0) -> None:
    """Wait until bubblewrap has brought up the loopback device in the namespace of ``pid`` (slirp4netns
    setting up its own device at the same time makes bubblewrap's setup fail)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if "\tlo " in Path(f"/proc/{pid}/net/igmp").read_text():
                return
        except OSError:
            return  # the sandbox ended already
        time.sleep(0.005)


def read_json(fd: int) -> dict[str, object]:
    """The JSON object bubblewrap writes to its ``--info-fd`` (empty when it wrote none)."""
    text = b""
    while chunk := os.read(fd, 65536):
        text += chunk
        try:
            found = json.loads(text)
        except ValueError:
            continue
        return found if isinstance(found, dict) else {}
    return {}
