"""grasp_pen_leaning_cube: checker positives and near-misses, layout ranges, the leaning pose."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from actloop.sim.robot import FINGER_TRAVEL
from actloop.vabench.env import SpatialEnv
from actloop.vabench.predicates import body_geoms, touching
from actloop.vabench.task import get_task

TASK = "grasp_pen_leaning_cube"


@pytest.fixture
def env() -> Iterator[SpatialEnv]:
    environment = SpatialEnv(TASK, 1000)
    environment.reset()
    yield environment
    environment.close()


def _lift(env: SpatialEnv, body: str, lift_m: float, gripper_closed: bool) -> dict[str, bool]:
    """Teleport ``body`` ``lift_m`` above its start and set the gripper command; return conditions."""
    adr = int(env.world.model.joint(f"{body}_joint").qposadr[0])
    env.world.data.qpos[adr + 2] = env.context.initial_positions[body][2] + lift_m
    env.world.data.ctrl[env.context.arms["right"].gripper_ctrl] = 0.0 if gripper_closed else FINGER_TRAVEL
    return env.evaluate().conditions


def test_pen_lifted_60mm_with_gripper_closed_succeeds(env: SpatialEnv) -> None:
    assert _lift(env, "pen", 0.060, gripper_closed=True) == {
        "lifted_gt_50mm": True,
        "right_gripper_closed": True,
    }


@pytest.mark.parametrize(
    ("body", "lift", "closed", "failing"),
    [
        ("pen", 0.045, True, "lifted_gt_50mm"),  # pen lifted only 45 mm
        ("cube", 0.080, True, "lifted_gt_50mm"),  # the cube lifted instead of the pen
        ("pen", 0.0, True, "lifted_gt_50mm"),  # gripper closed, pen still leaning
        ("pen", 0.080, False, "right_gripper_closed"),  # pen high, gripper open
    ],
)
def test_near_misses_fail(env: SpatialEnv, body: str, lift: float, closed: bool, failing: str) -> None:
    conditions = _lift(env, body, lift, closed)
    assert conditions[failing] is False
    assert not all(conditions.values())


def test_initial_state_is_not_a_success(env: SpatialEnv) -> None:
    evaluation = env.evaluate()
    assert evaluation.success is False
    assert evaluation.checkpoints == {"approached": False, "grasped": False, "lifted": False}


def test_pen_leans_at_30_degrees_on_the_table_and_the_cube(env: SpatialEnv) -> None:
    axis = env.world.body_rotation("pen")[:, 2]
    assert np.rad2deg(np.arcsin(axis[2])) == pytest.approx(30.0, abs=0.5)
    heading = np.arctan2(axis[1], axis[0])
    assert heading == pytest.approx(env.task.layout["yaw"], abs=0.01)
    env.world.step(500)
    env.world.forward()
    assert touching(env.context, "pen", "cube")
    table = frozenset({env.world.model.geom("table").id})
    assert env.world.in_contact(table, body_geoms(env.context, "pen"))


def test_layout_respects_table_22_ranges() -> None:
    for seed in range(1000, 1100):
        layout = get_task(TASK)(seed).layout
        assert 0.16 <= layout["x"] <= 0.22 and -0.24 <= layout["y"] <= -0.20
        assert -np.pi / 12 <= layout["yaw"] <= np.pi / 12
