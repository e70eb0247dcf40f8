"""place_cube_on_cube: checker positives and near-misses (incl. the overlap limit).

Reset state and layout ranges: test_families.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scene_edit import stage_placement, unmet

from actloop.sim.assets.common import yaw_quat
from actloop.vabench.env import SpatialEnv
from actloop.vabench.tasks.grasp_single_cube import CUBE_HALF
from actloop.vabench.tasks.place_cube_on_cube import BASE_HALF, top_surface_overlap_m

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
) -> set[str]:
    """Put the red cube at ``along_base`` (base x, base y, world z) from the base centre; failing names."""
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
    return set(unmet(env.evaluate().conditions))


@pytest.mark.parametrize(
    ("along_base", "relative_yaw"),
    [
        ((0.0, 0.0, ON_TOP), 0.0),  # centred and aligned
        ((0.0, 0.0, ON_TOP), np.pi / 4),  # centred, turned 45° on the base
        ((OVERLAP_LIMIT_OFFSET - 0.001, 0.0, ON_TOP), 0.0),  # 1 mm inside the overlap limit
        ((0.0, -(OVERLAP_LIMIT_OFFSET - 0.001), ON_TOP), 0.0),  # the same along the other axis
    ],
)
def test_stacked_states_succeed(
    env: SpatialEnv, along_base: tuple[float, float, float], relative_yaw: float
) -> None:
    assert _state(env, along_base, relative_yaw=relative_yaw) == set()
    assert env.evaluate().checkpoints["released"]


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
    assert _state(env, along_base, lifted, closed, base_shift) == failing


def test_overlap_is_measured_along_the_base_axes(env: SpatialEnv) -> None:
    _state(env, (0.03, -0.01, ON_TOP))
    overlap_x, overlap_y = top_surface_overlap_m(env.context)
    assert overlap_x == pytest.approx(BASE_HALF + CUBE_HALF - 0.03, abs=1e-6)
    assert overlap_y == pytest.approx(BASE_HALF + CUBE_HALF - 0.01, abs=1e-6)
