"""The environment interface of a remote environment, forwarded call by call."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from actloop.core.frames import Frame


class EnvProxy(ABC):
    """An :class:`~actloop.core.environment.Environment` whose calls run elsewhere.

    Subclasses set ``_action_space``, ``_instruction`` and ``_budget`` when the remote environment
    is built, and implement :meth:`_call`, which runs a named method remotely and returns its result.
    """

    _action_space: Any
    _instruction: str
    _budget: int

    @abstractmethod
    def _call(self, method: str, *args: Any) -> Any:
        """Run ``method(*args)`` on the remote environment and return its result."""

    @property
    def action_space(self) -> Any:
        return self._action_space

    @property
    def instruction(self) -> str:
        return self._instruction

    @property
    def budget(self) -> int:
        return self._budget

    def reset(self) -> Any:
        return self._call("reset")

    def step(self, action: Any) -> Any:
        return self._call("step", action)

    def frames_at(self, step: int) -> tuple[Frame, ...] | None:
        frames: tuple[Frame, ...] | None = self._call("frames_at", step)
        return frames

    def provenance(self) -> dict[str, Any]:
        facts: dict[str, Any] = self._call("provenance")
        return facts
