"""The interface every environment offers the harness, in process or behind a worker process or actor.

It is suite-neutral: what an action, an action space and a step's outcome are belongs to the suite. The
runtime forwards these calls unchanged; a suite's episode driver gives them meaning.
"""

from __future__ import annotations

from typing import Any, Protocol

from actloop.core.frames import Frame


class Environment(Protocol):
    """An episode environment. Calls are synchronous; the harness runs them off its event loop."""

    @property
    def action_space(self) -> Any:
        """What the agent may do (the suite's own description, sent in the prompt)."""
        ...

    @property
    def instruction(self) -> str: ...

    @property
    def budget(self) -> int: ...

    def reset(self) -> Any:
        """Build the seeded scene and return the first outcome (the suite's transition type)."""
        ...

    def step(self, action: Any) -> Any:
        """Carry out one action and return its outcome (the suite's transition type)."""
        ...

    def frames_at(self, step: int) -> tuple[Frame, ...] | None:
        """The clean frames the model saw at ``step`` (for an image-history tool), or None."""
        ...

    def provenance(self) -> dict[str, Any]:
        """Evaluator-side facts about the environment, recorded with the episode and never shown to the
        model: at least ``scene_id`` (the scene's identity on every machine) and ``platform`` (the
        fingerprint deciding whether states may be compared bit for bit)."""
        ...

    def close(self) -> None: ...
