"""Two arms in one scene: both can tilt from home, and the executor refuses motions that would make them
collide (in physics the arms do collide, so a refused plan is the only safe answer)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from actloop.control.executor import Executor
from actloop.sim.arm import ArmHandle
from actloop.sim.scene import LEFT_ARM, RIGHT_ARM, SceneConfig, build_model
from actloop.sim.world import World
from actloop.suites.vabench.home import home_configuration

ARMS = ("left", "right")


def _executor() -> Executor:
    world = World(build_model(SceneConfig(arms=(LEFT_ARM, RIGHT_ARM))))
    arms = {name: ArmHandle.from_model(world.model, name) for name in ARMS}
    for name, handle in arms.items():
        handle.set_configuration(world.data, home_configuration(name), gripper_open=True)
    world.forward()
    return Executor(world, arms)


def _arms_touch(executor: Executor) -> bool:
    left, right = executor.arms["left"].geoms, executor.arms["right"].geoms
    return executor.world.in_contact(left, right)


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("arm", ARMS)
def test_each_arm_tilts_45_degrees_about_every_local_axis_from_home(arm: str, axis: int, sign: int) -> None:
    result = _executor().rotate_local(arm, axis, sign * math.radians(45.0))
    assert result.success, result.reason


def test_a_single_arm_move_into_the_other_arm_is_refused_before_anything_moves() -> None:
    executor = _executor()
    refusal = None
    for _ in range(6):  # the right hand travels towards the left one, 50 mm at a time
        before = executor.world.state_hash()
        result = executor.move_world({"right": np.array([-0.05, 0.0, 0.0])})
        if not result.success:
            refusal = result.reason
            assert executor.world.state_hash() == before
            break
        assert not _arms_touch(executor)
    assert refusal == "the right arm would collide with the left arm; move one of them clear first"
    gap = executor.arms["right"].gc(executor.world.data)[0] - executor.arms["left"].gc(executor.world.data)[0]
    assert 0.15 < gap < 0.30  # refused where the palms (200 mm across) would meet, not earlier


def test_a_synchronized_move_towards_each_other_is_refused_and_apart_is_allowed() -> None:
    executor = _executor()
    apart = executor.move_world({"left": np.array([-0.05, 0.0, 0.0]), "right": np.array([0.05, 0.0, 0.0])})
    assert apart.success, apart.reason
    toward = {"left": np.array([0.1, 0.0, 0.0]), "right": np.array([-0.1, 0.0, 0.0])}
    assert executor.move_world(toward).success  # 0.6 m apart -> 0.4 m
    result = executor.move_world(toward)  # 0.4 m -> 0.2 m: the palms would overlap
    assert not result.success
    assert "would collide with the" in result.reason and "arm" in result.reason
    assert not _arms_touch(executor)


def test_a_rotation_that_swings_a_hand_into_the_other_arm_is_refused() -> None:
    executor = _executor()
    for _ in range(2):  # GCs 0.3 m apart along x, each palm 0.2 m long along x
        together = {"right": np.array([-0.05, 0.0, 0.0]), "left": np.array([0.05, 0.0, 0.0])}
        assert executor.move_world(together).success
    # tilting about rz swings the fingers sideways in x: +60 degrees towards the left arm, -60 away
    assert executor.rotate_local("right", 2, math.radians(-60.0)).success
    executor = _executor()
    for _ in range(2):
        executor.move_world({"right": np.array([-0.05, 0.0, 0.0]), "left": np.array([0.05, 0.0, 0.0])})
    result = executor.rotate_local("right", 2, math.radians(60.0))
    assert not result.success and "collide with the left arm" in result.reason
    assert not _arms_touch(executor)
