"""grasp_single_bottle_upright: checker positives and near-misses, layout ranges, the grasp point."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from actloop.sim.robot import FINGER_TRAVEL, GC_OFFSET
from actloop.sim.scene import TABLE_TOP_Z
from actloop.vabench.env import SpatialEnv
from actloop.vabench.predicates import site_position
from actloop.vabench.task import get_task

TASK = "grasp_single_bottle_upright"
PALM_ABOVE_GC = GC_OFFSET - (0.035 + 0.022)  # palm box bottom (robot.py) above the finger midpoint


@pytest.fixture
def env() -> Iterator[SpatialEnv]:
    environment = SpatialEnv(TASK, 1000)
    environment.reset()
    yield environment
    environment.close()


def _lift_bottle(env: SpatialEnv, lift_m: float, gripper_closed: bool) -> dict[str, bool]:
    """Teleport the bottle ``lift_m`` above its start and set the gripper command; return conditions."""
    adr = int(env.world.model.joint("bottle_joint").qposadr[0])
    env.world.data.qpos[adr + 2] = env.context.initial_positions["bottle"][2] + lift_m
    env.world.data.ctrl[env.context.arms["right"].gripper_ctrl] = 0.0 if gripper_closed else FINGER_TRAVEL
    return env.evaluate().conditions


def test_lifted_60mm_with_gripper_closed_succeeds(env: SpatialEnv) -> None:
    assert all(_lift_bottle(env, 0.060, gripper_closed=True).values())


@pytest.mark.parametrize(
    ("lift", "closed", "failing"),
    [
        (0.030, True, "lifted_gt_50mm"),  # lifted only 30 mm
        (0.049, True, "lifted_gt_50mm"),  # 1 mm short of the threshold
        (0.0, True, "lifted_gt_50mm"),  # closed on the standing bottle
        (0.070, False, "right_gripper_closed"),  # high enough, gripper open
    ],
)
def test_near_misses_fail(env: SpatialEnv, lift: float, closed: bool, failing: str) -> None:
    conditions = _lift_bottle(env, lift, closed)
    assert conditions[failing] is False
    assert not all(conditions.values())


def test_initial_state_is_not_a_success(env: SpatialEnv) -> None:
    evaluation = env.evaluate()
    assert evaluation.success is False
    assert evaluation.checkpoints == {"approached": False, "grasped": False, "lifted": False}


def test_bottle_stands_and_the_grasp_point_clears_the_palm(env: SpatialEnv) -> None:
    rotation = env.world.body_rotation("bottle")
    assert rotation[2, 2] > 0.9999
    grasp = site_position(env.context, "bottle_top_grasp")
    top = TABLE_TOP_Z + env.task.model.height
    assert grasp[2] - 0.012 > TABLE_TOP_Z  # fingertips above the table
    assert grasp[2] + PALM_ABOVE_GC > top + 0.005  # palm above the cap


def test_layout_respects_table_22_ranges() -> None:
    for seed in range(1000, 1100):
        layout = get_task(TASK)(seed).layout
        assert 0.20 <= layout["x"] <= 0.28 and -0.16 <= layout["y"] <= -0.04
        assert set(layout) == {"x", "y", "model_id"}
