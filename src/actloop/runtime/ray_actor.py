"""Run an environment as a Ray actor, so episodes can spread over the machines of a Ray cluster.

The driver (the process running the model loop) must have called ``ray.init`` (see :func:`connect`).
Each environment is one actor holding one CPU; arguments and results (protocol dataclasses) travel by
Ray's serialization. Nodes need actloop installed in the same version as the driver. An exception in
the actor comes back as :class:`EnvActorError` with the remote traceback text.
"""

from __future__ import annotations

import socket
from functools import cache
from typing import Any

from actloop.core.factory import resolve_factory
from actloop.core.frames import Frame
from actloop.errors import ConfigError
from actloop.runtime.proxy import EnvProxy

LOCAL = "local"
CONNECT_PROBE_TIMEOUT_S = 5.0


class EnvActorError(RuntimeError):
    """The environment actor failed or could not be reached."""


def connect(address: str) -> None:
    """Join the Ray cluster at ``address``, or start a local one for ``"local"`` (no-op if connected).

    A ``host:port`` address (optionally ``ray://``) is probed first, so a mistyped or unreachable address
    fails at once with a clear error instead of Ray's own minutes of retries.
    """
    import ray

    if ray.is_initialized():
        return
    if address == LOCAL:
        ray.init(include_dashboard=False, log_to_driver=False)
    else:
        check_reachable(address)
        ray.init(address=address, log_to_driver=False)


def check_reachable(address: str, timeout_s: float = CONNECT_PROBE_TIMEOUT_S) -> None:
    """Raise :class:`~actloop.errors.ConfigError` unless a TCP connection to ``host:port`` succeeds;
    addresses without a port (e.g. ``auto``) are left to Ray."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout_s).close()
    except OSError as err:
        raise ConfigError(
            f"cannot reach the Ray cluster at {address}: {err.strerror or err}; check --ray ADDRESS "
            "(the head node's HOST:PORT, Ray's default port is 6379) or use --ray local"
        ) from None


class _Host:
    """The actor body: owns one environment."""

    def __init__(self, factory: str, kwargs: dict[str, Any]) -> None:
        self.env = resolve_factory(factory)(**kwargs)

    def describe(self) -> tuple[Any, str, int]:
        return self.env.action_space, self.env.instruction, self.env.budget

    def reset(self) -> Any:
        return self.env.reset()

    def step(self, action: Any) -> Any:
        return self.env.step(action)

    def frames_at(self, step: int) -> tuple[Frame, ...] | None:
        return self.env.frames_at(step)

    def provenance(self) -> dict[str, Any]:
        return self.env.provenance()

    def close(self) -> None:
        self.env.close()


@cache
def _remote_host() -> Any:
    import ray

    return ray.remote(num_cpus=1)(_Host)


class RayEnv(EnvProxy):
    """An :class:`~actloop.core.environment.Environment` running in a Ray actor."""

    def __init__(self, factory: str, kwargs: dict[str, Any], *, timeout: float | None = None) -> None:
        import ray

        if not ray.is_initialized():
            raise EnvActorError("Ray is not initialized: connect to a cluster first (--ray ADDRESS or local)")
        self._timeout = timeout
        self._actor = _remote_host().remote(factory, kwargs)
        self._action_space, self._instruction, self._budget = self._call("describe")

    def close(self) -> None:
        import ray

        if self._actor is None:
            return
        try:
            self._call("close")
        finally:
            ray.kill(self._actor)
            self._actor = None

    def _call(self, method: str, *args: Any) -> Any:
        import ray

        try:
            return ray.get(getattr(self._actor, method).remote(*args), timeout=self._timeout)
        except ray.exceptions.GetTimeoutError as exc:
            raise EnvActorError(f"environment actor did not answer {method} within {self._timeout}s") from exc
        except ray.exceptions.RayError as exc:
            raise EnvActorError(f"environment actor failed in {method}: {exc}") from exc
