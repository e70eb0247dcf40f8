"""The lift families (``_grasping.LiftTask``) share one checker: ``lifted_gt_50mm`` and
``right_gripper_closed``. Per family: a lift that succeeds and the near-misses, each naming the
condition that fails. Each family's own scene checks are in its test_<family>.py."""

from __future__ import annotations

import pytest
from scene_edit import MakeEnv, lift_and_grip

from actloop.vabench.task import get_task, task_names
from actloop.vabench.tasks._grasping import LiftTask

LIFTED, CLOSED = "lifted_gt_50mm", "right_gripper_closed"

SUCCEEDS = [  # family, body lifted, lift (m); the gripper is closed
    ("grasp_single_cube", "cube", 0.055),
    ("grasp_single_bottle", "bottle", 0.055),
    ("grasp_single_bottle_upright", "bottle", 0.060),
    ("grasp_single_pen", "pen", 0.051),
    ("grasp_pen_leaning_cube", "pen", 0.060),
]

NEAR_MISSES = [  # family, body lifted, lift (m), gripper closed, the condition that fails
    ("grasp_single_cube", "cube", 0.045, True, LIFTED),  # lifted only 45 mm
    ("grasp_single_cube", "cube", 0.049, True, LIFTED),  # 1 mm short of the threshold
    ("grasp_single_cube", "cube", 0.080, False, CLOSED),  # lifted, but the gripper is open
    ("grasp_single_cube", "cube", 0.0, True, LIFTED),  # closed on the table
    ("grasp_single_bottle", "bottle", 0.045, True, LIFTED),  # lifted only 45 mm
    ("grasp_single_bottle", "bottle", 0.049, True, LIFTED),  # 1 mm short of the threshold
    ("grasp_single_bottle", "bottle", 0.0, True, LIFTED),  # gripper closed, bottle still on the table
    ("grasp_single_bottle", "bottle", 0.080, False, CLOSED),  # high enough, but the gripper is open
    ("grasp_single_bottle_upright", "bottle", 0.030, True, LIFTED),  # lifted only 30 mm
    ("grasp_single_bottle_upright", "bottle", 0.049, True, LIFTED),  # 1 mm short of the threshold
    ("grasp_single_bottle_upright", "bottle", 0.0, True, LIFTED),  # closed on the standing bottle
    ("grasp_single_bottle_upright", "bottle", 0.070, False, CLOSED),  # high enough, gripper open
    ("grasp_single_pen", "pen", 0.040, True, LIFTED),  # lifted only 40 mm
    ("grasp_single_pen", "pen", 0.0, True, LIFTED),  # gripper closed, pen still on the table
    ("grasp_single_pen", "pen", 0.100, False, CLOSED),  # pen high, gripper open
    ("grasp_single_pen", "pen", 0.020, False, LIFTED),  # both wrong
    ("grasp_pen_leaning_cube", "pen", 0.045, True, LIFTED),  # pen lifted only 45 mm
    ("grasp_pen_leaning_cube", "cube", 0.080, True, LIFTED),  # the cube lifted instead of the pen
    ("grasp_pen_leaning_cube", "pen", 0.0, True, LIFTED),  # gripper closed, pen still leaning
    ("grasp_pen_leaning_cube", "pen", 0.080, False, CLOSED),  # pen high, gripper open
]


def test_every_lift_family_has_a_success_case() -> None:
    lift_families = {name for name in task_names() if issubclass(get_task(name), LiftTask)}
    assert sorted(lift_families) == sorted(task for task, _, _ in SUCCEEDS)


@pytest.mark.parametrize(("task", "body", "lift"), SUCCEEDS)
def test_lifted_with_the_gripper_closed_succeeds(
    task: str, body: str, lift: float, make_env: MakeEnv
) -> None:
    assert lift_and_grip(make_env(task), body, lift, closed=True) == {LIFTED: True, CLOSED: True}


@pytest.mark.parametrize(("task", "body", "lift", "closed", "failing"), NEAR_MISSES)
def test_near_misses_fail(
    task: str, body: str, lift: float, closed: bool, failing: str, make_env: MakeEnv
) -> None:
    conditions = lift_and_grip(make_env(task), body, lift, closed)
    assert conditions[failing] is False
    assert not all(conditions.values())
