"""Shared fixtures. ``import actloop`` selects the headless GL backend before MuJoCo loads."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import actloop  # noqa: F401  (selects MUJOCO_GL)
from actloop.suites.vabench.env import SpatialEnv

TASK = "grasp_single_cube"
SEED = 1000


@pytest.fixture
def make_env() -> Iterator[Callable[..., SpatialEnv]]:
    """A factory of environments, each built as ``SpatialEnv(task, seed, **kwargs)``, reset unless
    ``reset=False``, and closed when the test ends."""
    made: list[SpatialEnv] = []

    def make(task: str, seed: int = SEED, *, reset: bool = True, **kwargs: Any) -> SpatialEnv:
        environment = SpatialEnv(task, seed, **kwargs)
        made.append(environment)
        if reset:
            environment.reset()
        return environment

    yield make
    for environment in made:
        environment.close()


@pytest.fixture
def env(request: pytest.FixtureRequest, make_env: Callable[..., SpatialEnv]) -> SpatialEnv:
    """The reset environment of the test module's ``TASK`` at its ``SEED``; a module without them gets
    grasp_single_cube at seed 1000."""
    return make_env(getattr(request.module, "TASK", TASK), getattr(request.module, "SEED", SEED))
