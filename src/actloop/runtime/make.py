"""Choose how an episode's environment is isolated: a long-lived pool of host processes, a spawned worker
process of its own, a Ray actor, or inline."""

from __future__ import annotations

from typing import Any, Literal

from actloop.errors import ConfigError
from actloop.runtime.inline import InProcessEnv
from actloop.runtime.pool import pool_named
from actloop.runtime.ray_actor import RayEnv
from actloop.runtime.worker import EnvWorker, HostedEnv

Isolation = Literal["pool", "process", "ray", "inline"]
ISOLATIONS: tuple[Isolation, ...] = ("pool", "process", "ray", "inline")
ManagedEnv = HostedEnv | RayEnv | InProcessEnv


def make_env(
    factory: str,
    kwargs: dict[str, Any],
    isolation: Isolation = "process",
    *,
    timeout: float | None = None,
    pool: str | None = None,
) -> ManagedEnv:
    """Build the environment ``factory(**kwargs)``; ``timeout`` bounds each call (process and ray; a pool
    has its own). ``isolation="pool"`` borrows it from the open pool named ``pool``
    (:class:`~actloop.runtime.pool.EnvPool`)."""
    if isolation == "pool":
        if pool is None:
            raise ConfigError("isolation 'pool' needs the name of an open environment pool")
        return pool_named(pool).open(factory, kwargs)
    if isolation == "process":
        return EnvWorker(factory, kwargs, timeout=timeout)
    if isolation == "ray":
        return RayEnv(factory, kwargs, timeout=timeout)
    if isolation == "inline":
        return InProcessEnv(factory, kwargs)
    raise ConfigError(f"isolation must be one of {', '.join(map(repr, ISOLATIONS))}, got {isolation!r}")
