"""grasp_single_pen: checker positives and near-misses, layout ranges, the pen asset."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from actloop.sim.assets.pen import PEN_APOTHEM, PEN_LENGTH
from actloop.sim.robot import FINGER_TRAVEL
from actloop.sim.scene import TABLE_TOP_Z
from actloop.vabench.env import SpatialEnv
from actloop.vabench.task import get_task

TASK = "grasp_single_pen"


@pytest.fixture
def env() -> Iterator[SpatialEnv]:
    environment = SpatialEnv(TASK, 1000)
    environment.reset()
    yield environment
    environment.close()


def _lift_pen(env: SpatialEnv, lift_m: float, gripper_closed: bool) -> dict[str, bool]:
    """Teleport the pen ``lift_m`` above its start and set the gripper command; return conditions."""
    adr = int(env.world.model.joint("pen_joint").qposadr[0])
    env.world.data.qpos[adr + 2] = env.context.initial_positions["pen"][2] + lift_m
    env.world.data.ctrl[env.context.arms["right"].gripper_ctrl] = 0.0 if gripper_closed else FINGER_TRAVEL
    return env.evaluate().conditions


def test_lifted_51mm_with_gripper_closed_succeeds(env: SpatialEnv) -> None:
    assert _lift_pen(env, 0.051, gripper_closed=True) == {
        "lifted_gt_50mm": True,
        "right_gripper_closed": True,
    }


@pytest.mark.parametrize(
    ("lift", "closed", "failing"),
    [
        (0.040, True, "lifted_gt_50mm"),  # lifted only 40 mm
        (0.0, True, "lifted_gt_50mm"),  # gripper closed, pen still on the table
        (0.100, False, "right_gripper_closed"),  # pen high, gripper open
        (0.020, False, "lifted_gt_50mm"),  # both wrong
    ],
)
def test_near_misses_fail(env: SpatialEnv, lift: float, closed: bool, failing: str) -> None:
    conditions = _lift_pen(env, lift, closed)
    assert conditions[failing] is False
    assert not all(conditions.values())


def test_initial_state_is_not_a_success(env: SpatialEnv) -> None:
    evaluation = env.evaluate()
    assert evaluation.success is False
    assert evaluation.checkpoints == {"approached": False, "grasped": False, "lifted": False}


def test_pen_is_slim_light_and_lies_on_a_flat(env: SpatialEnv) -> None:
    model = env.world.model
    across_flats, across_corners = 2 * PEN_APOTHEM, 2 * PEN_APOTHEM / np.cos(np.pi / 6)
    assert across_flats >= 0.010 and across_corners <= 0.016
    assert PEN_LENGTH >= 0.12
    assert float(model.body_subtreemass[model.body("pen").id]) == pytest.approx(0.02, abs=1e-4)
    assert env.world.body_position("pen")[2] == pytest.approx(TABLE_TOP_Z + PEN_APOTHEM, abs=2e-4)
    flat_normal = env.world.body_rotation("pen")[:, 0]
    assert flat_normal[2] == pytest.approx(-1.0, abs=1e-4)


def test_layout_respects_table_22_ranges() -> None:
    for seed in range(1000, 1100):
        layout = get_task(TASK)(seed).layout
        assert 0.18 <= layout["x"] <= 0.26 and -0.20 <= layout["y"] <= -0.10
        assert -np.pi / 6 <= layout["yaw"] <= np.pi / 6
