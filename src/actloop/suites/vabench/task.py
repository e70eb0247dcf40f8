"""The task base class and the decorator registry of vabench task families.

A task family defines, for a seed: the randomized scene fields (``layout``), the objects' MJCF, named
success conditions (hardened ones that decide the episode and the seed's literal ones beside them),
named subtask checkpoints, and a privileged expert plan. Everything here except ``instruction``,
``arms`` and ``budget`` is evaluator-only and never reaches the model.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeVar

import numpy as np

from actloop.errors import UnknownTask
from actloop.sim.arm import ArmHandle
from actloop.sim.world import World
from actloop.suites.vabench.confirm import CONFIRMED, confirmed_after_settle
from actloop.suites.vabench.protocol.decisions import Arm, EnvAction

LIFT_THRESHOLD_M = 0.05
Track = Literal["base", "held_out", "long_horizon"]
"""Which part of the suite a task belongs to: the 14 base families (scored in the headline
macro-average), the seven held-out variants, or the long-horizon basket track (both reported apart)."""
BASE_CANDIDATES = 1000
HELD_OUT_CANDIDATES = 3000
"""First candidate seed of the held-out variants: their seeds never coincide with a base family's."""


@dataclass
class TaskContext:
    """Privileged handles a task uses to evaluate and to plan its expert (evaluator-side only)."""

    world: World
    arms: dict[str, ArmHandle]
    initial_positions: dict[str, np.ndarray]
    initial_quaternions: dict[str, np.ndarray]
    latched: dict[str, bool] = field(default_factory=dict)
    """Episode-long memory of conditions such as "previously lifted"; a fresh dict every reset."""
    previous: dict[str, float] = field(default_factory=dict)
    """What a task measured at the latest evaluation, for conditions on how a state was reached (a
    contact that began while the object was moving down); a fresh dict every reset."""

    def latch(self, name: str, now: bool) -> bool:
        """True once ``now`` has been True at any evaluation of this episode (evaluated after each step)."""
        self.latched[name] = self.latched.get(name, False) or bool(now)
        return self.latched[name]


@dataclass(frozen=True)
class Verdict:
    """The checker's verdict on one state: our hardened conditions and the seed's literal ones.

    ``conditions`` decide the episode (success ends it); ``paper_conditions`` are the seed's tables
    22-25 term by term, kept so scores stay comparable with the paper.
    """

    conditions: dict[str, bool]
    paper_conditions: dict[str, bool]

    @property
    def success(self) -> bool:
        return all(self.conditions.values())

    @property
    def paper_success(self) -> bool:
        return all(self.paper_conditions.values())


class Task(ABC):
    """One task family instantiated for one seed.

    Subclasses set the class attributes, implement :meth:`sample_layout`, :meth:`objects`,
    :meth:`state_conditions`, :meth:`paper_conditions`, :meth:`checkpoints` and :meth:`expert`, and
    register with ``@register_task``. Success is the conjunction of all named (hardened) conditions.
    """

    name: ClassVar[str]
    instruction: ClassVar[str]
    arms: ClassVar[tuple[Arm, ...]] = ("right",)
    budget: ClassVar[int]
    objects_of_interest: ClassVar[tuple[str, ...]]
    """Free bodies whose settling is checked during seed screening and which must come to rest in the
    success confirmation."""
    clear_arms_to_confirm: ClassVar[bool] = False
    """Placements: the confirmation first puts the arms at home, so the object must stand on its own."""
    track: ClassVar[Track] = "base"
    base_task: ClassVar[str | None] = None
    """A held-out variant's base family: the variant reuses its instruction and demonstration summary."""
    first_candidate: ClassVar[int] = BASE_CANDIDATES
    """Where seed screening starts (appendix C.4's ordered candidate pool)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.layout: dict[str, Any] = self.sample_layout(np.random.default_rng(seed))

    @abstractmethod
    def sample_layout(self, rng: np.random.Generator) -> dict[str, Any]:
        """Draw the task-coded scene fields (positions, yaws, model ids) from ``rng``."""

    @abstractmethod
    def objects(self) -> tuple[str, ...]:
        """MJCF bodies of the task objects placed per ``self.layout``."""

    @abstractmethod
    def state_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        """The hardened terminal predicate on the current state alone, as named conditions."""

    def conditions(self, ctx: TaskContext) -> dict[str, bool]:
        """The hardened terminal predicate: :meth:`state_conditions` and ``confirmed_after_settle``.

        The confirmation (``confirm.confirmed_after_settle``, in a scratch copy of the world) runs only
        when every state condition holds; otherwise it is reported False. Success means all are True.
        """
        now = self.state_conditions(ctx)
        confirmed = all(now.values()) and confirmed_after_settle(
            ctx, self.state_conditions, self.objects_of_interest, self.clear_arms_to_confirm
        )
        return {**now, CONFIRMED: confirmed}

    @abstractmethod
    def paper_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        """The seed's literal terminal predicate (tables 22-24) as named conditions, term by term."""

    def verdict(self, ctx: TaskContext) -> Verdict:
        """Both verdicts on the current state."""
        return Verdict(self.conditions(ctx), self.paper_conditions(ctx))

    @abstractmethod
    def checkpoints(self, ctx: TaskContext) -> dict[str, bool]:
        """Observable subtask transitions in the current state (the env latches them)."""

    @abstractmethod
    def expert(self, ctx: TaskContext) -> Iterator[EnvAction]:
        """Privileged plan: yields decisions executed through the same executor the agent uses.

        The generator is resumed after each decision has been executed, so it may re-read the state.
        """

    def metrics(self, ctx: TaskContext) -> dict[str, float]:
        """Evaluator-side measurements recorded with every step (e.g. lift height in mm)."""
        return {}


TaskT = TypeVar("TaskT", bound=type[Task])
_REGISTRY: dict[str, type[Task]] = {}


def register_task(cls: TaskT) -> TaskT:
    """Class decorator adding a task family to the vabench registry under ``cls.name``."""
    if cls.name in _REGISTRY:
        raise ValueError(f"task {cls.name!r} is registered twice")
    _REGISTRY[cls.name] = cls
    return cls


def task_names() -> list[str]:
    _load_families()
    return sorted(_REGISTRY)


def get_task(name: str) -> type[Task]:
    _load_families()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise UnknownTask(f"unknown vabench task {name!r}; known tasks: {known}") from None


def _load_families() -> None:
    # Importing the package registers every family module it lists.
    import actloop.suites.vabench.tasks  # noqa: F401


def split_steps(total: float, limit: float) -> list[float]:
    """Split a signed quantity into equal chunks no larger than ``limit`` in magnitude."""
    n = max(1, math.ceil(abs(total) / limit - 1e-9))
    return [total / n] * n
