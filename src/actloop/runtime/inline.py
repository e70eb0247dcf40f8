"""An environment built and run in the calling process, with the same interface as the worker."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any, TypeVar

from actloop.core.environment import Environment
from actloop.core.factory import resolve_factory
from actloop.core.frames import Frame

T = TypeVar("T")


class InProcessEnv:
    """Build ``factory(**kwargs)`` in this process and delegate to it (for tests and debugging).

    Construction and every call run on one dedicated thread, whichever thread the caller is on: OpenGL
    (EGL) contexts made by a renderer belong to the thread that created them. Exceptions from the
    environment propagate unchanged.
    """

    def __init__(self, factory: str, kwargs: dict[str, Any]) -> None:
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="inline-env")
        try:
            self._env: Environment = self._run(resolve_factory(factory), **kwargs)
        except BaseException:
            self._thread.shutdown()
            raise
        self._closed = False

    @property
    def action_space(self) -> Any:
        return self._env.action_space

    @property
    def instruction(self) -> str:
        return self._env.instruction

    @property
    def budget(self) -> int:
        return self._env.budget

    def reset(self) -> Any:
        return self._run(self._env.reset)

    def step(self, action: Any) -> Any:
        return self._run(self._env.step, action)

    def frames_at(self, step: int) -> tuple[Frame, ...] | None:
        return self._run(self._env.frames_at, step)

    def provenance(self) -> dict[str, Any]:
        return self._run(self._env.provenance)

    def close(self) -> None:
        """Close the wrapped environment once and stop its thread."""
        if self._closed:
            return
        self._closed = True
        try:
            self._run(self._env.close)
        finally:
            self._thread.shutdown()

    def __enter__(self) -> InProcessEnv:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return self._thread.submit(fn, *args, **kwargs).result()
