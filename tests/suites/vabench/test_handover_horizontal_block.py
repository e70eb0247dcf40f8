"""handover_horizontal_block: the layout, the expert's handover, and near-misses driven through
``env.step`` with protocol decisions, each naming the condition that fails in both verdicts.

Every near-miss plays the expert's own phases (``HandoverHorizontalBlock.giver_pick`` ...) up to the
point where it departs from them, so each differs from a success in one respect only.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scene_edit import MakeEnv, play, play_expert_until, unmet

from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.confirm import CONFIRMED
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.expert import align_closing_axis, move_gc_to
from actloop.suites.vabench.protocol.decisions import (
    DualMoveWorld,
    EnvAction,
    MoveWorld,
    RotateLocal,
    SetGripper,
    Translation,
)
from actloop.suites.vabench.protocol.step import Evaluation
from actloop.suites.vabench.task import get_task
from actloop.suites.vabench.tasks.handover_horizontal_block import (
    BLOCK_LENGTH_M,
    CHAIN,
    CLOSING_HEADING,
    HOVER_M,
    HandoverHorizontalBlock,
    centre,
    move_block_centre,
    side_sign,
    turn_upright,
)

TASK = "handover_horizontal_block"
RIGHT_GIVER_SEED = 1002
LEFT_GIVER_SEED = 1000
CHECKPOINTS = (
    "giver_approached",
    "giver_grasped",
    "lifted",
    "presented_vertical",
    "receiver_grasped",
    "giver_released",
    "on_receiver_side_high",
)
CHAIN_DONE, PAPER_CHAIN = "handover_chain_completed", "chain_completed_after_vertical_presentation"
HIGH, PAPER_HIGH = "centre_z_gt_0p92", "z_gt_0p92"
UPRIGHT = "long_axis_within_20deg_of_vertical"
SIDE, PAPER_SIDE = "on_receiver_side_by_50mm", "on_receiver_side"


@pytest.fixture
def handover(make_env: MakeEnv) -> Callable[[int], SpatialEnv]:
    """A reset episode (no rendering) at a seed."""
    return lambda seed: make_env(TASK, seed, render=False)


def _task(env: SpatialEnv) -> HandoverHorizontalBlock:
    task = env.task
    assert isinstance(task, HandoverHorizontalBlock)
    return task


def _until(reason: str) -> Callable[[EnvAction], bool]:
    return lambda action: action.reason == reason


def _hand_over(env: SpatialEnv) -> None:
    """The expert up to and including the giver backing off: the receiver holds the upright block alone
    on the midline."""
    play_expert_until(env, _until("expert: giver lets go"))
    play(env, _task(env).giver_release(env.context))


def _failing(evaluation: Evaluation) -> tuple[set[str], set[str]]:
    return set(unmet(evaluation.conditions)), set(unmet(evaluation.paper_conditions))


# --- layout and reset -------------------------------------------------------------------------------


def test_layout_draws_both_sides_within_the_seed_ranges_and_the_giver_is_on_the_block_side() -> None:
    sides = set()
    for seed in range(1000, 1100):
        task = get_task(TASK)(seed)
        assert isinstance(task, HandoverHorizontalBlock)
        x, y = task.layout["x"], task.layout["y"]
        assert set(task.layout) == {"x", "y"}
        assert 0.15 <= abs(x) <= 0.20 and -0.05 <= y <= 0.0
        assert side_sign(task.giver) * x > 0 and side_sign(task.receiver) * x < 0
        sides.add(task.giver)
    assert sides == {"left", "right"}


def test_reset_leaves_the_block_lying_and_nothing_reached(handover: Callable[[int], SpatialEnv]) -> None:
    evaluation = handover(RIGHT_GIVER_SEED).evaluate()
    assert not evaluation.success and not evaluation.paper_success
    assert evaluation.metrics["tilt_from_vertical_deg"] > 89.0
    assert evaluation.metrics["chain_stages"] == 0.0
    assert evaluation.checkpoints == dict.fromkeys(CHECKPOINTS, False)


# --- the expert ----------------------------------------------------------------------------------------


def test_expert_hands_over_latching_the_chain_in_order(
    handover: Callable[[int], SpatialEnv],
) -> None:
    """The expert succeeds under both verdicts and reaches every checkpoint; after every step the latched
    stages are a prefix of ``CHAIN`` (a stage is never latched without every earlier one)."""
    env = handover(LEFT_GIVER_SEED)
    task = _task(env)
    assert task.giver == "left"
    reached = []
    for action in task.expert(env.context):
        result = play(env, [action])
        stages = task.chain(env.context)
        prefix = [stage for stage in CHAIN if stages[stage]]
        assert prefix == list(CHAIN[: len(prefix)])
        reached.append(len(prefix))
        if result.done:
            break
    assert reached == sorted(reached) and env.steps <= env.budget
    evaluation = result.evaluation
    assert result.done and evaluation.success and evaluation.paper_success
    assert evaluation.checkpoints == dict.fromkeys(CHECKPOINTS, True)
    assert evaluation.metrics["chain_stages"] == len(CHAIN)
    assert evaluation.metrics["receiver_side_mm"] >= 50.0 and evaluation.metrics["centre_z_mm"] > 920.0
    assert evaluation.metrics["tilt_from_vertical_deg"] < 5.0


# --- near-misses through env.step ------------------------------------------------------------------------


def test_a_horizontal_handover_turned_upright_afterwards_fails_the_chain_alone(
    handover: Callable[[int], SpatialEnv],
) -> None:
    """The giver lifts the lying block and holds it out, still lying, its inner end past the midline; the
    receiver grasps that end from above (closing axis across it), the giver lets go and backs up, and only
    then does the receiver turn the block upright and hold it high on its side. Everything but the
    chain's vertical presentation holds."""
    env = handover(RIGHT_GIVER_SEED)
    task, ctx = _task(env), env.context
    giver, receiver, side = task.giver, task.receiver, side_sign(task.giver)
    play(env, task.giver_pick(ctx))
    play(env, move_block_centre(ctx, giver, np.array([side * 0.06, -0.04, 0.96]), "yx"))
    inner_end = centre(ctx) - side * np.array([BLOCK_LENGTH_M / 2 - 0.03, 0.0, 0.0])
    play(env, align_closing_axis(ctx, receiver, CLOSING_HEADING[receiver], 360.0))
    play(env, move_gc_to(ctx, receiver, inner_end + np.array([0.0, 0.0, HOVER_M]), order="zxy"))
    play(env, move_gc_to(ctx, receiver, inner_end, order="z"))
    both = play(env, [SetGripper("close", arm=receiver)]).evaluation
    assert both.metrics["tilt_from_vertical_deg"] > 80.0  # handed over lying
    play(env, [SetGripper("open", arm=giver), MoveWorld(Translation("z", "+", 80.0), arm=giver)])
    play(env, turn_upright(ctx, receiver))
    final = play(env, move_block_centre(ctx, receiver, np.array([-side * 0.12, -0.04, 1.0]), "zx"))
    assert _failing(final.evaluation) == ({CHAIN_DONE, CONFIRMED}, {PAPER_CHAIN})
    assert not final.evaluation.checkpoints["presented_vertical"]
    assert final.evaluation.checkpoints["on_receiver_side_high"]
    assert final.evaluation.metrics["chain_stages"] == 1.0


def test_both_arms_still_holding_on_the_receiver_side_fails_the_release(
    handover: Callable[[int], SpatialEnv],
) -> None:
    """After the receiver's grasp the giver never opens: both arms carry the block 90 mm to the receiver's
    side together."""
    env = handover(RIGHT_GIVER_SEED)
    play_expert_until(env, _until("expert: giver lets go"))
    towards_receiver = Translation("x", "+" if _task(env).receiver == "right" else "-", 90.0)
    final = play(env, [DualMoveWorld(towards_receiver, towards_receiver)]).evaluation
    assert _failing(final) == (
        {CHAIN_DONE, "giver_open_and_clear", "supported_by_receiver_only", CONFIRMED},
        {PAPER_CHAIN, "giver_open"},
    )
    assert final.metrics["chain_stages"] == 3.0 and final.metrics["receiver_side_mm"] > 80.0


def test_the_block_held_at_0p90m_fails_the_height(
    handover: Callable[[int], SpatialEnv],
) -> None:
    env = handover(RIGHT_GIVER_SEED)
    _hand_over(env)
    task = _task(env)
    target = task.carry_target(env.context)
    target[2] = 0.90
    final = play(env, task.carry(env.context, target, order="zxy")).evaluation
    assert final.metrics["centre_z_mm"] == pytest.approx(900.0, abs=2.0)
    assert _failing(final) == ({HIGH, CONFIRMED}, {PAPER_HIGH})


def test_the_block_held_tilted_30deg_fails_the_vertical(handover: Callable[[int], SpatialEnv]) -> None:
    """The receiver turns its gripper 30° about its palm-side axis (rz), the block rigidly with it."""
    env = handover(RIGHT_GIVER_SEED)
    _hand_over(env)
    task = _task(env)
    play(env, [RotateLocal("rz", "+", 30.0, arm=task.receiver)])
    final = play(env, task.carry(env.context, task.carry_target(env.context))).evaluation
    assert final.metrics["tilt_from_vertical_deg"] == pytest.approx(30.0, abs=1.5)
    assert _failing(final) == ({UPRIGHT, CONFIRMED}, {UPRIGHT})


def test_the_block_stood_on_the_table_on_the_receiver_side_fails_the_hold_and_height(
    handover: Callable[[int], SpatialEnv],
) -> None:
    """The receiver lowers the block beside the midline, carries it to its side 6 mm above the table,
    sets it down upright, opens and rises."""
    env = handover(RIGHT_GIVER_SEED)
    _hand_over(env)
    task, receiver = _task(env), _task(env).receiver
    target = task.carry_target(env.context)
    target[2] = TABLE_TOP_Z + BLOCK_LENGTH_M / 2 + 0.006
    play(env, task.carry(env.context, target, order="zxy"))
    play(env, [MoveWorld(Translation("z", "-", 8.0), arm=receiver)])
    final = play(
        env, [SetGripper("open", arm=receiver), MoveWorld(Translation("z", "+", 80.0), arm=receiver)]
    ).evaluation
    assert final.metrics["tilt_from_vertical_deg"] < 5.0  # standing on its end
    assert _failing(final) == (
        {"held_by_receiver", "supported_by_receiver_only", HIGH, CONFIRMED},
        {"receiver_closed", PAPER_HIGH},
    )


def test_the_block_carried_to_the_giver_side_fails_the_side(
    handover: Callable[[int], SpatialEnv],
) -> None:
    """Left giver: after the handover the giver rises out of the way and the receiver (right) carries the
    block 120 mm onto the giver's side."""
    env = handover(LEFT_GIVER_SEED)
    _hand_over(env)
    task = _task(env)
    play(env, [MoveWorld(Translation("z", "+", 100.0), arm=task.giver)])
    target = task.carry_target(env.context)
    target[0] = side_sign(task.giver) * 0.12
    final = play(env, task.carry(env.context, target)).evaluation
    assert final.metrics["receiver_side_mm"] == pytest.approx(-120.0, abs=2.0)
    assert _failing(final) == ({SIDE, CONFIRMED}, {PAPER_SIDE})


def test_the_block_30mm_past_the_midline_passes_the_paper_side_but_not_the_margin(
    handover: Callable[[int], SpatialEnv],
) -> None:
    env = handover(RIGHT_GIVER_SEED)
    _hand_over(env)
    task = _task(env)
    target = task.carry_target(env.context)
    target[0] = side_sign(task.receiver) * 0.03
    final = play(env, task.carry(env.context, target)).evaluation
    assert final.paper_success and not final.success
    assert _failing(final) == ({SIDE, CONFIRMED}, set())


def test_the_giver_opening_before_the_receiver_holds_drops_the_block(
    handover: Callable[[int], SpatialEnv],
) -> None:
    """The receiver's fingers are open around the block's upper end when the giver lets go: the block falls
    to the table and the receiver closes on nothing; the chain stops at the presentation."""
    env = handover(RIGHT_GIVER_SEED)
    task = _task(env)
    play_expert_until(env, _until("expert: receiver grasps the upper end"))
    dropped = play(env, [SetGripper("open", arm=task.giver)]).evaluation
    assert dropped.metrics["centre_z_mm"] < 1000 * (TABLE_TOP_Z + BLOCK_LENGTH_M / 2) + 5.0  # on the table
    final = play(env, [SetGripper("close", arm=task.receiver)]).evaluation
    failing, paper_failing = _failing(final)
    assert {CHAIN_DONE, "held_by_receiver", HIGH} <= failing
    assert {PAPER_CHAIN, PAPER_HIGH} <= paper_failing
    assert final.metrics["chain_stages"] == 2.0
    assert not final.checkpoints["receiver_grasped"] and final.checkpoints["presented_vertical"]
