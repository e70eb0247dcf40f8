"""Executor accuracy and rejection behaviour on the real scene."""

from __future__ import annotations

import numpy as np
import pytest

from actloop.control.executor import WORKSPACE_HIGH
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.protocol.decisions import MoveWorld, RotateLocal, Translation


def _gc(env: SpatialEnv) -> np.ndarray:
    return env.context.arms["right"].gc(env.world.data)


@pytest.mark.parametrize(
    ("axis", "sign"), [("x", "+"), ("x", "-"), ("y", "+"), ("y", "-"), ("z", "+"), ("z", "-")]
)
def test_50mm_move_moves_gc_50mm(env: SpatialEnv, axis: str, sign: str) -> None:
    before = _gc(env)
    result = env.step(MoveWorld(Translation(axis, sign, 50.0)))  # type: ignore[arg-type]
    assert result.observation.feedback.planner_success is True
    delta = _gc(env) - before
    i = "xyz".index(axis)
    assert abs(abs(delta[i]) - 0.050) <= 0.002
    assert np.sign(delta[i]) == (1 if sign == "+" else -1)
    assert np.linalg.norm(np.delete(delta, i)) < 0.002


@pytest.mark.parametrize("sign", ["+", "-"])
@pytest.mark.parametrize("axis", ["rx", "ry", "rz"])
def test_45deg_rotation_from_home_keeps_gc_within_5mm(env: SpatialEnv, axis: str, sign: str) -> None:
    before_gc = _gc(env)
    _, before_rot = env.context.arms["right"].control_pose(env.world.data)
    result = env.step(RotateLocal(axis, sign, 45.0))  # type: ignore[arg-type]
    assert result.observation.feedback.planner_success is True, result.observation.feedback.message
    assert result.observation.feedback.message == "rotation executed in 5 waypoint(s)"
    assert np.linalg.norm(_gc(env) - before_gc) < 0.005
    _, after_rot = env.context.arms["right"].control_pose(env.world.data)
    i = ("rx", "ry", "rz").index(axis)
    # the rotation axis itself is unchanged; the other axes turned by 45 degrees
    assert np.dot(before_rot[:, i], after_rot[:, i]) > np.cos(np.deg2rad(1.0))
    j = (i + 1) % 3
    assert np.rad2deg(np.arccos(np.clip(np.dot(before_rot[:, j], after_rot[:, j]), -1, 1))) == pytest.approx(
        45.0, abs=1.0
    )


def test_target_is_clamped_to_workspace(env: SpatialEnv) -> None:
    for _ in range(6):
        result = env.step(MoveWorld(Translation("z", "+", 100.0)))
    ee = env.context.arms["right"].control_pose(env.world.data)[0]
    assert ee[2] <= WORKSPACE_HIGH[2] + 0.002
    assert (
        "clamped" in result.observation.feedback.message
        or result.observation.feedback.planner_success is False
    )


def test_infeasible_target_is_rejected_before_moving(env: SpatialEnv) -> None:
    # Pushing the gripper down into the table must be refused without moving anything.
    env.step(MoveWorld(Translation("z", "-", 100.0)))
    env.step(MoveWorld(Translation("z", "-", 80.0)))
    before = env.world.state_hash()
    result = env.step(MoveWorld(Translation("z", "-", 100.0)))
    feedback = result.observation.feedback
    assert feedback.planner_success is False
    assert "collide" in feedback.message or "clamped" in feedback.message or "limit" in feedback.message
    assert env.world.state_hash() == before


def test_unreachable_far_target_is_rejected(env: SpatialEnv) -> None:
    outcomes = [env.step(MoveWorld(Translation("y", "+", 100.0))).observation.feedback for _ in range(6)]
    assert any(f.planner_success is False for f in outcomes)
    failed = next(f for f in outcomes if f.planner_success is False)
    assert failed.message
