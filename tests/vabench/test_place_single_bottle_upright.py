"""place_single_bottle_upright: checker positives and near-misses, layout ranges."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from actloop.protocol.decisions import MoveWorld, SetGripper, Translation
from actloop.sim.assets.common import axis_quat
from actloop.sim.robot import FINGER_TRAVEL
from actloop.vabench.env import SpatialEnv
from actloop.vabench.task import get_task

TASK = "place_single_bottle_upright"
UPRIGHT = axis_quat(0.0, np.pi / 2)
LYING = axis_quat(0.0, 0.0)


@pytest.fixture
def env() -> Iterator[SpatialEnv]:
    environment = SpatialEnv(TASK, 1000)
    environment.reset()
    yield environment
    environment.close()


def _put(env: SpatialEnv, body: str, pos: Sequence[float], quat: Sequence[float]) -> None:
    """Teleport a free body to rest at ``pos``/``quat``."""
    joint = env.world.model.joint(f"{body}_joint")
    adr, dof = int(joint.qposadr[0]), int(joint.dofadr[0])
    env.world.data.qpos[adr : adr + 3] = pos
    env.world.data.qpos[adr + 3 : adr + 7] = quat
    env.world.data.qvel[dof : dof + 6] = 0.0


def _place(
    env: SpatialEnv,
    offset: Sequence[float] = (0.0, 0.0, 0.0),
    lying: bool = False,
    lifted: bool = True,
    pad_shift: float = 0.0,
    settle_steps: int = 50,
) -> dict[str, bool]:
    """Put the bottle on the pad (upright or lying) at ``offset`` from its resting pose, open the
    gripper, optionally after a 60 mm lift, and return the conditions."""
    bottle_start = env.context.initial_positions["bottle"]
    if lifted:
        _put(env, "bottle", bottle_start + np.array([0.0, 0.0, 0.06]), UPRIGHT)
        env.evaluate()  # latches "previously lifted"
    pad = env.context.initial_positions["target"] + np.array([pad_shift, 0.0, 0.0])
    _put(env, "target", pad, (1.0, 0.0, 0.0, 0.0))
    model = env.task.model
    rest = model.lying_rest_height if lying else model.upright_rest_height
    _put(env, "bottle", pad + np.array([0.0, 0.0, rest]) + np.asarray(offset), LYING if lying else UPRIGHT)
    env.world.data.ctrl[env.context.arms["right"].gripper_ctrl] = FINGER_TRAVEL
    env.world.step(settle_steps)
    return env.evaluate().conditions


def test_bottle_upright_on_the_pad_after_a_lift_succeeds(env: SpatialEnv) -> None:
    conditions = _place(env, offset=(0.01, -0.02, 0.0))
    assert conditions == {
        "previously_lifted_50mm": True,
        "x_error_le_40mm": True,
        "y_error_le_40mm": True,
        "height_error_le_35mm": True,
        "target_displacement_le_2mm": True,
        "contact": True,
        "gripper_open": True,
    }


@pytest.mark.parametrize(
    ("kwargs", "failing"),
    [
        ({"lying": True}, "height_error_le_35mm"),  # placed lying down on the pad
        ({"lifted": False}, "previously_lifted_50mm"),  # never lifted (pushed/teleported there)
        ({"offset": (0.045, 0.0, 0.0)}, "x_error_le_40mm"),  # 45 mm off in x, still on the pad
        ({"offset": (0.0, -0.045, 0.0)}, "y_error_le_40mm"),  # 45 mm off in y
        ({"offset": (0.0, 0.0, 0.02), "settle_steps": 0}, "contact"),  # hovering 20 mm above
        ({"pad_shift": 0.005}, "target_displacement_le_2mm"),  # the pad was pushed 5 mm
        ({"offset": (0.09, 0.0, -0.006)}, "x_error_le_40mm"),  # standing on the table beside the pad
    ],
)
def test_near_misses_fail(env: SpatialEnv, kwargs: dict, failing: str) -> None:
    conditions = _place(env, **kwargs)
    assert conditions[failing] is False


def test_bottle_on_the_pad_but_still_gripped_fails_only_on_gripper_open(env: SpatialEnv) -> None:
    _run_expert_until_release(env)
    result = env.step(MoveWorld(Translation("z", "-", 4.0)))  # press the held bottle onto the pad
    failed = {name for name, ok in result.evaluation.conditions.items() if not ok}
    assert failed == {"gripper_open"}
    assert result.evaluation.checkpoints["over_target"] and result.evaluation.checkpoints["placed"]
    assert not result.evaluation.checkpoints["released"]


def _run_expert_until_release(env: SpatialEnv) -> None:
    """Execute the expert's plan up to, not including, opening the gripper over the pad."""
    for action in env.task.expert(env.context):
        if isinstance(action, SetGripper) and action.command == "open":
            return
        assert env.step(action).observation.feedback.planner_success
    raise AssertionError("the expert never released the bottle")


def test_initial_state_is_not_a_success(env: SpatialEnv) -> None:
    evaluation = env.evaluate()
    assert evaluation.success is False
    assert not any(evaluation.checkpoints.values())
    assert set(evaluation.checkpoints) == {
        "approached",
        "grasped",
        "lifted",
        "over_target",
        "placed",
        "released",
    }


def test_layout_respects_table_23_ranges() -> None:
    for seed in range(1000, 1100):
        layout = get_task(TASK)(seed).layout
        assert 0.20 <= layout["x"] <= 0.28 and -0.16 <= layout["y"] <= -0.04
        assert 0.03 <= layout["target_x"] <= 0.09 and 0.07 <= layout["target_y"] <= 0.13
