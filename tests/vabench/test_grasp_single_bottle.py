"""grasp_single_bottle: checker positives and near-misses, layout ranges, the bottle presets."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from actloop.sim.assets.bottle import BOTTLE_MODELS
from actloop.sim.robot import FINGER_TRAVEL
from actloop.vabench.env import SpatialEnv
from actloop.vabench.task import get_task

TASK = "grasp_single_bottle"


@pytest.fixture
def env() -> Iterator[SpatialEnv]:
    environment = SpatialEnv(TASK, 1000)
    environment.reset()
    yield environment
    environment.close()


def _lift_bottle(env: SpatialEnv, lift_m: float, gripper_closed: bool) -> dict[str, bool]:
    """Teleport the bottle ``lift_m`` above its start and set the gripper command; return conditions."""
    adr = int(env.world.model.joint("bottle_joint").qposadr[0])
    env.world.data.qpos[adr + 2] = env.context.initial_positions["bottle"][2] + lift_m
    env.world.data.ctrl[env.context.arms["right"].gripper_ctrl] = 0.0 if gripper_closed else FINGER_TRAVEL
    return env.evaluate().conditions


def test_lifted_55mm_with_gripper_closed_succeeds(env: SpatialEnv) -> None:
    assert _lift_bottle(env, 0.055, gripper_closed=True) == {
        "lifted_gt_50mm": True,
        "right_gripper_closed": True,
    }


@pytest.mark.parametrize(
    ("lift", "closed", "failing"),
    [
        (0.045, True, "lifted_gt_50mm"),  # lifted only 45 mm
        (0.049, True, "lifted_gt_50mm"),  # 1 mm short of the threshold
        (0.0, True, "lifted_gt_50mm"),  # gripper closed, bottle still on the table
        (0.080, False, "right_gripper_closed"),  # high enough, but the gripper is open
    ],
)
def test_near_misses_fail(env: SpatialEnv, lift: float, closed: bool, failing: str) -> None:
    conditions = _lift_bottle(env, lift, closed)
    assert conditions[failing] is False
    assert not all(conditions.values())


def test_initial_state_is_not_a_success(env: SpatialEnv) -> None:
    evaluation = env.evaluate()
    assert evaluation.success is False
    assert evaluation.checkpoints == {"approached": False, "grasped": False, "lifted": False}


def test_bottle_lies_on_its_side_along_the_sampled_yaw(env: SpatialEnv) -> None:
    axis = env.world.body_rotation("bottle")[:, 2]
    assert abs(axis[2]) < 1e-3
    assert np.arctan2(axis[1], axis[0]) == pytest.approx(env.task.layout["yaw"], abs=1e-3)


def test_layout_respects_table_22_ranges() -> None:
    for seed in range(1000, 1100):
        layout = get_task(TASK)(seed).layout
        assert 0.20 <= layout["x"] <= 0.28 and -0.16 <= layout["y"] <= -0.04
        assert -np.pi / 8 <= layout["yaw"] <= np.pi / 8
        assert layout["model_id"] == "water_bottle"


@pytest.mark.parametrize("model_id", sorted(BOTTLE_MODELS))
def test_bottle_presets_fit_the_gripper(model_id: str) -> None:
    model = BOTTLE_MODELS[model_id]
    widths = [2 * s.apothem / np.cos(np.pi / s.sides) for s in model.sections]  # across the corners
    assert max(widths) == pytest.approx(widths[0]) and widths[0] <= 0.066
    assert model.sections[-1].color != model.body.color
    assert model.cap_above_body < 0.0325
    assert model.upright_rest_height - model.lying_rest_height > 0.045
