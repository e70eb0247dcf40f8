"""What an environment returns to the harness after reset or a dispatched action.

``observation`` is model-visible. ``evaluation`` is evaluator-only: the harness records it but must
never put any of it into a model message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from actloop.protocol.observation import Observation

StopReason = Literal["success", "budget", "stop", "invalid_decisions", "tool_loop", "infra_error", "error"]


@dataclass(frozen=True)
class Evaluation:
    """The checker's view of the state after a step (evaluator-only)."""

    success: bool
    conditions: dict[str, bool]
    checkpoints: dict[str, bool]
    state_hash: str
    metrics: dict[str, float] = field(default_factory=dict)
    paper_success: bool = False
    """The seed's literal predicate (tables 22-25) on this state; ``success`` is the hardened one."""
    paper_conditions: dict[str, bool] = field(default_factory=dict)
    poses: dict[str, list[float]] = field(default_factory=dict)
    """Pose (x, y, z, qw, qx, qy, qz) of each object of interest, for comparisons across platforms."""


@dataclass(frozen=True)
class StepResult:
    """Result of ``reset()`` or ``step()``.

    ``dispatched`` is False when the environment refused the action before executing it (for example a
    sixth consecutive camera action, or an arm the task does not expose); such an action consumes no
    budget and ``observation.feedback`` says why. ``done`` is True on success or budget exhaustion, with
    ``stop_reason`` "success" or "budget".
    """

    observation: Observation
    evaluation: Evaluation
    dispatched: bool = True
    done: bool = False
    stop_reason: StopReason | None = None
