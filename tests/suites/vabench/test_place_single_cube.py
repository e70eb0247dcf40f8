"""place_single_cube: checker positives and near-misses for the hardened checker and the seed's literal
one, and the layout's link to grasp_single_cube.

The staged states leave the arm at home, so ``object_clear_of_robot`` holds throughout. Reset state and
layout ranges: test_families.py; near-misses driven through ``env.step``: test_hardened_checkers.py.
"""

from __future__ import annotations

import pytest
from scene_edit import stage_placement, unmet

from actloop.sim.assets.common import yaw_quat
from actloop.suites.vabench.confirm import CONFIRMED
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.protocol.step import Evaluation
from actloop.suites.vabench.task import get_task
from actloop.suites.vabench.tasks.grasp_single_cube import CUBE_HALF
from actloop.suites.vabench.tasks.place_single_cube import PAD_CLEARANCE_M, pad_distance_m

TASK = "place_single_cube"  # the conftest ``env`` fixture builds it at seed 1000
ON_PAD = CUBE_HALF - 0.0005  # resting on the pad, 0.5 mm into it so the contact exists


def _state(
    env: SpatialEnv,
    offset: tuple[float, float, float],
    lifted: bool = True,
    closed: bool = False,
    target_shift: float = 0.0,
) -> Evaluation:
    """Put the cube at ``offset`` from the pad's top centre (after a lift if ``lifted``); evaluate."""
    stage_placement(
        env,
        "cube",
        "target",
        offset,
        yaw_quat(0.5),
        lifted=lifted,
        goal_shift=(0.0, target_shift, 0.0),
        closed=closed,
    )
    return env.evaluate()


@pytest.mark.parametrize("offset", [(0.0, 0.0, ON_PAD), (0.034, -0.034, ON_PAD)])
def test_cube_on_the_pad_succeeds(env: SpatialEnv, offset: tuple[float, float, float]) -> None:
    evaluation = _state(env, offset)
    assert evaluation.success and evaluation.paper_success
    assert evaluation.checkpoints["released"]


@pytest.mark.parametrize(
    ("offset", "lifted", "closed", "target_shift", "failing"),
    [
        ((0.040, 0.0, ON_PAD), True, False, 0.0, {"x_error_le_35mm"}),  # 40 mm off in x, still on the pad
        ((0.0, -0.036, ON_PAD), True, False, 0.0, {"y_error_le_35mm"}),  # 36 mm off in y
        ((0.0, 0.0, ON_PAD), True, True, 0.0, {"gripper_open"}),  # on the target but gripped
        ((0.0, 0.0, ON_PAD), True, False, 0.003, {"target_displacement_le_2mm"}),  # target pushed 3 mm
        ((0.0, 0.0, ON_PAD + 0.04), True, True, 0.0, {"height_error_le_35mm", "contact", "gripper_open"}),
        ((0.0, 0.0, ON_PAD), False, False, 0.0, {"previously_lifted_50mm"}),  # teleported, never lifted
    ],
)
def test_near_misses_fail(
    env: SpatialEnv,
    offset: tuple[float, float, float],
    lifted: bool,
    closed: bool,
    target_shift: float,
    failing: set[str],
) -> None:
    evaluation = _state(env, offset, lifted, closed, target_shift)
    assert set(unmet(evaluation.paper_conditions)) == failing
    assert set(unmet(evaluation.conditions)) == failing | {CONFIRMED}


def test_layout_matches_grasp_single_cube_and_keeps_the_cube_off_the_pad() -> None:
    for seed in range(1000, 1100):
        layout = get_task(TASK)(seed).layout
        grasp = get_task("grasp_single_cube")(seed).layout
        assert {k: layout[k] for k in ("x", "y", "yaw")} == grasp
        cube_xy, pad_xy = (layout["x"], layout["y"]), (layout["target_x"], layout["target_y"])
        assert pad_distance_m(cube_xy, pad_xy) >= PAD_CLEARANCE_M
