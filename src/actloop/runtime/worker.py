"""Run environments in spawned child processes and proxy the :class:`Environment` calls to them.

An :class:`EnvHost` is a child process that builds environments from import path strings and serves one
request at a time over a :class:`multiprocessing.Pipe`; arguments and results (protocol dataclasses)
travel by pickle. A :class:`HostedEnv` is one environment in a host (the pool's hosts hold many, see
:mod:`actloop.runtime.pool`); an :class:`EnvWorker` is an environment with a host of its own. An
exception inside the child comes back as :class:`EnvWorkerError` with the remote traceback text; a
child that dies raises :class:`EnvWorkerDied` promptly instead of blocking the caller.

The spawn start method re-imports the *caller's* ``__main__`` module in the child, so a script that
creates workers must guard its entry point with ``if __name__ == "__main__":``.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Any, Literal, Self

from actloop.core.factory import resolve_factory
from actloop.runtime.proxy import EnvProxy

_POLL_INTERVAL_S = 0.05
_JOIN_TIMEOUT_S = 5.0
_METHODS = frozenset({"open", "reset", "step", "frames_at", "provenance", "close"})

_Reply = tuple[Literal["ok"], Any] | tuple[Literal["err"], str, str, str]


class EnvWorkerError(RuntimeError):
    """An environment call failed inside the worker process (``remote_traceback`` has the details)."""

    def __init__(self, message: str, remote_type: str = "", remote_traceback: str = "") -> None:
        super().__init__(f"{remote_type}: {message}" if remote_type else message)
        self.remote_type = remote_type
        self.remote_traceback = remote_traceback


class EnvWorkerDied(EnvWorkerError):
    """The worker process exited (crashed or was killed) before answering."""


class EnvWorkerTimeout(EnvWorkerError):
    """The worker did not answer within the call timeout; it has been terminated."""


def _failure(exc: BaseException) -> _Reply:
    return ("err", type(exc).__qualname__, str(exc), "".join(traceback.format_exception(exc)))


def _serve(conn: Connection) -> None:
    """Host process entry point: answer ``(env_id, method, args)`` requests until the parent goes away.

    ``open`` builds an environment from ``(factory, kwargs)`` under ``env_id``; ``close`` closes and drops
    it; any other method is called on that environment. Requests are served one at a time on this one
    thread, so every OpenGL context a renderer makes stays on the thread that made it.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when the host stops
    envs: dict[int, Any] = {}
    while True:
        try:
            env_id, method, args = conn.recv()
        except EOFError:  # parent went away
            for env in envs.values():
                env.close()
            return
        try:
            if method == "open":
                factory, kwargs = args
                env = envs[env_id] = resolve_factory(factory)(**kwargs)
                result: Any = (env.action_space, env.instruction, env.budget)
            elif method == "close":
                env = envs.pop(env_id, None)
                result = env.close() if env is not None else None
            else:
                result = getattr(envs[env_id], method)(*args)
            reply: _Reply = ("ok", result)
        except Exception as exc:
            reply = _failure(exc)
        conn.send(reply)


class EnvHost:
    """A spawned process hosting any number of environments, called one request at a time.

    ``timeout`` bounds every call once it is sent (a call waiting for the host's other environments is
    not charged); a call that times out terminates the host. When the host dies or times out, every
    environment it held becomes unusable and each later call says why.
    """

    def __init__(self, *, timeout: float | None = None, name: str = "env-host") -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child_conn = ctx.Pipe(duplex=True)
        self._process = ctx.Process(target=_serve, args=(child_conn,), name=name, daemon=True)
        self._timeout = timeout
        self._lock = threading.Lock()
        self._next_id = 0
        self.closed_reason: str | None = None
        self._process.start()
        child_conn.close()

    @property
    def pid(self) -> int | None:
        return self._process.pid

    @property
    def usable(self) -> bool:
        return self.closed_reason is None and self._process.is_alive()

    def open(self, factory: str, kwargs: dict[str, Any]) -> tuple[int, tuple[Any, str, int]]:
        """Build ``factory(**kwargs)`` in the host: its id and ``(action_space, instruction, budget)``."""
        with self._lock:
            env_id = self._next_id
            self._next_id += 1
        return env_id, self.call(env_id, "open", factory, dict(kwargs))

    def call(self, env_id: int, method: str, *args: Any) -> Any:
        """Run ``method(*args)`` on environment ``env_id`` and return its result."""
        if method not in _METHODS:
            raise ValueError(f"unknown environment method {method!r}")
        with self._lock:
            if self.closed_reason is not None:
                raise EnvWorkerError(
                    f"environment worker unusable ({self.closed_reason}); cannot call {method}()"
                )
            try:
                self._conn.send((env_id, method, args))
            except (BrokenPipeError, ConnectionResetError, EOFError) as exc:
                raise self._died(method) from exc
            return self._receive(method)

    def _receive(self, method: str) -> Any:
        deadline = None if self._timeout is None else time.monotonic() + self._timeout
        while not self._conn.poll(_POLL_INTERVAL_S):
            if not self._process.is_alive() and not self._conn.poll(0):
                raise self._died(method)
            if deadline is not None and time.monotonic() > deadline:
                message = f"environment worker gave no answer to {method}() in {self._timeout} s"
                self.shutdown(message, graceful=False)
                raise EnvWorkerTimeout(message)
        try:
            reply: _Reply = self._conn.recv()
        except (EOFError, ConnectionResetError) as exc:
            raise self._died(method) from exc
        if reply[0] == "ok":
            return reply[1]
        _, remote_type, message, remote_tb = reply
        raise EnvWorkerError(message, remote_type, remote_tb)

    def _died(self, method: str) -> EnvWorkerDied:
        self._process.join(_JOIN_TIMEOUT_S)
        message = f"environment worker process died during {method}() (exit code {self._process.exitcode})"
        self.shutdown(message, graceful=False)
        return EnvWorkerDied(message)

    def shutdown(self, reason: str = "closed", *, graceful: bool = True) -> None:
        """Mark the host unusable and make sure its process is gone and reaped. Idempotent.

        ``graceful``: closing the pipe ends a healthy host, which closes its environments (terminated if
        it does not). Otherwise the process is killed at once: a host that stopped answering may be
        frozen (SIGSTOP), and only SIGKILL ends a stopped process without waiting.
        """
        if self.closed_reason is None:
            self.closed_reason = reason
        if graceful and self._process.is_alive():
            self._conn.close()
            self._process.join(_JOIN_TIMEOUT_S)
            if self._process.is_alive():
                self._process.terminate()
                self._process.join(_JOIN_TIMEOUT_S)
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        self._conn.close()


class HostedEnv(EnvProxy):
    """An :class:`~actloop.core.environment.Environment` living in an :class:`EnvHost`; ``on_close`` runs
    once when it is closed (a pool counts its environments per host with it)."""

    def __init__(
        self,
        host: EnvHost,
        factory: str,
        kwargs: dict[str, Any],
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self._host = host
        self._closed = False
        self._on_close = on_close
        self._id, (self._action_space, self._instruction, self._budget) = host.open(factory, kwargs)

    @property
    def pid(self) -> int | None:
        return self._host.pid

    def _call(self, method: str, *args: Any) -> Any:
        return self._host.call(self._id, method, *args)

    def close(self) -> None:
        """Close and drop the environment in its host (nothing to do when the host is gone). Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._host.usable:
                self._call("close")
        finally:
            if self._on_close is not None:
                self._on_close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class EnvWorker(HostedEnv):
    """An environment in a spawned process of its own, which ends when the environment is closed.

    ``factory`` is ``"package.module:Name"``; ``kwargs`` are passed to it in the child. ``timeout``
    bounds every call (including construction) in seconds; ``None`` waits as long as the child lives.
    """

    def __init__(self, factory: str, kwargs: dict[str, Any], *, timeout: float | None = None) -> None:
        host = EnvHost(timeout=timeout, name=f"env-worker:{factory}")
        try:
            super().__init__(host, factory, kwargs)
        except BaseException:
            host.shutdown("failed to start", graceful=False)
            raise

    def close(self) -> None:
        """Close the environment in the child, then join (or terminate) the process. Idempotent."""
        try:
            super().close()
        finally:
            self._host.shutdown("closed")
