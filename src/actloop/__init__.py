"""actloop: evaluate multimodal language models as embodied agents in MuJoCo.

The Python API::

    import actloop
    actloop.suites()                                   # installed suites by name
    env = actloop.make("vabench", "grasp_single_cube", 1000)
    first = env.reset()
    outcome = actloop.evaluate(actloop.RunPlan(models=["actloop/baseline"], out=Path("runs/x"),
                                               tasks=["grasp_single_cube"], seeds=3))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from actloop._gl import select_gl_backend

# Must run before anything imports mujoco: MuJoCo fixes its GL backend at import time.
select_gl_backend()

__version__ = "0.1.0"

from actloop.core.environment import Environment  # noqa: E402
from actloop.core.result import ResultRow  # noqa: E402
from actloop.core.suite import Suite, get_suite, register, suites  # noqa: E402
from actloop.errors import (  # noqa: E402
    ActloopError,
    ConfigError,
    EnvError,
    RecordError,
    UnknownSuite,
    UnknownTask,
)

if TYPE_CHECKING:
    from actloop.runs.plan import RunOutcome, RunPlan, evaluate

__all__ = [
    "ActloopError",
    "ConfigError",
    "EnvError",
    "Environment",
    "RecordError",
    "ResultRow",
    "RunOutcome",
    "RunPlan",
    "Suite",
    "UnknownSuite",
    "UnknownTask",
    "evaluate",
    "get_suite",
    "make",
    "register",
    "suites",
]

_RUNS = ("RunPlan", "RunOutcome", "evaluate")


def make(suite: str, task: str, seed: int, **options: Any) -> Environment:
    """One environment of ``suite`` in this process: ``task`` on ``seed`` (``protocol=`` and the suite's
    own options as keywords). Call ``reset()`` first and ``close()`` when done."""
    return get_suite(suite).make(task, seed, **options)


def __getattr__(name: str) -> Any:
    # The run API imports Inspect (slow); load it on first use.
    if name in _RUNS:
        from actloop.runs import plan

        return getattr(plan, name)
    raise AttributeError(f"module 'actloop' has no attribute {name!r}")
