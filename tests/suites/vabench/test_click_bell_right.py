"""click_bell_right: checker cases for both bell models, staged by teleporting the bell against the
gripper at its home pose.

The staged bell floats in the air, held up by nothing but the gripper it is pushed against, so the settle
confirmation (in which it falls) fails even where every other condition holds: these cases pin down the
seed's literal conditions and our state conditions. Presses that succeed, and near-misses driven through
``env.step``, are in test_hardened_checkers.py; reset state and layout ranges in test_families.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scene_edit import MakeEnv, set_gripper, teleport

from actloop.sim.assets.bell import BELL_MODELS, BellModel
from actloop.sim.robot import FINGER_TRAVEL
from actloop.suites.vabench.confirm import CONFIRMED
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.protocol.step import Evaluation
from actloop.suites.vabench.tasks._functional_contact import arm_contact_points, pad_reach

TASK = "click_bell_right"
SEEDS = {1: 1000, 0: 1003}  # bell model id -> a seed that uses it
PRESS = "contact_within_25mm_xy_30mm_z"
FINGERS_CLOSED, DOWNWARD_PRESS = "right_fingers_closed", "downward_finger_press_on_button"


@pytest.fixture(params=sorted(SEEDS), ids=lambda m: f"model{m}")
def env(request: pytest.FixtureRequest, make_env: MakeEnv) -> SpatialEnv:
    environment = make_env(TASK, SEEDS[request.param])
    assert environment.task.layout["model_id"] == request.param
    return environment


def _place_bell(
    env: SpatialEnv, offset: tuple[float, float, float], height: float, closed: bool
) -> Evaluation:
    """Teleport the bell so a point ``height`` above its bottom sits at ``offset`` from the pads' tips.

    The gripper is commanded closed or open and its fingers put where the command leads them. The pads'
    tips are the point ``pad_reach`` below GC along the downward approach axis; a positive z offset
    presses that point into the bell. Returns the evaluation.
    """
    set_gripper(env, closed, fingers=0.0 if closed else FINGER_TRAVEL)
    tip = env.context.arms["right"].gc(env.world.data) - np.array([0.0, 0.0, pad_reach(env.context, "right")])
    teleport(env, "bell", tip + np.asarray(offset) - np.array([0.0, 0.0, height]))
    return env.evaluate()


def _model(env: SpatialEnv) -> BellModel:
    return BELL_MODELS[env.task.layout["model_id"]]


def test_button_pressed_with_the_closed_gripper_meets_the_state_conditions(env: SpatialEnv) -> None:
    evaluation = _place_bell(env, (0.0, 0.0, 0.001), _model(env).button_top_z, closed=True)
    assert evaluation.paper_conditions == {"gripper_closed": True, PRESS: True}
    assert evaluation.conditions == {FINGERS_CLOSED: True, DOWNWARD_PRESS: True, CONFIRMED: False}
    assert all(env.evaluate().checkpoints.values())


def test_button_pressed_with_the_open_gripper_fails(env: SpatialEnv) -> None:
    pad_x = FINGER_TRAVEL + 0.0035  # one open pad's centre, along the closing axis (world x at home)
    evaluation = _place_bell(env, (pad_x, 0.0, 0.001), _model(env).button_top_z, closed=False)
    assert arm_contact_points(env.context, "right", "bell")
    assert evaluation.paper_conditions == {"gripper_closed": False, PRESS: True}
    assert evaluation.conditions == {FINGERS_CLOSED: False, DOWNWARD_PRESS: True, CONFIRMED: False}


def test_closed_gripper_on_the_base_40mm_from_the_button_fails(env: SpatialEnv) -> None:
    model = _model(env)
    # Across the closing axis the closed pads' tips span 38-58 mm from the bell's axis: on the base's rim.
    offset = (0.0, 0.048, 0.001)
    evaluation = _place_bell(env, offset, model.base_height, closed=True)
    points = arm_contact_points(env.context, "right", "bell")
    axis = env.world.body_position("bell")
    assert points and min(np.hypot(*(p - axis)[:2]) for p in points) > 0.035
    assert evaluation.paper_conditions == {"gripper_closed": True, PRESS: False}
    assert evaluation.conditions == {FINGERS_CLOSED: True, DOWNWARD_PRESS: False, CONFIRMED: False}


def test_closed_gripper_hovering_5mm_above_the_button_fails(env: SpatialEnv) -> None:
    evaluation = _place_bell(env, (0.0, 0.0, -0.005), _model(env).button_top_z, closed=True)
    assert not arm_contact_points(env.context, "right", "bell")
    assert evaluation.paper_conditions == {"gripper_closed": True, PRESS: False}
    assert evaluation.conditions == {FINGERS_CLOSED: True, DOWNWARD_PRESS: False, CONFIRMED: False}


def test_every_bell_model_is_exercised() -> None:
    assert set(SEEDS) == set(range(len(BELL_MODELS))) == {0, 1}
