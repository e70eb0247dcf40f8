"""The baseline's decision loop: survey, perceive, then work through a plan of metric waypoints.

Each turn reads the conversation, resumes the plan stored in the previous decision's reason, and
emits the next decision. The plan is a list of steps:

- ``move``: bring GC to a target (axes in a given order, each command at most 100 mm);
- ``dual_move``: bring both arms' GCs to their targets, both moving in one synchronized command;
- ``turn``: turn the downward gripper about its approach axis so the closing axis has a heading;
- ``tilt``: turn the gripper about one local axis by a fixed angle (chunks of at most 45°);
- ``grip``: open or close (``arm`` ``both``: both grippers at once); ``look``: a semantic camera view;
- ``survey``, ``measure``: read the frame just taken and expand the plan from what it shows;
- ``probe``: descend in small steps down to a floor (the episode ends when a press registers);
- ``retry``: reached only when the task has not ended: start over (up to three attempts).

Steps that move or grip name their ``arm`` (default: the right arm); in dual-arm tasks every decision
names its arm, as the protocol requires.
"""

from __future__ import annotations

import math

import numpy as np
from inspect_ai.model import ChatMessage

from actloop.suites.vabench.baseline import bimanual, views
from actloop.suites.vabench.baseline.conversation import Proprio, Turn, emit, read_turn
from actloop.suites.vabench.baseline.learner import decide_learning, is_learning
from actloop.suites.vabench.baseline.packing import packing_order
from actloop.suites.vabench.baseline.perception import (
    TABLE_Z,
    Seen,
    ends_along_axis,
    find,
    seen_from_topdown,
    top_height_from_side,
    whole_top_from_side,
)
from actloop.suites.vabench.baseline.recipes import Recipe, packing_list, recipe_for
from actloop.suites.vabench.baseline.steps import dual_move_step, move_step

SURVEY_GC = (0.25, -0.32, 1.12)
HOVER_M = 0.08
CARRY_Z = 0.92
LIFT_M = 0.08
MAX_ATTEMPTS = 3
MOVE_TOLERANCE_M = 0.0015
MAX_TRIES_PER_STEP = 20  # actions spent on one plan step before it is abandoned
MIN_GRASP_Z = TABLE_Z + 0.013
PLACE_CLEARANCE_M = 0.006
LEAN_DEG = 30.0  # the published lean of the leaning-pen task
UPRIGHT_GRASP_BELOW_TOP_M = 0.03
PRESS_HOVER_Z = TABLE_Z + 0.14  # above any bell, so the descent starts in free space
PROBE_STEP_M = 0.008
PAD_TOP_M = 0.006  # a target pad is a thin sheet on the table
BOWL_VIEW_HEIGHT_M = 0.025  # the bowl's visible ring averages to its centre about this high
BELL_VIEW_HEIGHT_M = (
    0.02  # a bell's coloured part (base ring or dome) seen from above centres about this high
)
HAMMER_GRIP_FROM_HEAD_M = 0.03  # grip the handle this far from where it meets the head
HAMMER_HEAD_HALF_WIDTH_M = 0.015
BOWL_DROP_M = 0.035  # release a cube this far above the table inside a bowl
CLEAR_RISE_Z = 0.98  # a GC height reachable over the whole table
BASKET_DROP_M = 0.03  # release an object with its bottom this far above the table inside a basket
MAX_EXPANSIONS = 20


def decide(messages: list[ChatMessage]) -> str:
    """The next decision as JSON text, from the conversation so far."""
    if is_learning(messages):
        return decide_learning(messages)
    turn = read_turn(messages)
    if turn is None:
        return emit({"stop": True}, {}, "no observation with right-arm proprioception to act on")
    recipe = recipe_for(turn.instruction)
    if recipe is None:
        return emit({"stop": True}, {}, "the baseline has no procedure for this instruction")
    state = turn.state or {"plan": _start_plan(turn.dual), "attempt": 1, "tries": 0, "mem": {}, "item": 0}
    if recipe.procedure == "pack":  # one object at a time, each a placement into the container
        order = packing_order(packing_list(turn.instruction))
        if state["item"] >= len(order):
            return emit({"stop": True}, state, "every listed object has been put in")
        recipe, state["mem"]["slot"] = order[state["item"]]
    return _advance(state, turn, recipe)


def _start_plan(dual: bool) -> list[dict]:
    clear = (
        dual_move_step(
            list(bimanual.SURVEY_GC["left"]), list(bimanual.SURVEY_GC["right"]), "zyx", "clear the view"
        )
        if dual
        else move_step(list(SURVEY_GC), "zyx", "clear the view of the table")
    )
    return [clear, {"op": "look", "view": "topdown"}, {"op": "survey"}]


def _advance(state: dict, turn: Turn, recipe: Recipe) -> str:
    plan: list[dict] = state["plan"]
    if turn.planner_failed and plan and plan[0]["op"] in ("move", "dual_move", "turn", "tilt"):
        plan.pop(0)  # the executor refused this waypoint: skip it rather than repeat it
        state["tries"] = 0
    for _ in range(MAX_EXPANSIONS):
        if not plan:
            return emit({"stop": True}, {"plan": []}, "plan finished")
        step = plan[0]
        action, why = _act(step, state, turn, recipe)
        if action is not None:
            state["tries"] += 1
            if state["tries"] > MAX_TRIES_PER_STEP:
                plan.pop(0)
                state["tries"] = 0
                continue
            return emit(action, state, why)
        plan.pop(0)
        state["tries"] = 0
    return emit({"stop": True}, {"plan": []}, "could not make progress")


def _act(step: dict, state: dict, turn: Turn, recipe: Recipe) -> tuple[dict | None, str]:
    """The action for a plan step, or (None, "") when the step is complete (or only expands the plan)."""
    arm = step.get("arm", "right")
    p = turn.arms.get(arm, turn.proprio)
    match step["op"]:
        case "move":
            action, why = _move_action(step, p)
            return _for_arm(action, arm, turn), why
        case "dual_move":
            return _dual_move_action(step, turn)
        case "turn":
            action, why = _turn_action(step["heading"], step["sym"], p)
            return _for_arm(action, arm, turn), why
        case "tilt":
            return _tilt_action(step, state, turn)
        case "grip" if state["tries"] == 0:  # one-shot steps are complete once issued
            why = step.get("why", f"{step['cmd']} the gripper")
            if arm == "both":
                return {"action": f"dual_gripper.{step['cmd']}"}, why
            return _for_arm({"action": f"gripper.{step['cmd']}"}, arm, turn), why
        case "look" if state["tries"] == 0 and not turn.passive:  # passive: every view is already here
            return {"action": f"camera.view_{step['view']}"}, f"look {step['view']}"
        case "probe" if p.gc[2] - PROBE_STEP_M >= step["floor"] and not turn.planner_failed:
            # the episode ends as soon as the press registers, so keep feeling downwards until then
            action = {
                "action": "gripper.move_world",
                "axis": "z",
                "sign": "-",
                "distance_mm": PROBE_STEP_M * 1000,
            }
            return action, step["why"]
        case "survey":
            state["plan"][1:1] = _survey(turn, recipe, state["mem"])
        case "measure":
            state["plan"][1:1] = _measure(turn, recipe, state["mem"])
        case "next":  # this object is done with: on to the next one
            _next_object(state)
        case "retry":
            if state["attempt"] >= MAX_ATTEMPTS:
                state["plan"][1:] = [{"op": "stop"}]
            else:
                state["attempt"] += 1
                state["mem"] = _kept(state["mem"])
                again = "the task has not ended: release and try again"
                if turn.dual:
                    state["plan"][1:] = [{"op": "grip", "cmd": "open", "arm": "both", "why": again}]
                else:
                    state["plan"][1:] = [
                        {"op": "grip", "cmd": "open", "why": again},
                        move_step([None, None, SURVEY_GC[2]], "z", "rise to look again"),
                    ]
                state["plan"] += _start_plan(turn.dual)
        case "stop" if recipe.goal == "basket":  # packing: give this object up, go on with the next
            _next_object(state)
        case "stop":
            return {"stop": True}, "attempts exhausted"
    return None, ""


def _next_object(state: dict) -> None:
    """Go on to the next object of a packing list: up a little (over the basket's far side the arm cannot
    rise to the survey height), back towards the robot, across, then up to where the table is in view, and
    survey again."""
    state["item"] += 1
    state["attempt"] = 1
    state["mem"] = _kept(state["mem"])
    state["plan"][1:] = [
        move_step([None, None, CLEAR_RISE_Z], "z", "rise clear of the objects"),
        move_step(list(SURVEY_GC), "yxz", "back to where the table is in view"),
        {"op": "look", "view": "topdown"},
        {"op": "survey"},
    ]


def _kept(mem: dict) -> dict:
    """What outlives an attempt: where the container is (seen while it was still empty)."""
    return {key: mem[key] for key in ("container_xy",) if key in mem}


def _for_arm(action: dict | None, arm: str, turn: Turn) -> dict | None:
    """Name the arm in a single-gripper action when the task has two."""
    return {**action, "arm": arm} if action is not None and turn.dual else action


def _translation(axis: str, target: float | None, p: Proprio) -> dict | None:
    """The world-axis translation (at most 100 mm) bringing GC towards ``target``, or None when there."""
    if target is None:
        return None
    delta = float(target) - float(p.gc["xyz".index(axis)])
    if abs(delta) < MOVE_TOLERANCE_M:
        return None
    mm = max(-100.0, min(100.0, 1000.0 * delta))
    return {"axis": axis, "sign": "+" if mm > 0 else "-", "distance_mm": round(max(1.0, abs(mm)), 1)}


def _move_action(step: dict, p: Proprio) -> tuple[dict | None, str]:
    for axis in step["order"]:
        translation = _translation(axis, step["to"]["xyz".index(axis)], p)
        if translation is not None:
            return {"action": "gripper.move_world", **translation}, step["why"] or f"move along {axis}"
    return None, ""


def _dual_move_action(step: dict, turn: Turn) -> tuple[dict | None, str]:
    """The next axis of a synchronized move: one dual command when both arms still have to travel along
    it, a single-arm move when only one has."""
    for axis in step["order"]:
        i = "xyz".index(axis)
        moves = {arm: _translation(axis, step["to"][arm][i], turn.arms[arm]) for arm in ("left", "right")}
        if moves["left"] and moves["right"]:
            return {"action": "dual_gripper.move_world", **moves}, step["why"]
        for arm, translation in moves.items():
            if translation is not None:
                return {"action": "gripper.move_world", "arm": arm, **translation}, step["why"]
    return None, ""


def _turn_action(heading: float, symmetry_deg: float, p: Proprio) -> tuple[dict | None, str]:
    current = math.atan2(float(p.ry[1]), float(p.ry[0]))
    sym = math.radians(symmetry_deg)
    turn = (heading - current + sym / 2) % sym - sym / 2
    if abs(math.degrees(turn)) < 1.0:
        return None, ""
    angle = -math.degrees(turn)  # pointing down, +rx turns the gripper clockwise seen from above
    action = {
        "action": "gripper.rotate_local",
        "axis": "rx",
        "sign": "+" if angle > 0 else "-",
        "angle_deg": round(min(90.0, abs(angle)), 1),
    }
    return action, "turn the fingers across the object"


def _tilt_action(step: dict, state: dict, turn: Turn) -> tuple[dict | None, str]:
    """One chunk (at most 45°) of a fixed turn about a local axis; ``state["tries"]`` counts the chunks."""
    chunks = math.ceil(abs(step["deg"]) / 45.0)
    if state["tries"] >= chunks:
        return None, ""
    action = {
        "action": "gripper.rotate_local",
        "axis": step["axis"],
        "sign": "+" if step["deg"] > 0 else "-",
        "angle_deg": round(abs(step["deg"]) / chunks, 1),
    }
    return _for_arm(action, step.get("arm", "right"), turn), step["why"]


# --- plan construction from what the frames show ---


def _survey(turn: Turn, recipe: Recipe, mem: dict) -> list[dict]:
    image = turn.view("topdown")
    if image is None:
        return [{"op": "stop"}]
    if recipe.procedure in bimanual.PROCEDURES:
        if not turn.dual:
            return [{"op": "stop"}]
        survey = bimanual.survey_camera(turn.arms, image)
        plan = bimanual.PROCEDURES[recipe.procedure](image, survey, recipe, mem)
        return plan or [{"op": "stop"}]
    camera = views.topdown(turn.proprio.gc, image.shape[1], image.shape[0])
    exclude = tuple(c for c in (recipe.goal_colour, recipe.support_colour) if c)
    region = find(image, recipe.colour, exclude)
    if region is None:
        return [{"op": "stop"}]
    target = seen_from_topdown(camera, region, square=recipe.shape == "cube")
    goal = _goal(image, camera, recipe, mem)
    if recipe.procedure != "grasp" and goal is None and recipe.goal is not None:
        return [{"op": "stop"}]
    mem["goal"] = goal
    match recipe.shape:
        case "cube":
            grasp_z = max(TABLE_Z + target.thickness / 2, MIN_GRASP_Z)
            return _grasp(target.xy, target.heading, 90.0, grasp_z) + _after_grasp(recipe, mem, grasp_z)
        case "lying":
            grasp_z = max(TABLE_Z + target.thickness / 2, MIN_GRASP_Z)
            across = target.heading + math.pi / 2
            return _grasp(target.xy, across, 180.0, grasp_z) + _after_grasp(recipe, mem, grasp_z)
        case "leaning":
            return _leaning_grasp(image, camera, recipe, target)
        case "hammer":
            return _hammer_grasp(image, camera, recipe, target, mem)
        case "bell":  # concentric base, dome and button: the region's centre is the button's
            x, y = (
                float(v) for v in camera.point_at_height(region.u, region.v, TABLE_Z + BELL_VIEW_HEIGHT_M)[:2]
            )
            return [
                {"op": "grip", "cmd": "close", "why": "close the fingers to press with them"},
                move_step([x, y, PRESS_HOVER_Z], "xyz", "hover above the bell's centre"),
                {"op": "probe", "floor": MIN_GRASP_Z, "why": "feel downwards for the button"},
                {"op": "retry"},
            ]
        case "upright":
            mem["xy"] = [float(v) for v in target.xy]
            mem["heading"] = target.heading
            return [
                move_step([*mem["xy"], SURVEY_GC[2] - 0.05], "xyz", "go above it"),
                {"op": "look", "view": "side"},
                {"op": "measure"},
            ]
    return [{"op": "stop"}]


def _goal(image: np.ndarray, camera: views.Pinhole, recipe: Recipe, mem: dict) -> dict | None:
    if recipe.goal is None:
        return None
    if recipe.goal == "basket":
        return _container_goal(image, camera, recipe, mem)
    region = find(image, recipe.goal_colour, tuple(c for c in (recipe.colour,) if c))
    if region is None:
        return None
    if recipe.goal in ("cube", "block"):  # as tall as it is wide
        seen = seen_from_topdown(camera, region, square=True)
        xy, top = seen.xy, TABLE_Z + seen.thickness
    else:  # a flat pad, or a bowl seen as the disc of its floor and wall
        top = TABLE_Z + (PAD_TOP_M if recipe.goal == "pad" else BOWL_VIEW_HEIGHT_M)
        xy = camera.point_at_height(region.u, region.v, top)[:2]
    return {"xy": [float(v) for v in xy], "top": float(top)}


def _container_goal(image: np.ndarray, camera: views.Pinhole, recipe: Recipe, mem: dict) -> dict | None:
    """A basket: its centre as first seen (before objects hid part of its floor) plus this object's slot;
    the goal's ``top`` is the height at which the object's bottom is released."""
    if "container_xy" not in mem:
        region = find(image, recipe.goal_colour, tuple(c for c in (recipe.colour,) if c))
        if region is None:
            return None
        mem["container_xy"] = [float(v) for v in camera.point_at_height(region.u, region.v, TABLE_Z)[:2]]
    x, y = (c + s for c, s in zip(mem["container_xy"], mem.get("slot", (0.0, 0.0)), strict=True))
    return {"xy": [x, y], "top": TABLE_Z + BASKET_DROP_M}


def _grasp(xy: np.ndarray, heading: float, sym: float, grasp_z: float) -> list[dict]:
    x, y = float(xy[0]), float(xy[1])
    return [
        {"op": "turn", "heading": heading, "sym": sym},
        move_step([x, y, grasp_z + HOVER_M], "xyz", "hover above the object"),
        move_step([x, y, grasp_z], "z", "descend to grasp height"),
        {"op": "grip", "cmd": "close", "why": "close on the object"},
    ]


def _after_grasp(recipe: Recipe, mem: dict, grasp_z: float) -> list[dict]:
    """Lift, and for placements carry the object over the goal, lower it and let go."""
    lift = [move_step([None, None, grasp_z + LIFT_M], "z", "lift the object")]
    goal = mem.get("goal")
    if recipe.procedure != "place" or goal is None:
        return [*lift, {"op": "retry"}]
    held = grasp_z - TABLE_Z  # GC height above the object's bottom
    gx, gy = goal["xy"]
    packing = recipe.goal == "basket"
    if recipe.goal == "bowl":
        bottom = TABLE_Z + BOWL_DROP_M
    else:  # a basket's goal "top" is already the release height of an object's bottom
        bottom = goal["top"] + (0.0 if packing else PLACE_CLEARANCE_M)
    release = bottom + held
    carry = max(CARRY_Z, release + 0.03, grasp_z + LIFT_M)
    # a long object is turned to lie along the basket's length
    square = (
        [{"op": "turn", "heading": math.pi / 2, "sym": 180.0}] if packing and recipe.shape == "lying" else []
    )
    return [
        move_step([None, None, carry], "z", "lift the object clear"),
        *square,
        move_step([gx, gy, carry], "xy", "carry it over the goal"),
        move_step([gx, gy, release], "z", "lower it onto the goal"),
        {"op": "grip", "cmd": "open", "why": "release it"},
        move_step([None, None, release + 0.05], "z", "back away"),
        {"op": "next" if packing else "retry"},
    ]


def _leaning_grasp(image: np.ndarray, camera: views.Pinhole, recipe: Recipe, pen: Seen) -> list[dict]:
    support = find(image, recipe.support_colour, (recipe.colour,) if recipe.colour else ())
    if support is None:
        return [{"op": "stop"}]
    cube = seen_from_topdown(camera, support, square=True)
    a, b = ends_along_axis(camera, pen.region, TABLE_Z + 0.01)
    low, high = (a, b) if np.linalg.norm(a - cube.xy) > np.linalg.norm(b - cube.xy) else (b, a)
    direction = (high - low) / max(np.linalg.norm(high - low), 1e-6)
    along = 0.04
    xy = low + along * direction
    grasp_z = max(TABLE_Z + 0.008 + along * math.tan(math.radians(LEAN_DEG)), MIN_GRASP_Z)
    return _grasp(xy, pen.heading + math.pi / 2, 180.0, grasp_z) + _after_grasp(recipe, {}, grasp_z)


def _hammer_grasp(
    image: np.ndarray, camera: views.Pinhole, recipe: Recipe, handle: Seen, mem: dict
) -> list[dict]:
    """Grasp the handle next to the head, lift, bring the head over the block and lower it onto it.

    The head is found by its colour when the instruction names one; otherwise it is taken to lie at the
    handle's far end (away from the robot), as in the task's demonstration.
    """
    goal = mem.get("goal")
    if goal is None:
        return [{"op": "stop"}]
    a, b = ends_along_axis(camera, handle.region, TABLE_Z + handle.thickness)
    head_region = None
    if recipe.support_colour is not None:
        others = tuple(c for c in (recipe.colour, recipe.goal_colour) if c)
        head_region = find(image, recipe.support_colour, others)
    if head_region is not None:
        head_xy = seen_from_topdown(camera, head_region, square=False).xy
        near, far = (a, b) if np.linalg.norm(a - head_xy) < np.linalg.norm(b - head_xy) else (b, a)
    else:
        near, far = (a, b) if a[1] > b[1] else (b, a)
        head_xy = near + HAMMER_HEAD_HALF_WIDTH_M * (near - far) / max(np.linalg.norm(near - far), 1e-6)
    direction = (far - near) / max(np.linalg.norm(far - near), 1e-6)
    xy = near + HAMMER_GRIP_FROM_HEAD_M * direction
    grasp_z = max(TABLE_Z + handle.thickness / 2, MIN_GRASP_Z)
    gx, gy = np.asarray(goal["xy"]) - (head_xy - xy)
    held = grasp_z - TABLE_Z  # the head's underside is this far below GC while it is held level
    return [
        *_grasp(xy, handle.heading + math.pi / 2, 180.0, grasp_z),
        move_step([None, None, CARRY_Z + 0.04], "z", "lift the hammer"),
        move_step([gx, gy, None], "xy", "bring the head over the block"),
        move_step([None, None, goal["top"] + held + 0.02], "z", "lower the head towards the block"),
        {"op": "probe", "floor": goal["top"] + held - 0.02, "why": "strike the block"},
        {"op": "retry"},
    ]


def _standing_top(camera: views.Pinhole, image: np.ndarray, recipe: Recipe, xy: np.ndarray) -> float | None:
    """Height of the top of the object standing at ``xy``. An instruction that names the object's colour
    names its body's; its cap may be another colour (white), so the whole object standing there is
    measured. Without a colour, the saturated object (body and cap) is."""
    if recipe.colour is None:
        return top_height_from_side(camera, image, None, xy)
    return whole_top_from_side(camera, image, recipe.colour, xy)


def _measure(turn: Turn, recipe: Recipe, mem: dict) -> list[dict]:
    image = turn.view("side")
    if image is not None and recipe.procedure in bimanual.MEASURES:
        midpoint = 0.5 * (turn.arms["left"].gc + turn.arms["right"].gc)
        camera = views.side(midpoint, image.shape[1], image.shape[0])
        return bimanual.MEASURES[recipe.procedure](image, camera, recipe, mem) or [{"op": "stop"}]
    if image is None or "xy" not in mem:
        return [{"op": "stop"}]
    camera = views.side(turn.proprio.gc, image.shape[1], image.shape[0])
    xy = np.array(mem["xy"])
    top = _standing_top(camera, image, recipe, xy)
    if top is None:
        return [{"op": "stop"}]
    x, y = float(xy[0]), float(xy[1])
    grasp_z = max(top - UPRIGHT_GRASP_BELOW_TOP_M, MIN_GRASP_Z)
    return [
        move_step([x, y, top + 0.03], "z", "hover above the top"),
        *_grasp(xy, mem["heading"], 90.0, grasp_z)[1:],
        *_after_grasp(recipe, mem, grasp_z),
    ]
