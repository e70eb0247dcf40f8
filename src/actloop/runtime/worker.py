"""Run an environment in a spawned child process and proxy the :class:`Environment` calls to it.

The child builds the environment from an import path string and serves one request at a time over a
:class:`multiprocessing.Pipe`; arguments and results (protocol dataclasses) travel by pickle. An
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
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Any, Literal

from actloop.core.factory import resolve_factory
from actloop.runtime.proxy import EnvProxy

_POLL_INTERVAL_S = 0.05
_JOIN_TIMEOUT_S = 5.0
_METHODS = frozenset({"reset", "step", "frames_at", "provenance", "close"})

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


def _serve(conn: Connection, factory: str, kwargs: dict[str, Any]) -> None:
    """Child process entry point: build the environment, then answer requests until ``close``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when the worker stops
    try:
        env = resolve_factory(factory)(**kwargs)
        conn.send(("ok", (env.action_space, env.instruction, env.budget)))
    except BaseException as exc:
        conn.send(_failure(exc))
        return
    while True:
        try:
            method, args = conn.recv()
        except EOFError:  # parent went away
            env.close()
            return
        try:
            reply: _Reply = ("ok", getattr(env, method)(*args))
            conn.send(reply)
        except Exception as exc:
            conn.send(_failure(exc))
        if method == "close":
            return


class EnvWorker(EnvProxy):
    """An :class:`~actloop.core.environment.Environment` running in a spawned process.

    ``factory`` is ``"package.module:Name"``; ``kwargs`` are passed to it in the child. ``timeout``
    bounds every call (including construction) in seconds; ``None`` waits as long as the child lives.
    """

    def __init__(self, factory: str, kwargs: dict[str, Any], *, timeout: float | None = None) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child_conn = ctx.Pipe(duplex=True)
        self._process = ctx.Process(
            target=_serve, args=(child_conn, factory, dict(kwargs)), name=f"env-worker:{factory}", daemon=True
        )
        self._timeout = timeout
        self._lock = threading.Lock()
        self._closed_reason: str | None = None
        self._process.start()
        child_conn.close()
        try:
            self._action_space, self._instruction, self._budget = self._receive("start")
        except BaseException:
            self._shutdown("failed to start", graceful=False)
            raise

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def close(self) -> None:
        """Close the environment in the child, then join (or terminate) the process. Idempotent."""
        if self._closed_reason is not None:
            return
        try:
            if self._process.is_alive():
                self._call("close")
        finally:
            self._shutdown("closed", graceful=True)

    def __enter__(self) -> EnvWorker:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _call(self, method: str, *args: Any) -> Any:
        if method not in _METHODS:
            raise ValueError(f"unknown environment method {method!r}")
        with self._lock:
            if self._closed_reason is not None:
                raise EnvWorkerError(
                    f"environment worker unusable ({self._closed_reason}); cannot call {method}()"
                )
            try:
                self._conn.send((method, args))
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
                self._shutdown(message, graceful=False)
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
        self._shutdown(message, graceful=False)
        return EnvWorkerDied(message)

    def _shutdown(self, reason: str, *, graceful: bool) -> None:
        """Mark the worker unusable and make sure the child process is gone."""
        self._closed_reason = reason
        if graceful:
            self._process.join(_JOIN_TIMEOUT_S)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(_JOIN_TIMEOUT_S)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self._conn.close()
