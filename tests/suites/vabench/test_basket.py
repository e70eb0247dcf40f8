"""place_five_objects_in_basket: the basket asset, the layout, the expert over all five objects, and the
per-object placement test (hardened and paper-literal) on placements, near-misses and strict success.

The expert runs once per module (about 10 s of wall time on one core: ~90 actions, ~45 s of simulated
time in a scene of ~110 box geoms); the other tests edit the reset scene or drive a few real decisions.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np
import pytest
from scene_edit import MakeEnv, play, play_expert_until, settle, teleport, unmet

from actloop.sim.assets.basket import STORAGE_BASKET
from actloop.sim.assets.common import axis_quat, yaw_quat
from actloop.sim.assets.pen import PEN_APOTHEM
from actloop.sim.world import subtree_geoms
from actloop.suites.vabench.confirm import CONFIRMED
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.expert import move_gc_to
from actloop.suites.vabench.protocol.decisions import MoveWorld, SetGripper, Translation
from actloop.suites.vabench.protocol.step import Evaluation
from actloop.suites.vabench.seeds import load_manifest
from actloop.suites.vabench.task import get_task
from actloop.suites.vabench.tasks.grasp_single_cube import CUBE_HALF
from actloop.suites.vabench.tasks.place_five_objects_in_basket import (
    ABOVE_RIM_M,
    BASKET,
    BASKET_X,
    BASKET_Y,
    CYAN_BOTTLE,
    ITEMS,
    OBJECTS,
    PURPLE_BOTTLE,
    SKILLS,
    grasp_item,
    in_basket_name,
    item_of,
    lowest_z,
    place_item,
    rim_z,
)

TASK = "place_five_objects_in_basket"
SEED = load_manifest(TASK).seed_list()[0]
MODEL = STORAGE_BASKET
SINK_M = 0.0005
"""Staged objects rest this far into their support, so the contact exists."""


@dataclass(frozen=True)
class ExpertRun:
    ok: bool
    reason: str
    steps: int
    seconds: float
    in_basket_after_release: list[float]
    """``objects_in_basket`` after each release, in order."""
    success_before_last: bool
    final: Evaluation
    budget: int


@pytest.fixture(scope="module")
def expert_run() -> Iterator[ExpertRun]:
    env = SpatialEnv(TASK, SEED, render=False)
    try:
        counts, early_success, result = [], False, env.reset()
        start = time.perf_counter()
        reason = "expert succeeded"
        for action in env.task.expert(env.context):
            result = env.step(action)
            if not result.dispatched or result.observation.feedback.planner_success is False:
                reason = f"{action}: {result.observation.feedback.message}"
                break
            if isinstance(action, SetGripper) and action.command == "open":
                counts.append(result.evaluation.metrics["objects_in_basket"])
                early_success |= result.evaluation.success and len(counts) < len(OBJECTS)
            if result.done:
                break
        seconds = time.perf_counter() - start
        yield ExpertRun(
            result.evaluation.success,
            reason,
            env.steps,
            seconds,
            counts,
            early_success,
            env.evaluate(),
            env.budget,
        )
    finally:
        env.close()


def _slot_position(env: SpatialEnv, slot: tuple[float, float], height: float) -> np.ndarray:
    """World position of a point ``height`` above the basket's inner floor at ``slot`` (basket frame)."""
    rot = env.world.body_rotation(BASKET)
    local = np.array([slot[0], slot[1], MODEL.floor_thickness + height])
    return env.world.body_position(BASKET) + rot @ local


RESTING = {  # height of each object's origin above its support when it lies as the expert places it
    "cube": CUBE_HALF,
    "pen": PEN_APOTHEM,
    "lying_bottle": CYAN_BOTTLE.lying_rest_height,
    "upright_bottle": PURPLE_BOTTLE.upright_rest_height,
}


def _pose_in_slot(env: SpatialEnv, body: str) -> tuple[np.ndarray, tuple[float, ...]]:
    item = next(i for i in ITEMS if i.body == body)
    pos = _slot_position(env, item.slot, RESTING[item.kind] - SINK_M)
    if item.kind == "cube":
        return pos, yaw_quat(0.0)
    if item.kind == "upright_bottle":
        return pos, axis_quat(0.0, math.pi / 2)
    return pos, axis_quat(0.0, 0.0)


def _basket_local(env: SpatialEnv, point: np.ndarray) -> np.ndarray:
    return env.world.body_rotation(BASKET).T @ (point - env.world.body_position(BASKET))


def _stage_in_basket(env: SpatialEnv, bodies: tuple[str, ...]) -> None:
    for body in bodies:
        teleport(env, body, *_pose_in_slot(env, body))


# --- the expert ---
def test_expert_places_all_five_and_succeeds_only_with_the_fifth(expert_run: ExpertRun) -> None:
    print(f"\nexpert: {expert_run.steps} actions in {expert_run.seconds:.1f} s")
    assert expert_run.ok, expert_run.reason
    assert expert_run.steps <= expert_run.budget
    assert expert_run.in_basket_after_release == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert not expert_run.success_before_last  # four of five is not a success
    final = expert_run.final
    assert final.success and final.paper_success
    assert final.metrics["objects_in_basket"] == 5.0
    assert all(final.conditions[in_basket_name(b)] for b in OBJECTS)


def test_expert_reaches_the_fifteen_checkpoints(expert_run: ExpertRun) -> None:
    checkpoints = expert_run.final.checkpoints
    names = {f"{stage}_{b}" for b in OBJECTS for stage in ("grasped", "lifted", "in_basket")}
    assert set(checkpoints) == names
    assert all(checkpoints.values())


# --- asset, reset and layout ---
def test_basket_weighs_2_kg_settles_flat_and_resists_a_push(make_env: MakeEnv) -> None:
    env = make_env(TASK, SEED, render=False)
    model = env.world.model
    assert model.body_subtreemass[model.body(BASKET).id] == pytest.approx(MODEL.mass)
    assert env.world.body_position(BASKET)[2] == pytest.approx(0.74, abs=5e-4)
    assert env.world.body_rotation(BASKET)[2, 2] > 0.9999
    start = env.world.body_position(BASKET)
    env.world.data.xfrc_applied[model.body(BASKET).id, :3] = (10.0, 5.0, 0.0)  # 11 N sideways for 0.5 s
    settle(env, 250)
    env.world.data.xfrc_applied[:] = 0.0
    assert math.dist(start, env.world.body_position(BASKET)) < 0.001


def test_reset_has_nothing_in_the_basket_and_no_object_touching_another(make_env: MakeEnv) -> None:
    env = make_env(TASK, SEED, render=False)
    evaluation = env.evaluate()
    assert not evaluation.success and not evaluation.paper_success
    assert not any(evaluation.checkpoints.values())
    assert evaluation.metrics["objects_in_basket"] == 0.0
    geoms = {b: subtree_geoms(env.world.model, b) for b in (*OBJECTS, BASKET)}
    for a in geoms:
        for b in geoms:
            if a < b:
                assert not env.world.in_contact(geoms[a], geoms[b]), (a, b)


def test_layout_ranges_and_declared_skills() -> None:
    cls = get_task(TASK)
    assert cls.track == "long_horizon" and cls.budget == 200 and cls.arms == ("right",)
    assert len(cls.skills) == 4 and set(cls.skills.values()) <= set(OBJECTS)
    assert set(SKILLS) == {
        "cube_into_basket",
        "lying_bottle_into_basket",
        "pen_into_basket",
        "upright_bottle_into_basket",
    }
    for seed in range(1000, 1100):
        layout = cls(seed).layout
        assert BASKET_X[0] <= layout["basket_x"] <= BASKET_X[1]
        assert BASKET_Y[0] <= layout["basket_y"] <= BASKET_Y[1]
        for item in ITEMS:
            assert item.x[0] <= layout[f"{item.body}_x"] <= item.x[1]
            assert item.y[0] <= layout[f"{item.body}_y"] <= item.y[1]
            if item.yaw_deg is not None:
                assert abs(layout[f"{item.body}_yaw"]) <= math.radians(item.yaw_deg)
    colours = {body.split("_")[0] for body in OBJECTS}
    assert len(colours) == 5 and all(c in cls.instruction for c in colours)
    assert "brown basket" in cls.instruction


# --- per-object placement test on staged states ---
def test_objects_resting_in_their_slots_are_in_and_all_five_succeed(make_env: MakeEnv) -> None:
    env = make_env(TASK, SEED, render=False)
    _stage_in_basket(env, OBJECTS)
    settle(env, 100)
    evaluation = env.evaluate()
    assert evaluation.metrics["objects_in_basket"] == 5.0
    assert evaluation.success and evaluation.paper_success, unmet(evaluation.conditions)


def test_four_of_five_is_not_a_success(make_env: MakeEnv) -> None:
    env = make_env(TASK, SEED, render=False)
    _stage_in_basket(env, OBJECTS[:-1])  # the standing bottle stays on the table
    settle(env, 100)
    evaluation = env.evaluate()
    assert evaluation.metrics["objects_in_basket"] == 4.0
    assert set(unmet(evaluation.conditions)) == {in_basket_name(OBJECTS[-1]), CONFIRMED}
    assert unmet(evaluation.paper_conditions) == [in_basket_name(OBJECTS[-1])]
    assert not evaluation.success and not evaluation.paper_success


def test_a_cube_on_the_rim_is_not_in(make_env: MakeEnv) -> None:
    env = make_env(TASK, SEED, render=False)
    wall_x = MODEL.inner_half_x + MODEL.wall_thickness / 2  # centred on the +x wall's top
    on_rim = _slot_position(env, (wall_x, 0.0), MODEL.depth + CUBE_HALF - SINK_M)
    teleport(env, "red_cube", on_rim, yaw_quat(0.0))
    evaluation = env.evaluate()
    assert not evaluation.conditions["in_basket_red_cube"]
    assert not evaluation.paper_conditions["in_basket_red_cube"]
    assert evaluation.metrics["objects_in_basket"] == 0.0


def test_a_pen_leaning_over_the_rim_is_out_though_the_paper_reading_counts_it(make_env: MakeEnv) -> None:
    """One end on the floor, the other over the +x wall's top: centre inside and low, corners outside."""
    env = make_env(TASK, SEED, render=False)
    rise = math.atan2(MODEL.depth, 0.10)  # from the floor 100 mm inside up to the rim's inner edge
    centre = _slot_position(env, (MODEL.inner_half_x - 0.10 + 0.07 * math.cos(rise), 0.0), 0.0)
    centre[2] += PEN_APOTHEM + 0.07 * math.sin(rise)
    teleport(env, "blue_pen", centre, axis_quat(0.0, rise))
    evaluation = env.evaluate()
    assert not evaluation.conditions["in_basket_blue_pen"]
    assert evaluation.paper_conditions["in_basket_blue_pen"]


# --- per-object placement test on states reached through env.step ---
def test_a_cube_released_beside_the_basket_is_out(make_env: MakeEnv) -> None:
    env = make_env(TASK, SEED, render=False)
    ctx = env.context
    item = next(i for i in ITEMS if i.body == "red_cube")
    play(env, grasp_item(ctx, item))
    play(env, [MoveWorld(Translation("z", "+", 60.0))])
    beside = _slot_position(env, (-MODEL.outer_half_x - 0.035 - CUBE_HALF, -0.06), 0.0)  # 35 mm off the wall
    offset = beside - env.world.body_position("red_cube")
    gc = ctx.arms["right"].gc(env.world.data)
    play(env, move_gc_to(ctx, "right", gc + np.array([offset[0], offset[1], 0.0]), order="xy"))
    drop = 0.74 + 0.004 - (env.world.body_position("red_cube")[2] - CUBE_HALF)
    play(env, move_gc_to(ctx, "right", ctx.arms["right"].gc(env.world.data) + np.array([0, 0, drop]), "z"))
    play(env, [SetGripper("open"), MoveWorld(Translation("z", "+", 60.0))])
    evaluation = env.evaluate()
    assert evaluation.checkpoints["lifted_red_cube"]
    assert not evaluation.conditions["in_basket_red_cube"]
    assert not evaluation.paper_conditions["in_basket_red_cube"]
    assert not evaluation.checkpoints["in_basket_red_cube"]


def test_a_pen_piled_on_two_stacked_cubes_is_above_the_basket(make_env: MakeEnv) -> None:
    """The yellow cube set on the floor at the basket's centre, the red cube onto it (its lowest point
    level with the rim: in), the pen across the red cube, 44 mm above the rim: out, though it rests on
    objects that are in."""
    env = make_env(TASK, SEED, render=False)
    centre = {
        body: replace(item_of(body), slot=(0.0, 0.0)) for body in ("yellow_cube", "red_cube", "blue_pen")
    }
    play(env, place_item(env.context, centre["yellow_cube"]))
    play(env, place_item(env.context, centre["red_cube"], on="yellow_cube"))
    play(env, place_item(env.context, centre["blue_pen"], on="red_cube"))
    evaluation = env.evaluate()
    rim = rim_z(env.context)
    assert abs(lowest_z(env.context, "red_cube") - rim) < 0.003
    assert lowest_z(env.context, "blue_pen") - rim > ABOVE_RIM_M
    inside = {body: evaluation.conditions[in_basket_name(body)] for body in centre}
    assert inside == {"yellow_cube": True, "red_cube": True, "blue_pen": False}


def test_held_touching_the_robot_and_released_inside(make_env: MakeEnv) -> None:
    """The expert's first placement (the pen), stopped before the release: held resting on the floor is
    not in; once released, the pen is in, but a cube in the basket touching a finger is not."""
    env = make_env(TASK, SEED, render=False)
    play_expert_until(env, lambda action: isinstance(action, SetGripper) and action.command == "open")
    play(env, [MoveWorld(Translation("z", "-", 5.0))])  # the held pen now rests on the floor
    held = env.evaluate()
    assert held.checkpoints["grasped_blue_pen"] and held.checkpoints["lifted_blue_pen"]
    assert not held.conditions["in_basket_blue_pen"]  # touches the robot
    assert held.paper_conditions["in_basket_blue_pen"] and not held.paper_conditions["gripper_open"]

    play(env, [SetGripper("open")])
    arm = env.context.arms["right"]
    gc, closing = arm.gc(env.world.data), arm.control_pose(env.world.data)[1][:, 1]
    reach = float(env.world.data.qpos[arm.finger_qpos[0]]) + 0.007 + CUBE_HALF - SINK_M  # pad's outer face
    spots = [gc + sign * reach * closing for sign in (1.0, -1.0)]
    spot = min(spots, key=lambda p: abs(_basket_local(env, p)[1]))  # the side over the floor
    spot[2] = env.world.body_position(BASKET)[2] + MODEL.floor_thickness + CUBE_HALF - SINK_M
    teleport(env, "yellow_cube", spot, yaw_quat(math.atan2(closing[1], closing[0])))
    touching = env.evaluate()
    assert touching.conditions["in_basket_blue_pen"]
    assert not touching.conditions["in_basket_yellow_cube"]
    assert touching.paper_conditions["in_basket_yellow_cube"]

    play(env, [MoveWorld(Translation("z", "+", 70.0))])
    clear = env.evaluate()
    assert clear.conditions["in_basket_blue_pen"] and clear.conditions["in_basket_yellow_cube"]
    assert clear.checkpoints["in_basket_blue_pen"] and clear.metrics["objects_in_basket"] == 2.0
