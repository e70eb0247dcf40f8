"""The interface every environment offers the harness (in-process or behind a worker process)."""

from __future__ import annotations

from typing import Any, Protocol

from actloop.protocol.action_space import ActionSpace
from actloop.protocol.decisions import EnvAction
from actloop.protocol.observation import Frame
from actloop.protocol.step import StepResult


class Environment(Protocol):
    """An episode environment. Calls are synchronous; the harness runs them off its event loop."""

    @property
    def action_space(self) -> ActionSpace: ...

    @property
    def instruction(self) -> str: ...

    @property
    def budget(self) -> int: ...

    def reset(self) -> StepResult:
        """Build the seeded scene and return the first observation."""
        ...

    def step(self, action: EnvAction) -> StepResult:
        """Dispatch one robot or camera action, run the checker, return the next observation."""
        ...

    def frames_at(self, step: int) -> tuple[Frame, ...] | None:
        """The clean frames the model saw at ``step`` (for the ``camera.history`` tool), or None."""
        ...

    def provenance(self) -> dict[str, Any]:
        """Evaluator-side facts about the environment, recorded with the episode and never shown to the
        model: at least ``scene_id`` (the scene's identity on every machine) and ``platform`` (the
        fingerprint deciding whether states may be compared bit for bit)."""
        ...

    def close(self) -> None: ...
