"""beat_block_hammer_right: checker cases staged by teleporting the hammer into the closed gripper at its
home pose and the block under the hammer's face.

The staged block floats in the air against the hammer, so the settle confirmation (in which it falls)
fails even where every other condition holds, and it is raised into the hammer, which never comes down onto
it, so no staged contact is a strike (``contact_began_as_strike``): these cases pin down the seed's literal
conditions and our other state conditions. Strikes that succeed, and near-misses driven through
``env.step``, are in test_hardened_checkers.py; reset state and layout ranges in test_families.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scene_edit import set_gripper, teleport, unmet

from actloop.sim.assets.hammer import HAMMER, hammer_face_site
from actloop.sim.robot import FINGER_TRAVEL
from actloop.suites.vabench.confirm import CONFIRMED
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.protocol.step import Evaluation
from actloop.suites.vabench.tasks._functional_contact import pad_reach
from actloop.suites.vabench.tasks.beat_block_hammer_right import (
    BLOCK_HALF,
    GRIP_FROM_HEAD_M,
    STRUCK,
    hammer_heading,
)

TASK = "beat_block_hammer_right"  # the conftest ``env`` fixture builds it at seed 1000
LIFTED = "lifted_with_contact_gt_40mm"
HELD = "hammer_held_by_handle"
PENETRATION = 0.0005


def _hold_hammer(env: SpatialEnv) -> None:
    """Teleport the hammer into the closed gripper at its home pose, gripped near the head as the expert does.

    At home the closing axis is world x, so the handle runs along world y (hammer yaw 0); the pads' tips
    are 1 mm above the hammer's bottom plane. The hammer ends up about 200 mm above its start.
    """
    heading = hammer_heading(0.0)
    gc = env.context.arms["right"].gc(env.world.data)
    grip_x = HAMMER.head_centre_x - GRIP_FROM_HEAD_M
    origin = gc - np.array([0.0, grip_x, pad_reach(env.context, "right") + 0.001])
    teleport(env, "hammer", origin, np.array([np.cos(heading / 2), 0.0, 0.0, np.sin(heading / 2)]))
    set_gripper(env, closed=True, fingers=HAMMER.handle_width / 2 - PENETRATION)


def _grasp_in_the_air(env: SpatialEnv) -> Evaluation:
    """Hold the hammer in the air and evaluate, which latches the lift condition."""
    _hold_hammer(env)
    return env.evaluate()


def _block_under_face(env: SpatialEnv, dx: float = 0.0, dy: float = 0.0, gap: float = -0.001) -> Evaluation:
    """Put the block's top centre ``gap`` below the hammer's face (negative: into it), shifted by dx/dy."""
    face = env.world.data.site(hammer_face_site("hammer")).xpos
    teleport(env, "block", face + np.array([dx, dy, -gap - BLOCK_HALF]))
    return env.evaluate()


def test_hammer_lifted_and_struck_on_the_block_meets_the_state_conditions(env: SpatialEnv) -> None:
    assert _grasp_in_the_air(env).conditions[LIFTED] is True
    evaluation = _block_under_face(env)
    assert evaluation.paper_success
    assert unmet(evaluation.conditions) == [STRUCK, CONFIRMED]  # the floating block falls away
    assert unmet(env.evaluate().checkpoints) == ["struck"]


def test_hammer_lifted_but_not_touching_the_block_fails(env: SpatialEnv) -> None:
    _grasp_in_the_air(env)
    evaluation = _block_under_face(env, gap=0.005)
    assert unmet(evaluation.paper_conditions) == ["hammer_block_contact"]
    assert unmet(evaluation.conditions) == ["hammer_block_contact", STRUCK, CONFIRMED]


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
    evaluation = _block_under_face(env, dx=dx, dy=dy)
    assert unmet(evaluation.paper_conditions) == [failing]
    assert unmet(evaluation.conditions) == [failing, STRUCK, CONFIRMED]


def test_hammer_placed_on_the_block_without_being_lifted_fails(env: SpatialEnv) -> None:
    set_gripper(env, closed=True, fingers=0.0)
    block_top = env.world.body_position("block") + np.array([0.0, 0.0, BLOCK_HALF])
    face = env.world.data.site(hammer_face_site("hammer")).xpos
    teleport(env, "hammer", env.world.body_position("hammer") + block_top - face - [0.0, 0.0, 0.001])
    evaluation = env.evaluate()
    assert unmet(evaluation.paper_conditions) == [LIFTED]
    assert unmet(evaluation.conditions) == [LIFTED, HELD, STRUCK, CONFIRMED]


def test_hammer_lifted_only_30mm_fails(env: SpatialEnv) -> None:
    _hold_hammer(env)
    env.context.initial_positions["hammer"][2] = env.world.body_position("hammer")[2] - 0.03
    assert env.evaluate().conditions[LIFTED] is False
    evaluation = _block_under_face(env)
    assert unmet(evaluation.paper_conditions) == [LIFTED]
    assert unmet(evaluation.conditions) == [LIFTED, STRUCK, CONFIRMED]


def test_hammer_on_the_block_with_the_gripper_open_fails(env: SpatialEnv) -> None:
    _grasp_in_the_air(env)
    _block_under_face(env)
    set_gripper(env, closed=False, fingers=FINGER_TRAVEL)
    evaluation = env.evaluate()
    assert unmet(evaluation.paper_conditions) == ["gripper_closed"]
    assert unmet(evaluation.conditions) == [HELD, STRUCK, CONFIRMED]
