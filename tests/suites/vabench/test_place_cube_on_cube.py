"""place_cube_on_cube: checker positives and near-misses (incl. the overlap limit), for the hardened
checker and the seed's literal one.

The staged states put the red cube at rest on (or near) the base with the arm at home, so
``object_clear_of_robot`` holds throughout; ``confirmed_after_settle`` runs whenever every other hardened
condition holds. Reset state and layout ranges: test_families.py; near-misses driven through
``env.step``: test_hardened_checkers.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scene_edit import stage_placement, unmet

from actloop.sim.assets.common import yaw_quat
from actloop.suites.vabench.confirm import CONFIRMED
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.protocol.step import Evaluation
from actloop.suites.vabench.tasks.grasp_single_cube import CUBE_HALF
from actloop.suites.vabench.tasks.place_cube_on_cube import BASE_HALF, top_surface_overlap_m

TASK = "place_cube_on_cube"  # the conftest ``env`` fixture builds it at seed 1000
ON_TOP = BASE_HALF + CUBE_HALF - 0.0005  # resting on the base, 0.5 mm into it so the contact exists
OVERLAP_LIMIT_OFFSET = BASE_HALF + CUBE_HALF - 0.002  # offset along a base axis leaving exactly 2 mm


def _state(
    env: SpatialEnv,
    along_base: tuple[float, float, float],
    lifted: bool = True,
    closed: bool = False,
    base_shift: float = 0.0,
    relative_yaw: float = 0.0,
) -> Evaluation:
    """Put the red cube at ``along_base`` (base x, base y, world z) from the base centre; evaluate."""
    base_yaw = env.task.layout["base_yaw"]
    c, s = np.cos(base_yaw), np.sin(base_yaw)
    u, v, z = along_base
    stage_placement(
        env,
        "cube",
        "base",
        (c * u - s * v, s * u + c * v, z),
        yaw_quat(base_yaw + relative_yaw),
        lifted=lifted,
        goal_shift=(base_shift, 0.0, 0.0),
        goal_quat=yaw_quat(base_yaw),
        closed=closed,
    )
    return env.evaluate()


@pytest.mark.parametrize(
    ("along_base", "relative_yaw"),
    [
        ((0.0, 0.0, ON_TOP), 0.0),  # centred and aligned
        ((0.0, 0.0, ON_TOP), np.pi / 4),  # centred, turned 45° on the base
        ((0.01, -0.008, ON_TOP), 0.3),  # off-centre, its centre of mass well inside the top face
    ],
)
def test_stacked_states_succeed(
    env: SpatialEnv, along_base: tuple[float, float, float], relative_yaw: float
) -> None:
    evaluation = _state(env, along_base, relative_yaw=relative_yaw)
    assert evaluation.success and evaluation.paper_success
    assert evaluation.checkpoints["released"]


@pytest.mark.parametrize(
    "along_base",
    [
        (OVERLAP_LIMIT_OFFSET - 0.001, 0.0, ON_TOP),  # 1 mm inside the overlap limit
        (0.0, -(OVERLAP_LIMIT_OFFSET - 0.001), ON_TOP),  # the same along the other axis
    ],
)
def test_a_cube_overhanging_the_base_past_its_centre_of_mass_fools_only_the_paper_checker(
    env: SpatialEnv, along_base: tuple[float, float, float]
) -> None:
    """3 mm of overlap meets the paper's 2 mm, but the cube's centre sits 19 mm beyond the base's edge:
    it tips off as soon as the physics runs, which the settle confirmation sees."""
    evaluation = _state(env, along_base)
    assert evaluation.paper_success
    assert unmet(evaluation.conditions) == [CONFIRMED]


@pytest.mark.parametrize(
    ("along_base", "lifted", "closed", "base_shift", "failing"),
    [
        ((OVERLAP_LIMIT_OFFSET + 0.001, 0.0, ON_TOP), True, False, 0.0, {"top_surface_overlap_ge_2mm"}),
        ((0.0, OVERLAP_LIMIT_OFFSET + 0.001, ON_TOP), True, False, 0.0, {"top_surface_overlap_ge_2mm"}),
        (  # on the table next to the base
            (0.08, 0.0, CUBE_HALF - BASE_HALF - 0.0005),
            True,
            False,
            0.0,
            {"top_surface_overlap_ge_2mm", "height_error_le_12mm", "contact"},
        ),
        ((0.0, 0.0, ON_TOP), True, False, 0.015, {"base_displacement_le_12mm"}),  # base pushed 15 mm
        ((0.0, 0.0, ON_TOP), True, True, 0.0, {"gripper_open"}),  # stacked but still gripped
        ((0.0, 0.0, ON_TOP + 0.015), True, True, 0.0, {"height_error_le_12mm", "contact", "gripper_open"}),
        ((0.0, 0.0, ON_TOP), False, False, 0.0, {"previously_lifted_50mm"}),  # teleported, never lifted
    ],
)
def test_near_misses_fail(
    env: SpatialEnv,
    along_base: tuple[float, float, float],
    lifted: bool,
    closed: bool,
    base_shift: float,
    failing: set[str],
) -> None:
    evaluation = _state(env, along_base, lifted, closed, base_shift)
    assert set(unmet(evaluation.paper_conditions)) == failing
    assert set(unmet(evaluation.conditions)) == failing | {CONFIRMED}


def test_overlap_is_measured_along_the_base_axes(env: SpatialEnv) -> None:
    _state(env, (0.03, -0.01, ON_TOP))
    overlap_x, overlap_y = top_surface_overlap_m(env.context)
    assert overlap_x == pytest.approx(BASE_HALF + CUBE_HALF - 0.03, abs=1e-6)
    assert overlap_y == pytest.approx(BASE_HALF + CUBE_HALF - 0.01, abs=1e-6)
