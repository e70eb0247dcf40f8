"""Shared fixtures. ``import actloop`` selects the headless GL backend before MuJoCo loads."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import actloop  # noqa: F401  (selects MUJOCO_GL)
from actloop.vabench.env import SpatialEnv

TASK = "grasp_single_cube"
SEED = 1000


@pytest.fixture
def env() -> Iterator[SpatialEnv]:
    environment = SpatialEnv(TASK, SEED)
    environment.reset()
    yield environment
    environment.close()
