"""The lift families (``_grasping.LiftTask``) share one checker. Hardened: ``lifted_gt_50mm``,
``held_in_right_gripper``, ``supported_by_gripper_only`` and ``confirmed_after_settle``; the seed's
literal one: ``lifted_gt_50mm`` and ``right_gripper_closed``. Per family: an object raised next to the
closed gripper, which fools only the paper's checker, and the near-misses, each naming the paper
condition that fails. Each family's own scene checks are in its test_<family>.py; near-misses driven
through ``env.step`` are in test_hardened_checkers.py."""

from __future__ import annotations

import pytest
from scene_edit import MakeEnv, lift_and_grip, put_in_gripper, unmet

from actloop.suites.vabench.confirm import CONFIRMED
from actloop.suites.vabench.task import get_task, task_names
from actloop.suites.vabench.tasks._grasping import LiftTask
from actloop.suites.vabench.tasks.grasp_single_cube import CUBE_HALF

LIFTED, CLOSED = "lifted_gt_50mm", "right_gripper_closed"
HELD, SUPPORTED = "held_in_right_gripper", "supported_by_gripper_only"

PAPER_SUCCEEDS = [  # family, body lifted, lift (m); the gripper is commanded closed but holds nothing
    ("grasp_single_cube", "cube", 0.055),
    ("grasp_single_bottle", "bottle", 0.055),
    ("grasp_single_bottle_upright", "bottle", 0.060),
    ("grasp_single_pen", "pen", 0.051),
    ("grasp_pen_leaning_cube", "pen", 0.060),
]

NEAR_MISSES = [  # family, body lifted, lift (m), gripper closed, the paper condition that fails
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


def test_every_lift_family_has_a_case() -> None:
    """Every base lift family (held-out variants inherit their base's checker: test_heldout_variants.py)."""
    lift_families = {
        name
        for name in task_names()
        if issubclass(get_task(name), LiftTask) and get_task(name).track == "base"
    }
    assert sorted(lift_families) == sorted(task for task, _, _ in PAPER_SUCCEEDS)


@pytest.mark.parametrize(("task", "body", "lift"), PAPER_SUCCEEDS)
def test_a_body_raised_beside_the_closed_gripper_fools_only_the_paper_checker(
    task: str, body: str, lift: float, make_env: MakeEnv
) -> None:
    evaluation = lift_and_grip(make_env(task), body, lift, closed=True)
    assert evaluation.paper_conditions == {LIFTED: True, CLOSED: True}
    assert unmet(evaluation.conditions) == [HELD, SUPPORTED, CONFIRMED]


@pytest.mark.parametrize(("task", "body", "lift", "closed", "failing"), NEAR_MISSES)
def test_near_misses_fail(
    task: str, body: str, lift: float, closed: bool, failing: str, make_env: MakeEnv
) -> None:
    evaluation = lift_and_grip(make_env(task), body, lift, closed)
    assert evaluation.paper_conditions[failing] is False
    assert not evaluation.paper_success and not evaluation.success


def test_cube_held_between_the_closed_pads_succeeds(make_env: MakeEnv) -> None:
    env = make_env("grasp_single_cube")
    put_in_gripper(env, "cube", CUBE_HALF)
    evaluation = env.evaluate()
    assert evaluation.success and evaluation.paper_success
    assert all(evaluation.checkpoints[name] for name in ("grasped", "lifted"))
