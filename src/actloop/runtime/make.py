"""Choose how an episode's environment is isolated: a spawned worker process, a Ray actor, or inline."""

from __future__ import annotations

from typing import Any, Literal

from actloop.errors import ConfigError
from actloop.runtime.inline import InProcessEnv
from actloop.runtime.ray_actor import RayEnv
from actloop.runtime.worker import EnvWorker

Isolation = Literal["process", "ray", "inline"]
ManagedEnv = EnvWorker | RayEnv | InProcessEnv


def make_env(
    factory: str, kwargs: dict[str, Any], isolation: Isolation = "process", *, timeout: float | None = None
) -> ManagedEnv:
    """Build the environment ``factory(**kwargs)``; ``timeout`` bounds each call (process and ray)."""
    if isolation == "process":
        return EnvWorker(factory, kwargs, timeout=timeout)
    if isolation == "ray":
        return RayEnv(factory, kwargs, timeout=timeout)
    if isolation == "inline":
        return InProcessEnv(factory, kwargs)
    raise ConfigError(f"isolation must be 'process', 'ray' or 'inline', got {isolation!r}")
