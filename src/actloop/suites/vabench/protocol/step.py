"""What a vabench environment returns after reset or a dispatched action.

A :class:`Transition` keeps the two audiences apart: ``result`` (a :class:`StepResult`) is what the
decision loop and the model may see; ``evaluation`` is evaluator-only. The harness hands ``result`` to
the decision loop and ``evaluation`` to the scorekeeper, so no :class:`Evaluation` ever reaches the code
that talks to the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from actloop.core.result import StopReason
from actloop.suites.vabench.protocol.observation import Observation

__all__ = ["Evaluation", "StepResult", "StopReason", "Transition"]


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
    """The model-facing outcome of ``reset()`` or ``step()``.

    ``dispatched`` is False when the environment refused the action before executing it (for example a
    sixth consecutive camera action, or an arm the task does not expose); such an action consumes no
    budget and ``observation.feedback`` says why. ``done`` is True on success or budget exhaustion, with
    ``stop_reason`` "success" or "budget".
    """

    observation: Observation
    dispatched: bool = True
    done: bool = False
    stop_reason: StopReason | None = None


@dataclass(frozen=True)
class Transition:
    """The environment's full outcome: the model-facing ``result`` and the evaluator-only ``evaluation``.

    The read-only properties forward ``result``'s fields, for evaluator-side code (seed screening,
    replay, tests) that reads both.
    """

    result: StepResult
    evaluation: Evaluation

    @property
    def observation(self) -> Observation:
        return self.result.observation

    @property
    def dispatched(self) -> bool:
        return self.result.dispatched

    @property
    def done(self) -> bool:
        return self.result.done

    @property
    def stop_reason(self) -> StopReason | None:
        return self.result.stop_reason
