"""grasp_single_cube: checker positives and near-misses, layout ranges."""

from __future__ import annotations

import numpy as np
import pytest

from actloop.vabench.env import SpatialEnv
from actloop.vabench.task import get_task

TASK = "grasp_single_cube"


def _place_cube(env: SpatialEnv, lift_m: float, gripper_closed: bool) -> dict[str, bool]:
    """Teleport the cube ``lift_m`` above its start and set the gripper command; return conditions."""
    data = env.world.data
    adr = int(env.world.model.joint("cube_joint").qposadr[0])
    data.qpos[adr + 2] = env.context.initial_positions["cube"][2] + lift_m
    data.ctrl[env.context.arms["right"].gripper_ctrl] = 0.0 if gripper_closed else 0.04
    return env.evaluate().conditions


def test_lifted_55mm_with_gripper_closed_succeeds(env: SpatialEnv) -> None:
    assert _place_cube(env, 0.055, gripper_closed=True) == {
        "lifted_gt_50mm": True,
        "right_gripper_closed": True,
    }


@pytest.mark.parametrize(
    ("lift", "closed", "failing"),
    [
        (0.045, True, "lifted_gt_50mm"),  # lifted only 45 mm
        (0.049, True, "lifted_gt_50mm"),  # 1 mm short of the threshold
        (0.080, False, "right_gripper_closed"),  # lifted, but the gripper is open
        (0.0, True, "lifted_gt_50mm"),  # closed on the table
    ],
)
def test_near_misses_fail(env: SpatialEnv, lift: float, closed: bool, failing: str) -> None:
    conditions = _place_cube(env, lift, closed)
    assert conditions[failing] is False
    assert not all(conditions.values())


def test_initial_state_is_not_a_success(env: SpatialEnv) -> None:
    evaluation = env.evaluate()
    assert evaluation.success is False
    assert evaluation.checkpoints == {"approached": False, "grasped": False, "lifted": False}


def test_layout_respects_table_22_ranges() -> None:
    for seed in range(1000, 1100):
        layout = get_task(TASK)(seed).layout
        assert 0.18 <= layout["x"] <= 0.26 and -0.16 <= layout["y"] <= -0.06
        assert -np.pi / 4 <= layout["yaw"] <= np.pi / 4
