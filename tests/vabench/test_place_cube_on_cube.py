"""place_cube_on_cube: checker positives and near-misses (incl. the overlap limit), layout ranges."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from actloop.sim.assets.common import yaw_quat
from actloop.vabench.env import SpatialEnv
from actloop.vabench.task import get_task
from actloop.vabench.tasks.grasp_single_cube import CUBE_HALF
from actloop.vabench.tasks.place_cube_on_cube import BASE_HALF, top_surface_overlap_m

TASK = "place_cube_on_cube"
ON_TOP = BASE_HALF + CUBE_HALF - 0.0005  # resting on the base, 0.5 mm into it so the contact exists
OVERLAP_LIMIT_OFFSET = BASE_HALF + CUBE_HALF - 0.002  # offset along a base axis leaving exactly 2 mm


@pytest.fixture
def env() -> Iterator[SpatialEnv]:
    environment = SpatialEnv(TASK, 1000)
    environment.reset()
    yield environment
    environment.close()


def _teleport(env: SpatialEnv, body: str, pos: np.ndarray, yaw: float) -> None:
    adr = int(env.world.model.joint(f"{body}_joint").qposadr[0])
    env.world.data.qpos[adr : adr + 3] = pos
    env.world.data.qpos[adr + 3 : adr + 7] = yaw_quat(yaw)


def _state(
    env: SpatialEnv,
    along_base: tuple[float, float, float],
    lifted: bool = True,
    closed: bool = False,
    base_shift: float = 0.0,
    relative_yaw: float = 0.0,
) -> set[str]:
    """Put the red cube at ``along_base`` (base x, base y, world z) from the base centre; failing names."""
    start = env.context.initial_positions["cube"]
    base_yaw = env.task.layout["base_yaw"]
    if lifted:
        _teleport(env, "cube", start + np.array([0.0, 0.0, 0.06]), 0.0)
        env.evaluate()  # latches previously_lifted
    base = env.context.initial_positions["base"] + np.array([base_shift, 0.0, 0.0])
    _teleport(env, "base", base, base_yaw)
    c, s = np.cos(base_yaw), np.sin(base_yaw)
    u, v, z = along_base
    _teleport(env, "cube", base + np.array([c * u - s * v, s * u + c * v, z]), base_yaw + relative_yaw)
    env.world.data.ctrl[env.context.arms["right"].gripper_ctrl] = 0.0 if closed else 0.04
    return {name for name, ok in env.evaluate().conditions.items() if not ok}


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


def test_initial_state_is_not_a_success(env: SpatialEnv) -> None:
    evaluation = env.evaluate()
    assert evaluation.success is False
    assert not any(evaluation.checkpoints.values())


def test_layout_respects_table_23_ranges() -> None:
    for seed in range(1000, 1100):
        layout = get_task(TASK)(seed).layout
        assert 0.20 <= layout["cube_x"] <= 0.26 and -0.14 <= layout["cube_y"] <= -0.06
        assert 0.10 <= layout["base_x"] <= 0.14 and 0.0 <= layout["base_y"] <= 0.04
        assert -np.pi / 4 <= layout["cube_yaw"] <= np.pi / 4
        assert -np.pi / 4 <= layout["base_yaw"] <= np.pi / 4
