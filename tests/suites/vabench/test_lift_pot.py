"""lift_pot: a synchronized two-arm lift, the layout (table 25), and lifts through ``env.step`` that fail
term by term: one arm alone, a lift of only 5 cm, one gripper left open, a grasp on the pot's rim instead
of its handle. Reset state and manifest: test_families.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scene_edit import MakeEnv, play, unmet

from actloop.sim.assets.pot import POT_MODELS
from actloop.suites.vabench.confirm import CONFIRMED
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.expert import align_closing_axis
from actloop.suites.vabench.protocol.decisions import DualMoveWorld, MoveWorld, SetGripper, Translation
from actloop.suites.vabench.task import get_task
from actloop.suites.vabench.tasks._dual_arm import move_gcs_to
from actloop.suites.vabench.tasks._grasping import body_yaw
from actloop.suites.vabench.tasks.lift_pot import (
    LEVEL,
    LEVEL_TILT_DEG,
    POT,
    YAW_LIMIT_RAD,
    handle_point,
    lift_together,
    reach_handles,
)

TASK = "lift_pot"
TAB_SEED = 1000  # model 0: the stockpot with flat tab handles
ROD_SEED = 1001  # model 1: the casserole with round rod handles
Z, UPRIGHT = "pot_z_gt_0.82m", "upright_dot_gt_0.8"
TCP = {arm: f"{arm}_tcp_within_30mm_of_{arm}_handle" for arm in ("left", "right")}
HELD = {arm: f"{arm}_handle_held_by_{arm}_gripper" for arm in ("left", "right")}
SUPPORTED = "supported_by_grippers_only"
CHECKPOINTS = ("left_at_handle", "right_at_handle", "both_grasped", "lifted_level")


def _hanging_from_one_handle(unheld: str) -> list[str]:
    """The hardened conditions a pot fails, in order, when it hangs tilted from one gripper."""
    return [Z, TCP[unheld], UPRIGHT, HELD[unheld], SUPPORTED, LEVEL, CONFIRMED]


def _env(make_env: MakeEnv, seed: int = TAB_SEED) -> SpatialEnv:
    return make_env(TASK, seed, render=False)


def test_the_expert_grasps_both_handles_and_lifts_together(make_env: MakeEnv) -> None:
    env = make_env(TASK, ROD_SEED, reset=False, render=False)
    env.reset()
    plan = list(env.task.expert(env.context))
    assert SetGripper("close", arm="both", reason="expert: grasp both handles") in plan
    env.reset()
    result = play(env, env.task.expert(env.context))
    evaluation = result.evaluation
    assert result.done and evaluation.success and evaluation.paper_success
    assert evaluation.checkpoints == dict.fromkeys(CHECKPOINTS, True)
    metrics = evaluation.metrics
    assert metrics["pot_z_above_table_mm"] > 100 and metrics["tilt_deg"] < 2
    assert max(metrics["left_tcp_handle_mm"], metrics["right_tcp_handle_mm"]) < 10


def test_layout_ranges_and_both_models() -> None:
    models = set()
    for seed in range(1000, 1100):
        layout = get_task(TASK)(seed).layout
        assert -0.05 <= layout["x"] <= 0.05 and -0.05 <= layout["y"] <= 0.05
        assert -YAW_LIMIT_RAD <= layout["yaw"] <= YAW_LIMIT_RAD
        models.add(layout["model_id"])
    assert models == set(range(len(POT_MODELS)))
    assert get_task(TASK)(TAB_SEED).layout["model_id"] == 0
    assert get_task(TASK)(ROD_SEED).layout["model_id"] == 1


def test_one_arm_alone_cannot_lift_the_pot_level(make_env: MakeEnv) -> None:
    """The right arm grasps its handle and rises 120 mm: the pot turns in the grasp about the closing
    axis, its left side stays on the table, and it ends tilted by more than 37°."""
    env = _env(make_env)
    play(env, reach_handles(env.context, ("right",)))
    play(env, [SetGripper("close", arm="right")])
    lifted = play(env, [MoveWorld(Translation("z", "+", 60.0), arm="right")] * 2)
    evaluation = lifted.evaluation
    assert evaluation.metrics["tilt_deg"] > 37
    assert unmet(evaluation.paper_conditions) == [Z, TCP["left"], UPRIGHT]
    assert unmet(evaluation.conditions) == _hanging_from_one_handle(unheld="left")
    assert evaluation.checkpoints["right_at_handle"] and not evaluation.checkpoints["both_grasped"]


def test_a_lift_of_only_5cm_is_too_low_and_more_lifting_succeeds(make_env: MakeEnv) -> None:
    env = _env(make_env)
    play(env, reach_handles(env.context, ("left", "right")))
    play(env, [SetGripper("close", arm="both")])
    low = play(env, lift_together(50.0))
    assert 40 < low.evaluation.metrics["pot_z_above_table_mm"] < 55
    assert unmet(low.evaluation.paper_conditions) == [Z]
    assert unmet(low.evaluation.conditions) == [Z, CONFIRMED]
    assert low.evaluation.checkpoints["both_grasped"] and not low.evaluation.checkpoints["lifted_level"]
    up = Translation("z", "+", 50.0)
    high = play(env, [DualMoveWorld(up, up)])
    assert high.evaluation.success and high.done


@pytest.mark.parametrize(
    ("seed", "together_mm", "ahead_mm", "level"),
    [
        (TAB_SEED, 80.0, 20.0, True),
        (TAB_SEED, 75.0, 25.0, False),
        (ROD_SEED, 75.0, 25.0, False),
        (TAB_SEED, 60.0, 60.0, False),
    ],
)
def test_a_lift_with_one_arm_ahead_is_level_only_once_the_other_catches_up(
    make_env: MakeEnv, seed: int, together_mm: float, ahead_mm: float, level: bool
) -> None:
    """Both handles held and lifted ``together_mm``, then the right arm ``ahead_mm`` further, which brings
    the base past 80 mm: the paper's 0.8 upright dot accepts every such tilt (up to 15°), ours up to 5°."""
    env = _env(make_env, seed)
    play(env, reach_handles(env.context, ("left", "right")))
    play(env, [SetGripper("close", arm="both")])
    play(env, lift_together(together_mm))
    tilted = play(env, [MoveWorld(Translation("z", "+", ahead_mm), arm="right")]).evaluation
    assert tilted.paper_success and tilted.success == level
    if not level:
        assert tilted.metrics["tilt_deg"] > LEVEL_TILT_DEG
        assert unmet(tilted.conditions) == [LEVEL, CONFIRMED]
        caught_up = play(env, [MoveWorld(Translation("z", "+", ahead_mm), arm="left")])
        assert caught_up.evaluation.success and caught_up.done


def test_a_lift_with_the_left_gripper_left_open_tips_the_pot(make_env: MakeEnv) -> None:
    env = _env(make_env)
    play(env, reach_handles(env.context, ("left", "right")))
    play(env, [SetGripper("close", arm="right")])
    lifted = play(env, lift_together(120.0))
    evaluation = lifted.evaluation
    assert evaluation.checkpoints["left_at_handle"] and not evaluation.checkpoints["both_grasped"]
    assert unmet(evaluation.paper_conditions) == [Z, TCP["left"], UPRIGHT]
    assert unmet(evaluation.conditions) == _hanging_from_one_handle(unheld="left")


def test_a_grasp_on_the_rim_beside_the_handle_does_not_hold_the_pot(make_env: MakeEnv) -> None:
    """The right gripper closes across the pot's wall 35 mm beside its handle (the left one holds its
    handle): the wall slips out of the right grasp and the pot hangs tilted from the left handle."""
    env = _env(make_env)
    ctx = env.context
    model = POT_MODELS[env.task.layout["model_id"]]
    yaw, centre = body_yaw(ctx, POT), ctx.world.body_position(POT)
    angle = yaw + 0.035 / model.radius  # 35 mm round the wall from the handle
    radius = model.radius - model.wall_thickness / 2
    rim = centre + np.array([radius * math.cos(angle), radius * math.sin(angle), model.height - 0.008])
    play(env, align_closing_axis(ctx, "right", angle, 180.0))  # closing across the wall
    play(env, align_closing_axis(ctx, "left", yaw + math.pi / 2, 180.0))
    targets = {"left": handle_point(ctx, "left"), "right": rim}
    play(env, move_gcs_to(ctx, {arm: p + np.array([0.0, 0.0, 0.07]) for arm, p in targets.items()}))
    play(env, move_gcs_to(ctx, targets, order="z"))
    closed = play(env, [SetGripper("close", arm="both")])
    assert unmet(closed.evaluation.paper_conditions) == [Z, TCP["right"]]
    assert not closed.evaluation.conditions[HELD["right"]] and closed.evaluation.conditions[HELD["left"]]
    lifted = play(env, lift_together(120.0))
    evaluation = lifted.evaluation
    assert unmet(evaluation.paper_conditions) == [Z, TCP["right"], UPRIGHT]
    assert unmet(evaluation.conditions) == _hanging_from_one_handle(unheld="right")


@pytest.mark.parametrize("seed", [TAB_SEED, ROD_SEED])
def test_both_handles_sit_on_their_arms_sides_and_mirror_each_other(make_env: MakeEnv, seed: int) -> None:
    env = _env(make_env, seed)
    ctx = env.context
    left, right = handle_point(ctx, "left"), handle_point(ctx, "right")
    centre = ctx.world.body_position(POT)
    assert left[0] < centre[0] < right[0]
    # Settled on the table the pot leans by a few microradians, so the mirror holds to a tenth of a mm.
    assert np.allclose(left + right, 2 * np.array([centre[0], centre[1], left[2]]), atol=1e-4)
    assert left[2] == pytest.approx(right[2], abs=1e-4)
