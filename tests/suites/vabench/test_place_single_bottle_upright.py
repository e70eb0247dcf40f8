"""place_single_bottle_upright: checker positives and near-misses for the hardened checker and the
seed's literal one.

Reset state and layout ranges: test_families.py; near-misses driven through ``env.step``:
test_hardened_checkers.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from scene_edit import play_expert_until, settle, stage_placement, unmet

from actloop.sim.assets.common import axis_quat
from actloop.suites.vabench.confirm import CONFIRMED
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.predicates import CLEAR_OF_ROBOT
from actloop.suites.vabench.protocol.decisions import MoveWorld, SetGripper, Translation
from actloop.suites.vabench.protocol.step import Evaluation

TASK = "place_single_bottle_upright"  # the conftest ``env`` fixture builds it at seed 1000
UPRIGHT = axis_quat(0.0, np.pi / 2)
LYING = axis_quat(0.0, 0.0)
STANDING = "standing_upright_cap_up"


def _place(
    env: SpatialEnv,
    offset: Sequence[float] = (0.0, 0.0, 0.0),
    elevation_deg: float = 90.0,
    lifted: bool = True,
    pad_shift: float = 0.0,
    settle_steps: int = 50,
) -> Evaluation:
    """Put the bottle on the pad at ``offset`` from its resting pose, its axis from base to cap
    ``elevation_deg`` above the table (90 upright, 0 lying, -90 on its cap), open the gripper,
    optionally after a 60 mm lift, and evaluate."""
    model = env.task.model
    rest = model.lying_rest_height if elevation_deg == 0 else model.upright_rest_height
    stage_placement(
        env,
        "bottle",
        "target",
        np.array([0.0, 0.0, rest]) + np.asarray(offset),
        axis_quat(0.0, np.radians(elevation_deg)),
        lifted=lifted,
        lift_quat=UPRIGHT,
        goal_shift=(pad_shift, 0.0, 0.0),
    )
    settle(env, settle_steps)
    return env.evaluate()


def test_bottle_upright_on_the_pad_after_a_lift_succeeds(env: SpatialEnv) -> None:
    evaluation = _place(env, offset=(0.01, -0.02, 0.0))
    assert evaluation.paper_conditions == {
        "previously_lifted_50mm": True,
        "x_error_le_40mm": True,
        "y_error_le_40mm": True,
        "height_error_le_35mm": True,
        "target_displacement_le_2mm": True,
        "contact": True,
        "gripper_open": True,
    }
    assert evaluation.conditions == {
        **evaluation.paper_conditions,
        CLEAR_OF_ROBOT: True,
        STANDING: True,
        CONFIRMED: True,
    }


@pytest.mark.parametrize(
    ("kwargs", "failing"),
    [
        ({"elevation_deg": 0.0}, "height_error_le_35mm"),  # placed lying down on the pad
        ({"lifted": False}, "previously_lifted_50mm"),  # never lifted (pushed/teleported there)
        ({"offset": (0.045, 0.0, 0.0)}, "x_error_le_40mm"),  # 45 mm off in x, still on the pad
        ({"offset": (0.0, -0.045, 0.0)}, "y_error_le_40mm"),  # 45 mm off in y
        ({"offset": (0.0, 0.0, 0.02), "settle_steps": 0}, "contact"),  # hovering 20 mm above
        ({"pad_shift": 0.005}, "target_displacement_le_2mm"),  # the pad was pushed 5 mm
        ({"offset": (0.09, 0.0, -0.006)}, "x_error_le_40mm"),  # standing on the table beside the pad
    ],
)
def test_near_misses_fail(env: SpatialEnv, kwargs: dict, failing: str) -> None:
    evaluation = _place(env, **kwargs)
    assert evaluation.paper_conditions[failing] is False and evaluation.conditions[failing] is False
    assert evaluation.conditions[CONFIRMED] is False


def test_a_bottle_standing_on_its_cap_is_not_upright(env: SpatialEnv) -> None:
    """A state edit: the protocol turns a bottle held at its top over (rz 180°), but the hand then hangs
    below the cap, so setting it down on its cap takes a regrasp. It stands on its cap on the pad after a
    lift, where it stays, as high as one standing on its base."""
    evaluation = _place(env, elevation_deg=-90.0, settle_steps=250)
    assert evaluation.paper_success
    assert unmet(evaluation.conditions) == [STANDING, CONFIRMED]


@pytest.mark.parametrize(("tilt_deg", "standing"), [(9.5, True), (10.5, False), (170.0, False)])
def test_the_upright_limit_at_its_edge(env: SpatialEnv, tilt_deg: float, standing: bool) -> None:
    evaluation = _place(env, elevation_deg=90.0 - tilt_deg, settle_steps=0)
    assert evaluation.conditions[STANDING] is standing


def test_bottle_on_the_pad_but_still_gripped_fails_on_gripper_open_and_robot_contact(env: SpatialEnv) -> None:
    play_expert_until(env, lambda action: isinstance(action, SetGripper) and action.command == "open")
    result = env.step(MoveWorld(Translation("z", "-", 4.0)))  # press the held bottle onto the pad
    assert unmet(result.evaluation.paper_conditions) == ["gripper_open"]
    assert unmet(result.evaluation.conditions) == ["gripper_open", CLEAR_OF_ROBOT, CONFIRMED]
    assert result.evaluation.checkpoints["over_target"] and result.evaluation.checkpoints["placed"]
    assert not result.evaluation.checkpoints["released"]
