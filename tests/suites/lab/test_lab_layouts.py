"""Every bench's published layout (served in the calibration) is the same for every instance and holds no
hidden value; each kit's own test keeps it equal to the scene."""

from __future__ import annotations

import numpy as np
import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments import experiment_keys


@pytest.mark.parametrize("key", experiment_keys())
def test_the_layout_carries_nothing_of_the_instance(key: str) -> None:
    envs = [LabEnv(key, seed, render=False) for seed in (1, 2)]
    try:
        first, second = (env.calibration()["layout"] for env in envs)
        assert first and first == second
        published = [v for values in first.values() for v in values]
        for env in envs:
            for name, value in env.instance.hidden.items():
                assert not any(np.isclose(v, value, rtol=1e-6, atol=0) for v in published), name
    finally:
        for env in envs:
            env.close()
