"""A long-lived pool of environment hosts: a few processes, each hosting many episodes' environments.

Starting a process per episode costs imports, a model build and a GL context every time, and keeps one
whole Python process alive per episode while its model thinks. A pool starts ``size`` host processes
(about one per core) once per run; an episode borrows an environment from the least-loaded live host
(:meth:`EnvPool.open`) and closing the environment gives it back. Many episodes can then be in flight at
once on a few processes: their calls into one host are served one at a time, which is all a core could
do anyway.

A host that dies or stops answering takes the environments it held with it: their episodes fail with
:class:`~actloop.runtime.worker.EnvWorkerDied` or ``EnvWorkerTimeout`` and get error rows, as with a
per-episode worker, and the next :meth:`~EnvPool.open` starts a replacement host.

The Inspect solver finds a pool by name (:func:`pool_named`), so only a short string travels through the
task's arguments.
"""

from __future__ import annotations

import itertools
import threading
from types import TracebackType
from typing import Any

from actloop.errors import ConfigError
from actloop.runtime.worker import EnvHost, HostedEnv

_POOLS: dict[str, EnvPool] = {}
_NAMES = itertools.count(1)


class EnvPool:
    """``size`` environment host processes, started when first needed; ``timeout`` bounds each call (s)."""

    def __init__(self, size: int, *, timeout: float | None = None) -> None:
        if size < 1:
            raise ConfigError(f"an environment pool needs at least one process, got {size}")
        self.size = size
        self.name = f"pool-{next(_NAMES)}"
        self._timeout = timeout
        self._hosts: list[EnvHost] = []
        self._load: dict[EnvHost, int] = {}  # environments open or being opened, per host
        self._lock = threading.Lock()
        self._closed = False
        _POOLS[self.name] = self

    def open(self, factory: str, kwargs: dict[str, Any]) -> HostedEnv:
        """Build ``factory(**kwargs)`` in the least-loaded live host (started or replaced as needed)."""
        host = self._borrow()
        try:
            return HostedEnv(host, factory, kwargs, on_close=lambda: self._give_back(host))
        except BaseException:
            self._give_back(host)
            raise

    def _borrow(self) -> EnvHost:
        """The live host with the fewest environments (a new one while there are fewer than ``size``),
        counted as holding one more."""
        with self._lock:
            if self._closed:
                raise ConfigError(f"environment pool {self.name} is closed")
            for dead in [h for h in self._hosts if not h.usable]:
                dead.shutdown("replaced", graceful=False)
                self._hosts.remove(dead)
            if len(self._hosts) < self.size:
                host = EnvHost(timeout=self._timeout, name=f"env-host:{self.name}:{len(self._hosts)}")
                self._hosts.append(host)
            else:
                host = min(self._hosts, key=lambda h: self._load.get(h, 0))
            self._load[host] = self._load.get(host, 0) + 1
            return host

    def _give_back(self, host: EnvHost) -> None:
        with self._lock:
            self._load[host] = self._load.get(host, 1) - 1
            if host not in self._hosts and self._load[host] <= 0:
                del self._load[host]

    @property
    def pids(self) -> list[int | None]:
        """The process ids of the current hosts."""
        return [host.pid for host in self._hosts]

    def close(self) -> None:
        """Stop every host (their environments close with them). Idempotent."""
        with self._lock:
            self._closed = True
            hosts, self._hosts = self._hosts, []
            self._load.clear()
        for host in hosts:
            host.shutdown("pool closed")
        _POOLS.pop(self.name, None)

    def __enter__(self) -> EnvPool:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def pool_named(name: str) -> EnvPool:
    """The open pool called ``name`` in this process."""
    pool = _POOLS.get(name)
    if pool is None:
        raise ConfigError(f"no open environment pool {name!r} in this process")
    return pool
