"""place_cube_in_bowl: the bowl asset, checker positives and near-misses for the hardened checker and
the seed's literal one.

The staged states leave the arm at home, so ``object_clear_of_robot`` holds throughout. Reset state and
layout ranges: test_families.py; near-misses driven through ``env.step``: test_hardened_checkers.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scene_edit import settle, stage_placement, teleport, unmet

from actloop.sim.assets.bowl import BOWL_HEIGHT, BOWL_INNER_BOTTOM_RADIUS, BOWL_RIM_RADIUS
from actloop.sim.assets.common import yaw_quat
from actloop.suites.vabench.confirm import CONFIRMED
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.protocol.step import Evaluation
from actloop.suites.vabench.tasks.place_cube_in_bowl import PLACEMENT

TASK = "place_cube_in_bowl"  # the conftest ``env`` fixture builds it at seed 1000
REST = PLACEMENT.rest_height_m - 0.0005  # resting on the floor, 0.5 mm into it so the contact exists


def _state(
    env: SpatialEnv,
    offset: tuple[float, float, float],
    lifted: bool = True,
    closed: bool = False,
    bowl_shift: float = 0.0,
) -> Evaluation:
    """Put the cube at ``offset`` from the bowl origin (after a lift if ``lifted``); evaluate."""
    stage_placement(
        env,
        "cube",
        "bowl",
        offset,
        yaw_quat(0.3),
        lifted=lifted,
        goal_shift=(bowl_shift, 0.0, 0.0),
        closed=closed,
    )
    return env.evaluate()


def test_cube_resting_in_the_bowl_succeeds(env: SpatialEnv) -> None:
    evaluation = _state(env, (0.0, 0.0, REST))
    assert evaluation.success and evaluation.paper_success
    assert evaluation.checkpoints["placed"] and evaluation.checkpoints["released"]


def test_cube_off_centre_in_the_bowl_succeeds(env: SpatialEnv) -> None:
    evaluation = _state(env, (0.02, -0.015, REST))
    assert evaluation.success and evaluation.paper_success


@pytest.mark.parametrize(
    ("offset", "lifted", "closed", "bowl_shift", "failing"),
    [
        ((0.12, 0.0, 0.0215), True, False, 0.0, {"center_distance_lt_55mm", "contact"}),  # beside
        ((0.0, 0.0, REST), True, True, 0.0, {"gripper_open"}),  # in the bowl, still gripped
        ((0.0, 0.0, 0.07), True, True, 0.0, {"contact", "gripper_open"}),  # held above, not touching
        ((0.0, 0.0, 0.07), True, False, 0.0, {"contact"}),  # hovering above without support
        ((0.0, 0.0, REST), True, False, 0.006, {"bowl_displacement_lt_5mm"}),  # bowl pushed 6 mm
        ((0.0, 0.0, REST), False, False, 0.0, {"previously_lifted_50mm"}),  # teleported, never lifted
    ],
)
def test_near_misses_fail(
    env: SpatialEnv,
    offset: tuple[float, float, float],
    lifted: bool,
    closed: bool,
    bowl_shift: float,
    failing: set[str],
) -> None:
    evaluation = _state(env, offset, lifted, closed, bowl_shift)
    assert set(unmet(evaluation.paper_conditions)) == failing
    assert set(unmet(evaluation.conditions)) == failing | {CONFIRMED}


@pytest.mark.parametrize(("dx", "yaw"), [(0.0, 0.0), (0.03, 0.785), (-0.02, 0.4)])
def test_a_dropped_cube_comes_to_rest_inside_and_barely_moves_the_bowl(
    env: SpatialEnv, dx: float, yaw: float
) -> None:
    bowl = env.context.initial_positions["bowl"]
    teleport(env, "cube", bowl + np.array([dx, 0.01, 0.08]), yaw_quat(yaw))
    settle(env, 600, from_rest=True)
    metrics = env.evaluate().metrics
    assert 15.0 <= metrics["relative_height_mm"] <= 35.0
    assert metrics["center_distance_mm"] < 55.0
    assert metrics["bowl_displacement_mm"] < 1.0


def test_bowl_geometry_fits_a_rotated_cube_and_the_open_fingers() -> None:
    assert 2 * BOWL_INNER_BOTTOM_RADIUS >= 0.09
    assert 0.045 <= BOWL_HEIGHT <= 0.055
    assert BOWL_RIM_RADIUS > BOWL_INNER_BOTTOM_RADIUS


def test_bowl_settles_upright_and_weighs_0_4_kg(env: SpatialEnv) -> None:
    model = env.world.model
    assert model.body_subtreemass[model.body("bowl").id] == pytest.approx(0.4)
    assert env.world.body_position("bowl")[2] == pytest.approx(0.74, abs=5e-4)
    assert env.world.body_rotation("bowl")[2, 2] > 0.9999
