"""One vabench episode: the decision loop on the model's side, the scorekeeper on the evaluator's.

The environment returns :class:`~actloop.suites.vabench.protocol.step.Transition` objects.
:class:`ModelFacingEnv` splits each one: the model-facing ``StepResult`` goes to the decision loop, the
evaluator-only ``Evaluation`` goes to the :class:`Scorekeeper` (and into the record). The decision loop
never holds an ``Evaluation``.
"""

from __future__ import annotations

from typing import Any

from actloop.agent.session import ModelSession
from actloop.core.environment import Environment
from actloop.core.frames import Frame
from actloop.core.result import StopReason
from actloop.core.suite import EpisodeOutcome
from actloop.records.recorder import EpisodeRecorder
from actloop.suites.vabench.agent.loop import EpisodeLoop
from actloop.suites.vabench.agent.record import record_env_step
from actloop.suites.vabench.protocol.action_space import ActionSpace
from actloop.suites.vabench.protocol.decisions import EnvAction
from actloop.suites.vabench.protocol.step import Evaluation, StepResult, Transition


class Scorekeeper:
    """Keeps the evaluator's side of the episode: the latest evaluation and when the paper's literal
    predicate first held."""

    def __init__(self) -> None:
        self.last: Transition | None = None
        self.paper_success_step: int | None = None
        """First step whose state met the paper's literal predicate (where the paper's episode ends)."""

    def note(self, transition: Transition) -> None:
        self.last = transition
        if transition.evaluation.paper_success and self.paper_success_step is None:
            self.paper_success_step = transition.observation.step

    def outcome(self, repairs: int) -> EpisodeOutcome:
        """The verdict of the latest state and vabench's row fields."""
        last = self.last
        evaluation: Evaluation | None = last.evaluation if last else None
        paper_failed = []
        if evaluation is not None and self.paper_success_step is None:
            paper_failed = [name for name, ok in evaluation.paper_conditions.items() if not ok]
        return EpisodeOutcome(
            success=bool(evaluation and evaluation.success),
            steps=last.observation.step if last else 0,
            budget=last.observation.budget if last else None,
            scores={
                "failed_conditions": [n for n, ok in evaluation.conditions.items() if not ok]
                if evaluation
                else [],
                "paper_success": self.paper_success_step is not None,
                "paper_success_step": self.paper_success_step,
                "paper_failed_conditions": paper_failed,
                "checkpoints": dict(evaluation.checkpoints) if evaluation else {},
                "metrics": dict(evaluation.metrics) if evaluation else {},
                "repairs": repairs,
            },
        )


class ModelFacingEnv:
    """The environment as the decision loop sees it: steps return only what the model may see.

    Each transition is recorded (with its evaluation, evaluator-side) and handed to the scorekeeper.
    """

    def __init__(self, env: Environment, scorekeeper: Scorekeeper, recorder: EpisodeRecorder) -> None:
        self._env = env
        self._scorekeeper = scorekeeper
        self._recorder = recorder

    @property
    def action_space(self) -> ActionSpace:
        space: ActionSpace = self._env.action_space
        return space

    @property
    def instruction(self) -> str:
        return self._env.instruction

    @property
    def budget(self) -> int:
        return self._env.budget

    def reset(self) -> StepResult:
        transition: Transition = self._env.reset()
        self._scorekeeper.note(transition)
        return transition.result

    def step(self, decision: EnvAction) -> StepResult:
        transition: Transition = self._env.step(decision)
        record_env_step(self._recorder, decision, transition)
        self._scorekeeper.note(transition)
        return transition.result

    def frames_at(self, step: int) -> tuple[Frame, ...] | None:
        return self._env.frames_at(step)


class VabenchDriver:
    """Plays one vabench episode with a model (see :class:`~actloop.core.suite.EpisodeDriver`)."""

    def __init__(
        self, env: Environment, session: ModelSession, recorder: EpisodeRecorder, summary: str | None
    ) -> None:
        self._env = env
        self.scorekeeper = Scorekeeper()
        self.loop = EpisodeLoop(ModelFacingEnv(env, self.scorekeeper, recorder), session, recorder, summary)

    async def run(self, start: dict[str, Any]) -> StopReason:
        import anyio

        provenance = await anyio.to_thread.run_sync(self._env.provenance)
        return await self.loop.run({**start, **provenance})

    def outcome(self) -> EpisodeOutcome:
        return self.scorekeeper.outcome(self.loop.repairs)
