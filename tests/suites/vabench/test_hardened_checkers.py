"""The hardened checkers against the seed's literal ones, driven through ``env.step`` with protocol actions.

Each near-miss is a state the paper's checker accepts (``evaluation.paper_success``) and ours rejects,
naming the hardened condition that fails: a transient state (an off-centre grasp that drops the cube, a
cube tipped over the base's edge onto an open finger), a gripper that is closed but holds nothing (a pen
propped on the table, a pen standing beside the closed gripper), a bell "pressed" by the wrong part or in
the wrong way (the palm, a sideways shove into the dome, a pinch), a hammer that lies on the block beside
an empty closed gripper. The confirmation never touches the live episode. That the expert still succeeds
under both verdicts is checked on its run in test_families.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from itertools import chain

import numpy as np
import pytest
from scene_edit import MakeEnv, play, play_expert_until, put_in_gripper, teleport, unmet

from actloop.sim.assets.bell import BELL_MODELS, bell_button_site
from actloop.sim.assets.common import axis_quat
from actloop.sim.assets.pen import PEN_LENGTH
from actloop.sim.robot import GC_OFFSET
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.confirm import CONFIRMED, confirmed_after_settle
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.expert import align_closing_axis, closing_axis_heading, move_gc_to
from actloop.suites.vabench.predicates import CLEAR_OF_ROBOT, lift_m, site_position
from actloop.suites.vabench.protocol.decisions import (
    EnvAction,
    MoveWorld,
    RotateLocal,
    SetGripper,
    Translation,
)
from actloop.suites.vabench.task import TaskContext
from actloop.suites.vabench.tasks._grasping import body_yaw, grasp_from_above, lift
from actloop.suites.vabench.tasks._placing import RELEASE_CLEARANCE_M, TRANSPORT_LIFT_M, wrap
from actloop.suites.vabench.tasks.beat_block_hammer_right import LIFT_M, STRUCK, face_error
from actloop.suites.vabench.tasks.grasp_single_cube import CUBE_HALF
from actloop.suites.vabench.tasks.place_cube_on_cube import PLACEMENT as STACK

HELD, SUPPORTED = "held_in_right_gripper", "supported_by_gripper_only"
FINGERS_CLOSED, DOWNWARD_PRESS = "right_fingers_closed", "downward_finger_press_on_button"
HAMMER_HELD = "hammer_held_by_handle"
BELL_SEEDS = {1: 1000, 0: 1003}  # bell model id -> a seed that uses it
PALM_ABOVE_GC = GC_OFFSET - (0.035 + 0.022)  # the palm box's underside above the finger midpoint


def _gc(env: SpatialEnv) -> np.ndarray:
    return env.context.arms["right"].gc(env.world.data)


def _across_closing_axis(env: SpatialEnv) -> np.ndarray:
    """The horizontal unit vector across the closing axis of the downward-pointing gripper (its rz)."""
    return env.context.arms["right"].control_pose(env.world.data)[1][:, 2]


# --- transient states -------------------------------------------------------------------------------


def test_a_cube_gripped_22mm_off_centre_fails_the_confirmation_and_then_drops(make_env: MakeEnv) -> None:
    env = make_env("grasp_single_cube", 1000)
    ctx = env.context
    play(env, align_closing_axis(ctx, "right", body_yaw(ctx, "cube"), 90.0))
    point = ctx.world.body_position("cube") + 0.022 * _across_closing_axis(env)
    play(env, grasp_from_above(ctx, point, heading=None))
    lifted = play(env, [lift()])
    assert lifted.evaluation.paper_success and not lifted.done
    assert unmet(lifted.evaluation.conditions) == [CONFIRMED]  # held, lifted and hanging free, for now
    later = play(env, [SetGripper("close")])  # 0.4 s of simulated time: the cube slips out
    assert unmet(later.evaluation.paper_conditions) == ["lifted_gt_50mm"]


def test_a_cube_tipped_over_the_base_edge_onto_an_open_finger_fails_then_falls(make_env: MakeEnv) -> None:
    """Released 30 mm beyond the base's centre along the closing axis, the cube tips over the edge by
    about 35° and leans on the open finger."""
    env = make_env("place_cube_on_cube", 1000)
    ctx = env.context
    cube = ctx.world.body_position("cube")
    play(env, grasp_from_above(ctx, cube, body_yaw(ctx, "cube"), symmetry_deg=90.0))
    play(env, [MoveWorld(Translation("z", "+", 1000 * TRANSPORT_LIFT_M))])
    turn = wrap(body_yaw(ctx, "base") - body_yaw(ctx, "cube"), math.pi / 2)
    play(env, align_closing_axis(ctx, "right", closing_axis_heading(ctx, "right") + turn, 90.0))
    closing_axis = ctx.arms["right"].control_pose(ctx.world.data)[1][:, 1]
    goal = STACK.rest_position(ctx) + 0.030 * closing_axis + np.array([0.0, 0.0, RELEASE_CLEARANCE_M])

    def carry() -> Iterator[EnvAction]:
        for axes in ("xy", "xy", "z"):  # the second xy pass corrects the cube's drift in the grasp
            offset = (goal - ctx.world.body_position("cube")) * [axis in axes for axis in "xyz"]
            yield from move_gc_to(ctx, "right", _gc(env) + offset, axes)

    released = play(env, chain(carry(), [SetGripper("open")]))
    assert released.evaluation.paper_success
    assert unmet(released.evaluation.conditions) == [CLEAR_OF_ROBOT, CONFIRMED]
    clear = play(env, [MoveWorld(Translation("z", "+", 60.0))])
    assert not clear.evaluation.paper_success  # without the finger the cube slides off the base


# --- a closed gripper that holds nothing ------------------------------------------------------------


def test_a_pen_tilted_onto_the_table_in_the_gripper_is_not_lifted(make_env: MakeEnv) -> None:
    """Gripped at its centre, raised 45 mm and turned 90° about the closing axis: the pen's end hits the
    table, and the pen stands propped in the grasp with its centre more than 50 mm up."""
    env = make_env("grasp_single_pen", 1000)
    play(
        env,
        grasp_from_above(env.context, env.task.grasp_point(env.context), env.task.grasp_heading(env.context)),
    )
    play(env, [MoveWorld(Translation("z", "+", 45.0))])
    propped = play(env, [RotateLocal("ry", "+", 45.0), RotateLocal("ry", "+", 45.0)])
    assert propped.evaluation.paper_success
    assert unmet(propped.evaluation.conditions) == [SUPPORTED, CONFIRMED]


def test_a_pen_standing_beside_the_closed_gripper_is_not_held(make_env: MakeEnv) -> None:
    """The pen is stood on its end (a scene edit, so its centre is 64 mm above its start); the gripper
    moves beside it and closes on nothing."""
    env = make_env("grasp_single_pen", 1000)
    pen = env.world.body_position("pen")
    standing = np.array([pen[0], pen[1], TABLE_TOP_Z + PEN_LENGTH / 2])
    teleport(env, "pen", standing, axis_quat(0.0, math.pi / 2))
    beside = standing - np.array([0.0, 0.04, 0.0])  # towards the robot, clear of the fingers and the palm
    closed = play(env, chain(move_gc_to(env.context, "right", beside), [SetGripper("close")]))
    assert closed.evaluation.paper_success
    assert unmet(closed.evaluation.conditions) == [HELD, SUPPORTED, CONFIRMED]


# --- functional contact by the wrong part or in the wrong way -----------------------------------------


@pytest.fixture(params=sorted(BELL_SEEDS), ids=lambda m: f"model{m}")
def bell_env(request: pytest.FixtureRequest, make_env: MakeEnv) -> SpatialEnv:
    environment = make_env("click_bell_right", BELL_SEEDS[request.param])
    assert environment.task.layout["model_id"] == request.param
    return environment


def _button(env: SpatialEnv) -> np.ndarray:
    return site_position(env.context, bell_button_site("bell"))


def test_the_palm_on_the_button_is_not_a_press(bell_env: SpatialEnv) -> None:
    """The closed gripper 60 mm beside the button along its closing axis (world x at home), low enough
    that the palm, 200 mm long along that axis, rests 1 mm into the button's top."""
    env = bell_env
    gc = _button(env) + np.array([0.06, 0.0, -PALM_ABOVE_GC - 0.001])
    play(env, chain([SetGripper("close")], move_gc_to(env.context, "right", gc + np.array([0.0, 0.0, 0.05]))))
    touched = play(env, move_gc_to(env.context, "right", gc, order="z"))
    assert touched.evaluation.paper_success
    assert unmet(touched.evaluation.conditions) == [DOWNWARD_PRESS, CONFIRMED]


def test_a_sideways_shove_into_the_dome_is_not_a_press(bell_env: SpatialEnv) -> None:
    """The closed fingertips 8 mm below the top of the dome, pushed 60 mm sideways towards the button."""
    env = bell_env
    model = BELL_MODELS[env.task.layout["model_id"]]
    button = _button(env)
    gc_z = env.world.body_position("bell")[2] + model.dome_top_z - 0.008 + 0.012  # pads reach 12 mm below GC
    start = np.array([button[0], button[1] - 0.06, gc_z])
    play(
        env,
        chain([SetGripper("close")], move_gc_to(env.context, "right", start + np.array([0.0, 0.0, 0.05]))),
    )
    play(env, move_gc_to(env.context, "right", start, order="z"))
    shoved = play(env, move_gc_to(env.context, "right", np.array([button[0], button[1], gc_z]), order="y"))
    assert shoved.evaluation.paper_success
    assert unmet(shoved.evaluation.conditions) == [DOWNWARD_PRESS, CONFIRMED]


def test_a_pinch_of_the_button_is_not_a_press(bell_env: SpatialEnv) -> None:
    """The open gripper lowered around the button, its pads' centres level with the button top, closed."""
    env = bell_env
    button = _button(env)
    play(env, move_gc_to(env.context, "right", button + np.array([0.0, 0.0, 0.06])))
    pinched = play(env, chain(move_gc_to(env.context, "right", button, order="z"), [SetGripper("close")]))
    assert pinched.evaluation.paper_success
    assert unmet(pinched.evaluation.conditions) == [FINGERS_CLOSED, DOWNWARD_PRESS, CONFIRMED]


def test_a_hammer_dropped_on_the_block_beside_an_empty_closed_gripper_is_not_a_strike(
    make_env: MakeEnv,
) -> None:
    """The hammer dropped on the block, the gripper rises 50 mm and closes on nothing."""
    env = make_env("beat_block_hammer_right", 1000)
    _drop_the_hammer_on_the_block(env)
    closed = play(env, [MoveWorld(Translation("z", "+", 50.0)), SetGripper("close")])
    assert closed.evaluation.paper_success
    assert unmet(closed.evaluation.conditions) == [HAMMER_HELD, STRUCK, CONFIRMED]


def test_a_hammer_dropped_on_the_block_and_gripped_where_it_lies_is_not_a_strike(make_env: MakeEnv) -> None:
    """As above, but the open gripper goes 6 mm down to the handle lying on the block and closes on it:
    held by the handle, lifted earlier and touching the block, yet it never came down onto it in hand.
    Raised off the block and brought down again, it strikes."""
    env = make_env("beat_block_hammer_right", 1000)
    _drop_the_hammer_on_the_block(env)
    regripped = play(env, [MoveWorld(Translation("z", "-", 6.0)), SetGripper("close")])
    assert regripped.evaluation.paper_success and not regripped.done
    assert unmet(regripped.evaluation.conditions) == [STRUCK, CONFIRMED]
    play(env, [MoveWorld(Translation("z", "+", 30.0))])
    struck = play(env, [MoveWorld(Translation("z", "-", 34.0))])
    assert struck.evaluation.success and struck.done


@pytest.mark.parametrize(("pitch", "struck"), [("+", False), ("-", True)])
def test_a_hammer_pitched_head_up_hits_the_block_with_its_handle(
    make_env: MakeEnv, pitch: str, struck: bool
) -> None:
    """The expert lifts the hammer over the block; the gripper turns 30° about its closing axis, the face
    is brought back over the block's top centre and the hammer lowered 2 mm at a time. Pitched head-up,
    the handle under the head hits the block with the face 11 mm above it (the paper's terms all hold);
    pitched head-down, the head's edge strikes."""
    env = make_env("beat_block_hammer_right", 1000)
    ctx = env.context
    play_expert_until(env, _strike_descent(ctx))
    play(env, [RotateLocal("ry", pitch, 10.0)] * 3)
    error = face_error(ctx)
    play(env, move_gc_to(ctx, "right", _gc(env) - np.array([error[0], error[1], 0.0]), order="xy"))
    result = play(env, [MoveWorld(Translation("z", "-", 2.0))])
    while not result.evaluation.paper_conditions["hammer_block_contact"]:
        result = play(env, [MoveWorld(Translation("z", "-", 2.0))])
    assert result.evaluation.paper_success
    assert unmet(result.evaluation.conditions) == ([] if struck else [STRUCK, CONFIRMED])


def _strike_descent(ctx: TaskContext) -> Callable[[object], bool]:
    """Whether an expert action is its strike: the move down once the hammer is lifted."""

    def strike(action: object) -> bool:
        down = (
            isinstance(action, MoveWorld)
            and action.translation.axis == "z"
            and action.translation.sign == "-"
        )
        return down and lift_m(ctx, "hammer") > LIFT_M

    return strike


def _drop_the_hammer_on_the_block(env: SpatialEnv) -> None:
    """The expert lifts the hammer over the block; instead of striking, the hammer is lowered to 5 mm
    above the block and let go."""
    ctx = env.context
    play_expert_until(env, _strike_descent(ctx))
    above_block = _gc(env) - np.array([0.0, 0.0, face_error(ctx)[2] - 0.005])
    dropped = play(env, chain(move_gc_to(ctx, "right", above_block, order="z"), [SetGripper("open")]))
    assert dropped.evaluation.paper_conditions["hammer_block_contact"]


# --- the confirmation itself --------------------------------------------------------------------------


def test_the_confirmation_leaves_the_live_episode_untouched(make_env: MakeEnv) -> None:
    env = make_env("grasp_single_cube")
    put_in_gripper(env, "cube", CUBE_HALF)
    before = env.world.snapshot()
    assert env.evaluate().success  # the confirmation ran 1.5 s of physics in its scratch copy

    def latching(ctx: TaskContext) -> dict[str, bool]:
        return {"probe": ctx.latch("probe", True)}

    assert confirmed_after_settle(env.context, latching, ("cube",), clear_arms=True)  # the arm went home
    assert np.array_equal(env.world.snapshot().values, before.values)
    assert "probe" not in env.context.latched


def test_a_placement_confirmation_requires_every_object_at_rest(make_env: MakeEnv) -> None:
    env = make_env("grasp_single_cube")
    assert confirmed_after_settle(env.context, lambda _: {}, ("cube",), clear_arms=True)
    teleport(env, "cube", env.world.body_position("cube") + np.array([0.0, 0.0, 45.0]))  # falling at 3 s
    assert not confirmed_after_settle(env.context, lambda _: {}, ("cube",), clear_arms=True)
    # a held object may move (swing, turn in the grasp) as long as it stays held
    assert confirmed_after_settle(env.context, lambda _: {}, ("cube",), clear_arms=False)


def test_clearing_the_arms_lets_go_of_a_held_object(make_env: MakeEnv) -> None:
    env = make_env("grasp_single_cube")
    put_in_gripper(env, "cube", CUBE_HALF)
    held = env.task.state_conditions
    assert confirmed_after_settle(env.context, held, ("cube",), clear_arms=False)
    assert not confirmed_after_settle(env.context, held, ("cube",), clear_arms=True)
