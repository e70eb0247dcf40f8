"""place_single_cube: checker positives and near-misses, layout ranges."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from actloop.sim.assets.common import yaw_quat
from actloop.vabench.env import SpatialEnv
from actloop.vabench.task import get_task
from actloop.vabench.tasks.grasp_single_cube import CUBE_HALF
from actloop.vabench.tasks.place_single_cube import PAD_CLEARANCE_M, pad_distance_m

TASK = "place_single_cube"
ON_PAD = CUBE_HALF - 0.0005  # resting on the pad, 0.5 mm into it so the contact exists


@pytest.fixture
def env() -> Iterator[SpatialEnv]:
    environment = SpatialEnv(TASK, 1000)
    environment.reset()
    yield environment
    environment.close()


def _teleport(env: SpatialEnv, body: str, pos: np.ndarray, yaw: float = 0.0) -> None:
    adr = int(env.world.model.joint(f"{body}_joint").qposadr[0])
    env.world.data.qpos[adr : adr + 3] = pos
    env.world.data.qpos[adr + 3 : adr + 7] = yaw_quat(yaw)


def _state(
    env: SpatialEnv,
    offset: tuple[float, float, float],
    lifted: bool = True,
    closed: bool = False,
    target_shift: float = 0.0,
) -> set[str]:
    """Put the cube at ``offset`` from the pad's top centre (after a lift if ``lifted``); failing names."""
    start = env.context.initial_positions["cube"]
    if lifted:
        _teleport(env, "cube", start + np.array([0.0, 0.0, 0.06]))
        env.evaluate()  # latches previously_lifted
    target = env.context.initial_positions["target"] + np.array([0.0, target_shift, 0.0])
    _teleport(env, "target", target)
    _teleport(env, "cube", target + np.array(offset), yaw=0.5)
    env.world.data.ctrl[env.context.arms["right"].gripper_ctrl] = 0.0 if closed else 0.04
    return {name for name, ok in env.evaluate().conditions.items() if not ok}


@pytest.mark.parametrize("offset", [(0.0, 0.0, ON_PAD), (0.034, -0.034, ON_PAD)])
def test_cube_on_the_pad_succeeds(env: SpatialEnv, offset: tuple[float, float, float]) -> None:
    assert _state(env, offset) == set()
    evaluation = env.evaluate()
    assert evaluation.success and evaluation.checkpoints["released"]


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
    assert _state(env, offset, lifted, closed, target_shift) == failing


def test_initial_state_is_not_a_success(env: SpatialEnv) -> None:
    evaluation = env.evaluate()
    assert evaluation.success is False
    assert not any(evaluation.checkpoints.values())


def test_layout_matches_grasp_single_cube_and_keeps_the_cube_off_the_pad() -> None:
    for seed in range(1000, 1100):
        layout = get_task(TASK)(seed).layout
        grasp = get_task("grasp_single_cube")(seed).layout
        assert {k: layout[k] for k in ("x", "y", "yaw")} == grasp
        assert 0.18 <= layout["x"] <= 0.26 and -0.16 <= layout["y"] <= -0.06
        assert -np.pi / 4 <= layout["yaw"] <= np.pi / 4
        assert 0.10 <= layout["target_x"] <= 0.14 and 0.0 <= layout["target_y"] <= 0.04
        cube_xy, pad_xy = (layout["x"], layout["y"]), (layout["target_x"], layout["target_y"])
        assert pad_distance_m(cube_xy, pad_xy) >= PAD_CLEARANCE_M
