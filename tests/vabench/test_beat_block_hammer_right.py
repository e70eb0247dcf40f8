"""beat_block_hammer_right: checker positives and near-misses, layout ranges."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from actloop.sim.assets.hammer import HAMMER, hammer_face_site
from actloop.sim.robot import FINGER_TRAVEL
from actloop.vabench.env import SpatialEnv
from actloop.vabench.task import get_task
from actloop.vabench.tasks._functional_contact import pad_reach
from actloop.vabench.tasks.beat_block_hammer_right import BLOCK_HALF, GRIP_FROM_HEAD_M, hammer_heading

TASK = "beat_block_hammer_right"
SEED = 1000
LIFTED = "lifted_with_contact_gt_40mm"
PENETRATION = 0.0005


@pytest.fixture
def env() -> Iterator[SpatialEnv]:
    environment = SpatialEnv(TASK, SEED)
    environment.reset()
    yield environment
    environment.close()


def _set_free_body(env: SpatialEnv, body: str, pos: np.ndarray, quat: np.ndarray | None = None) -> None:
    adr = int(env.world.model.joint(f"{body}_joint").qposadr[0])
    env.world.data.qpos[adr : adr + 3] = pos
    if quat is not None:
        env.world.data.qpos[adr + 3 : adr + 7] = quat
    env.world.forward()


def _set_gripper(env: SpatialEnv, opening: float, closed: bool) -> None:
    """Put each finger ``opening`` from the centre and command the gripper closed or open."""
    arm = env.context.arms["right"]
    env.world.data.qpos[list(arm.finger_qpos)] = opening
    env.world.data.ctrl[arm.gripper_ctrl] = 0.0 if closed else FINGER_TRAVEL
    env.world.forward()


def _hold_hammer(env: SpatialEnv) -> None:
    """Teleport the hammer into the closed gripper at its home pose, gripped near the head as the expert does.

    At home the closing axis is world x, so the handle runs along world y (hammer yaw 0); the pads' tips
    are 1 mm above the hammer's bottom plane. The hammer ends up about 200 mm above its start.
    """
    heading = hammer_heading(0.0)
    gc = env.context.arms["right"].gc(env.world.data)
    grip_x = HAMMER.head_centre_x - GRIP_FROM_HEAD_M
    origin = gc - np.array([0.0, grip_x, pad_reach(env.context, "right") + 0.001])
    _set_free_body(env, "hammer", origin, np.array([np.cos(heading / 2), 0.0, 0.0, np.sin(heading / 2)]))
    _set_gripper(env, HAMMER.handle_width / 2 - PENETRATION, closed=True)


def _grasp_in_the_air(env: SpatialEnv) -> dict[str, bool]:
    """Hold the hammer in the air and evaluate, which latches the lift condition."""
    _hold_hammer(env)
    return env.evaluate().conditions


def _block_under_face(
    env: SpatialEnv, dx: float = 0.0, dy: float = 0.0, gap: float = -0.001
) -> dict[str, bool]:
    """Put the block's top centre ``gap`` below the hammer's face (negative: into it), shifted by dx/dy."""
    face = env.world.data.site(hammer_face_site("hammer")).xpos
    _set_free_body(env, "block", face + np.array([dx, dy, -gap - BLOCK_HALF]))
    return env.evaluate().conditions


def test_hammer_lifted_and_struck_on_the_block_succeeds(env: SpatialEnv) -> None:
    assert _grasp_in_the_air(env)[LIFTED] is True
    conditions = _block_under_face(env)
    assert all(conditions.values()), conditions
    assert all(env.evaluate().checkpoints.values())


def test_hammer_lifted_but_not_touching_the_block_fails(env: SpatialEnv) -> None:
    _grasp_in_the_air(env)
    conditions = _block_under_face(env, gap=0.005)
    assert [k for k, v in conditions.items() if not v] == ["hammer_block_contact"]


@pytest.mark.parametrize(
    ("dx", "dy", "failing"),
    [
        (0.025, 0.0, "face_x_error_lt_20mm"),  # along the head, 25 mm off
        (0.0, 0.025, "face_y_error_lt_20mm"),  # beyond the head's far side, 25 mm off
    ],
)
def test_head_touching_the_block_25mm_off_centre_fails(
    env: SpatialEnv, dx: float, dy: float, failing: str
) -> None:
    _grasp_in_the_air(env)
    conditions = _block_under_face(env, dx=dx, dy=dy)
    assert [k for k, v in conditions.items() if not v] == [failing]


def test_hammer_placed_on_the_block_without_being_lifted_fails(env: SpatialEnv) -> None:
    _set_gripper(env, 0.0, closed=True)
    block_top = env.world.body_position("block") + np.array([0.0, 0.0, BLOCK_HALF])
    face = env.world.data.site(hammer_face_site("hammer")).xpos
    _set_free_body(env, "hammer", env.world.body_position("hammer") + block_top - face - [0.0, 0.0, 0.001])
    conditions = env.evaluate().conditions
    assert [k for k, v in conditions.items() if not v] == [LIFTED]


def test_hammer_lifted_only_30mm_fails(env: SpatialEnv) -> None:
    _hold_hammer(env)
    env.context.initial_positions["hammer"][2] = env.world.body_position("hammer")[2] - 0.03
    assert env.evaluate().conditions[LIFTED] is False
    conditions = _block_under_face(env)
    assert [k for k, v in conditions.items() if not v] == [LIFTED]


def test_hammer_on_the_block_with_the_gripper_open_fails(env: SpatialEnv) -> None:
    _grasp_in_the_air(env)
    _block_under_face(env)
    _set_gripper(env, FINGER_TRAVEL, closed=False)
    conditions = env.evaluate().conditions
    assert [k for k, v in conditions.items() if not v] == ["gripper_closed"]


def test_initial_state_is_not_a_success(env: SpatialEnv) -> None:
    evaluation = env.evaluate()
    assert evaluation.success is False
    assert not any(evaluation.checkpoints.values())
    assert set(evaluation.checkpoints) == {"approached", "grasped", "lifted", "over_block", "struck"}


def test_layout_respects_table_24_ranges() -> None:
    for seed in range(1000, 1100):
        layout = get_task(TASK)(seed).layout
        assert 0.02 <= layout["hammer_x"] <= 0.06 and -0.10 <= layout["hammer_y"] <= -0.04
        assert 0.14 <= layout["block_x"] <= 0.22 and 0.06 <= layout["block_y"] <= 0.13
        assert -0.5 <= layout["yaw"] <= 0.5
