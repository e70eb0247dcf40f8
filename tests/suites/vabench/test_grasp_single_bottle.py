"""grasp_single_bottle: the lying pose and the bottle presets.

Checker cases: test_lift_families.py; reset state and layout ranges: test_families.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from actloop.sim.assets.bottle import BOTTLE_MODELS
from actloop.suites.vabench.env import SpatialEnv

TASK = "grasp_single_bottle"  # the conftest ``env`` fixture builds it at seed 1000


def test_bottle_lies_on_its_side_along_the_sampled_yaw(env: SpatialEnv) -> None:
    axis = env.world.body_rotation("bottle")[:, 2]
    assert abs(axis[2]) < 1e-3
    assert np.arctan2(axis[1], axis[0]) == pytest.approx(env.task.layout["yaw"], abs=1e-3)


@pytest.mark.parametrize("model_id", sorted(BOTTLE_MODELS))
def test_bottle_presets_fit_the_gripper(model_id: str) -> None:
    model = BOTTLE_MODELS[model_id]
    widths = [2 * s.apothem / np.cos(np.pi / s.sides) for s in model.sections]  # across the corners
    assert max(widths) == pytest.approx(widths[0]) and widths[0] <= 0.066
    assert model.sections[-1].color != model.body.color
    assert model.cap_above_body < 0.0325
    assert model.upright_rest_height - model.lying_rest_height > 0.045
