"""place_single_bottle_upright: checker positives and near-misses.

Reset state and layout ranges: test_families.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from scene_edit import settle, stage_placement, unmet

from actloop.protocol.decisions import MoveWorld, SetGripper, Translation
from actloop.sim.assets.common import axis_quat
from actloop.vabench.env import SpatialEnv

TASK = "place_single_bottle_upright"  # the conftest ``env`` fixture builds it at seed 1000
UPRIGHT = axis_quat(0.0, np.pi / 2)
LYING = axis_quat(0.0, 0.0)


def _place(
    env: SpatialEnv,
    offset: Sequence[float] = (0.0, 0.0, 0.0),
    lying: bool = False,
    lifted: bool = True,
    pad_shift: float = 0.0,
    settle_steps: int = 50,
) -> dict[str, bool]:
    """Put the bottle on the pad (upright or lying) at ``offset`` from its resting pose, open the
    gripper, optionally after a 60 mm lift, and return the conditions."""
    model = env.task.model
    rest = model.lying_rest_height if lying else model.upright_rest_height
    stage_placement(
        env,
        "bottle",
        "target",
        np.array([0.0, 0.0, rest]) + np.asarray(offset),
        LYING if lying else UPRIGHT,
        lifted=lifted,
        lift_quat=UPRIGHT,
        goal_shift=(pad_shift, 0.0, 0.0),
    )
    settle(env, settle_steps)
    return env.evaluate().conditions


def test_bottle_upright_on_the_pad_after_a_lift_succeeds(env: SpatialEnv) -> None:
    conditions = _place(env, offset=(0.01, -0.02, 0.0))
    assert conditions == {
        "previously_lifted_50mm": True,
        "x_error_le_40mm": True,
        "y_error_le_40mm": True,
        "height_error_le_35mm": True,
        "target_displacement_le_2mm": True,
        "contact": True,
        "gripper_open": True,
    }


@pytest.mark.parametrize(
    ("kwargs", "failing"),
    [
        ({"lying": True}, "height_error_le_35mm"),  # placed lying down on the pad
        ({"lifted": False}, "previously_lifted_50mm"),  # never lifted (pushed/teleported there)
        ({"offset": (0.045, 0.0, 0.0)}, "x_error_le_40mm"),  # 45 mm off in x, still on the pad
        ({"offset": (0.0, -0.045, 0.0)}, "y_error_le_40mm"),  # 45 mm off in y
        ({"offset": (0.0, 0.0, 0.02), "settle_steps": 0}, "contact"),  # hovering 20 mm above
        ({"pad_shift": 0.005}, "target_displacement_le_2mm"),  # the pad was pushed 5 mm
        ({"offset": (0.09, 0.0, -0.006)}, "x_error_le_40mm"),  # standing on the table beside the pad
    ],
)
def test_near_misses_fail(env: SpatialEnv, kwargs: dict, failing: str) -> None:
    conditions = _place(env, **kwargs)
    assert conditions[failing] is False


def test_bottle_on_the_pad_but_still_gripped_fails_only_on_gripper_open(env: SpatialEnv) -> None:
    _run_expert_until_release(env)
    result = env.step(MoveWorld(Translation("z", "-", 4.0)))  # press the held bottle onto the pad
    assert unmet(result.evaluation.conditions) == ["gripper_open"]
    assert result.evaluation.checkpoints["over_target"] and result.evaluation.checkpoints["placed"]
    assert not result.evaluation.checkpoints["released"]


def _run_expert_until_release(env: SpatialEnv) -> None:
    """Execute the expert's plan up to, not including, opening the gripper over the pad."""
    for action in env.task.expert(env.context):
        if isinstance(action, SetGripper) and action.command == "open":
            return
        assert env.step(action).observation.feedback.planner_success
    raise AssertionError("the expert never released the bottle")
