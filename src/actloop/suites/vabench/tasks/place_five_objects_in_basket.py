"""place_five_objects_in_basket: the long-horizon track's five-object basket task (the seed's section 3.1).

The seed describes the task only in words (five objects, four atomic skills, a basket, 20 episodes, placements
counted out of five per episode and strict success); the scene below is ours, laid out from the single-arm
families' ranges (tables 22-24) and the right arm's measured reach.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

import mujoco
import numpy as np

from actloop.sim import fixedmath as fm
from actloop.sim.assets.basket import STORAGE_BASKET, basket
from actloop.sim.assets.blocks import cube
from actloop.sim.assets.bottle import WATER_BOTTLE, BottleModel, bottle
from actloop.sim.assets.common import axis_quat
from actloop.sim.assets.pen import PEN_APOTHEM, pen
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.expert import align_closing_axis, closing_axis_heading, move_gc_to
from actloop.suites.vabench.predicates import (
    body_geoms,
    displacement_m,
    grasped,
    gripper_closed,
    lift_m,
    site_position,
)
from actloop.suites.vabench.protocol.decisions import EnvAction, SetGripper
from actloop.suites.vabench.task import LIFT_THRESHOLD_M, Task, TaskContext, register_task
from actloop.suites.vabench.tasks._grasping import body_yaw, grasp_from_above, long_axis_yaw
from actloop.suites.vabench.tasks._placing import wrap
from actloop.suites.vabench.tasks.grasp_single_cube import CUBE_HALF
from actloop.suites.vabench.tasks.grasp_single_pen import MIN_GC_Z

Kind = Literal["cube", "pen", "lying_bottle", "upright_bottle"]
BASKET = "basket"
MODEL = STORAGE_BASKET
FOOTPRINT_TOLERANCE_M = 0.001
"""How far a corner of an object may reach past the inner wall face (contact penetration) and still be in."""
RIM_TOLERANCE_M = 0.005
"""Paper verdict: an object counts as inside when its lowest point is at least this far below the rim."""
ABOVE_RIM_M = 0.02
"""Hardened verdict: an object counts as inside only with its lowest point at most this far above the rim.
An object resting on a bottle lying on the floor (its top 12 mm above the rim) is in; one on a cube
stacked on a cube (44 mm above) or on the standing bottle (138 mm above) is not."""
TRANSPORT_CLEARANCE_M = 0.09
"""The expert carries an object with its lowest point this far above the table: 40 mm over the rim and 28 mm
over a lying bottle already in the basket."""
RELEASE_CLEARANCE_M = 0.004
"""The expert opens the gripper when the held object's lowest point is this far above the basket's floor."""
RETREAT_MM = 70.0
"""How far the expert raises the open gripper after a release."""
FULL_TURN_DEG = 360.0
"""Symmetry passed to the alignment helpers once a heading has been chosen: turn to exactly that heading."""


def recolored(model: BottleModel, model_id: str, body: str, cap: str) -> BottleModel:
    """The same bottle geometry in other colours: every section ``body`` except the cap."""
    sections = tuple(replace(s, color=body) for s in model.sections[:-1])
    return replace(model, model_id=model_id, sections=(*sections, replace(model.sections[-1], color=cap)))


CYAN_BOTTLE = recolored(WATER_BOTTLE, "cyan_water_bottle", "cyan", "white")
PURPLE_BOTTLE = recolored(WATER_BOTTLE, "purple_water_bottle", "purple", "white")


@dataclass(frozen=True)
class Item:
    """One of the five objects: its body name (colour and noun), the kind of atomic skill that handles it,
    its randomization on the table (centre x/y ranges, yaw within ±``yaw_deg``) and the slot, in the
    basket's frame, where the expert puts its centre."""

    body: str
    kind: Kind
    x: tuple[float, float]
    y: tuple[float, float]
    yaw_deg: float | None
    slot: tuple[float, float]


# In expert order. The basket's -x half takes a column of the two cubes and the standing bottle, the cubes'
# closing axis along x; its +x half the pen and the lying bottle along x, their closing axis along y. Every
# slot leaves the open fingers (47 mm from the grasp axis) clear of the walls and of the objects placed
# before, and the palm (100 mm along the closing axis, from 46 mm above GC) clear of everything.
ITEMS: tuple[Item, ...] = (
    Item("blue_pen", "pen", (-0.03, 0.01), (-0.22, -0.20), 20.0, (0.06, 0.045)),
    Item("cyan_bottle", "lying_bottle", (0.19, 0.23), (-0.22, -0.20), 10.0, (0.053, -0.045)),
    Item("yellow_cube", "cube", (0.085, 0.115), (-0.11, -0.09), 45.0, (-0.095, 0.06)),
    Item("red_cube", "cube", (-0.055, -0.025), (-0.11, -0.09), 45.0, (-0.095, 0.0)),
    Item("purple_bottle", "upright_bottle", (0.345, 0.37), (-0.01, 0.03), None, (-0.095, -0.065)),
)
OBJECTS = tuple(item.body for item in ITEMS)
BASKET_X = (0.11, 0.14)
BASKET_Y = (0.075, 0.085)
SKILLS: dict[str, str] = {
    "cube_into_basket": "red_cube",
    "lying_bottle_into_basket": "cyan_bottle",
    "pen_into_basket": "blue_pen",
    "upright_bottle_into_basket": "purple_bottle",
}
"""The four atomic skills (name -> the object its demonstration puts into the basket); the yellow cube is
the cube skill's second use."""


def in_basket_name(body: str) -> str:
    return f"in_basket_{body}"


# --- geometry and contacts (evaluator-side; element-wise float maths only, no BLAS) ---
ROBOT, WORLD = "robot", "world"
_CORNER_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)


@dataclass(frozen=True)
class SceneGeoms:
    """Who owns each geom of a basket scene: an object, the basket, the robot or the static world."""

    owner: dict[int, str]
    boxes: dict[str, np.ndarray]
    """Box geom ids of each object (every object is built of boxes)."""


_SCENE_GEOMS: weakref.WeakKeyDictionary[mujoco.MjModel, SceneGeoms] = weakref.WeakKeyDictionary()


def scene_geoms(ctx: TaskContext) -> SceneGeoms:
    """The geom owners of the context's model, worked out once per model."""
    model = ctx.world.model
    cached = _SCENE_GEOMS.get(model)
    if cached is None:
        owner = {g: WORLD for g in range(model.ngeom) if int(model.body_weldid[model.geom_bodyid[g]]) == 0}
        owner |= {g: ROBOT for arm in ctx.arms.values() for g in arm.geoms}
        boxes = {}
        for body in (*OBJECTS, BASKET):
            geoms = sorted(body_geoms(ctx, body))
            owner |= dict.fromkeys(geoms, body)
            boxes[body] = np.array(geoms, dtype=int)
        cached = _SCENE_GEOMS[model] = SceneGeoms(owner, boxes)
    return cached


def contact_pairs(ctx: TaskContext) -> set[frozenset[str]]:
    """The pairs of owners (objects, basket, robot, world) in contact now."""
    owner = scene_geoms(ctx).owner
    pairs = set()
    for i in range(ctx.world.data.ncon):
        c = ctx.world.data.contact[i]
        a, b = owner.get(int(c.geom1)), owner.get(int(c.geom2))
        if a is not None and b is not None and a != b:
            pairs.add(frozenset((a, b)))
    return pairs


def object_corners(ctx: TaskContext, body: str) -> np.ndarray:
    """World positions (n x 3) of the corners of every box geom of ``body``."""
    geoms = scene_geoms(ctx).boxes[body]
    data, model = ctx.world.data, ctx.world.model
    pos = data.geom_xpos[geoms][:, None, :]  # (g, 1, 3)
    axes = data.geom_xmat[geoms].reshape(-1, 3, 3)  # column j: the geom's local axis j in the world
    half = model.geom_size[geoms][:, None, :] * _CORNER_SIGNS[None, :, :]  # (g, 8, 3)
    corners = (
        pos
        + half[:, :, 0:1] * axes[:, None, :, 0]
        + half[:, :, 1:2] * axes[:, None, :, 1]
        + half[:, :, 2:3] * axes[:, None, :, 2]
    )
    return corners.reshape(-1, 3)


def in_basket_frame(ctx: TaskContext, points: np.ndarray) -> np.ndarray:
    """``points`` (n x 3, world) in the basket's frame (origin at the centre of its underside)."""
    d = points - ctx.world.body_position(BASKET)
    r = ctx.world.body_rotation(BASKET)
    return np.stack([d[:, 0] * r[0, j] + d[:, 1] * r[1, j] + d[:, 2] * r[2, j] for j in range(3)], axis=1)


def within_footprint(ctx: TaskContext, body: str) -> bool:
    """Every corner of the object lies over the basket's inner floor (within ``FOOTPRINT_TOLERANCE_M``)."""
    local = in_basket_frame(ctx, object_corners(ctx, body))
    return bool(
        np.all(np.abs(local[:, 0]) <= MODEL.inner_half_x + FOOTPRINT_TOLERANCE_M)
        and np.all(np.abs(local[:, 1]) <= MODEL.inner_half_y + FOOTPRINT_TOLERANCE_M)
    )


def lowest_z(ctx: TaskContext, body: str) -> float:
    """Height of the object's lowest point (world z)."""
    return float(np.min(object_corners(ctx, body)[:, 2]))


def highest_z(ctx: TaskContext, body: str) -> float:
    """Height of the object's highest point (world z)."""
    return float(np.max(object_corners(ctx, body)[:, 2]))


def rim_z(ctx: TaskContext) -> float:
    """Height of the basket's rim (world z)."""
    return float(ctx.world.body_position(BASKET)[2]) + MODEL.wall_height


def floor_top_z(ctx: TaskContext) -> float:
    return float(ctx.world.body_position(BASKET)[2]) + MODEL.floor_thickness


def objects_in_basket(ctx: TaskContext) -> dict[str, bool]:
    """Per object: it is in the basket (the hardened test).

    An object is in when every corner of it lies over the inner floor, its lowest point is at most
    ``ABOVE_RIM_M`` above the rim, it touches neither the robot nor the table, and it rests on the basket
    or on objects that are themselves in: the set grows from the objects touching the basket through the
    objects touching those.
    """
    pairs = contact_pairs(ctx)

    def touch(a: str, b: str) -> bool:
        return frozenset((a, b)) in pairs

    top = rim_z(ctx) + ABOVE_RIM_M
    candidates = {
        b
        for b in OBJECTS
        if not touch(b, ROBOT)
        and not touch(b, WORLD)
        and within_footprint(ctx, b)
        and lowest_z(ctx, b) <= top
    }
    inside = {b for b in candidates if touch(b, BASKET)}
    grew = True
    while grew:
        new = {b for b in candidates - inside if any(touch(b, other) for other in inside)}
        inside |= new
        grew = bool(new)
    return {b: b in inside for b in OBJECTS}


@register_task
class PlaceFiveObjectsInBasket(Task):
    """Put five objects, handled by four atomic skills, into the basket one after another.

    The four skills (``skills``) are the grasps of four base families, each ending in a placement into the
    basket: a cube (grasp_single_cube; used twice), a lying bottle (grasp_single_bottle), a pen
    (grasp_single_pen) and an upright bottle (grasp_single_bottle_upright). The task is demonstrated by
    one video per skill, each placing that skill's object alone, and by no video of the whole task. The
    budget is 200 actions, the largest of the seed's budgets: the expert needs about 90.

    Instruction:
        Put all five objects into the brown basket: the red cube, the yellow cube, the blue pen, the cyan
        bottle lying on its side and the purple bottle standing upright.
    Randomization:
        The seed gives no layout for this task, so the one here is designed: every object and the basket
        lie where the right arm reaches straight down (the single-arm families' ranges, tables 22-24,
        widened to x in [-0.055, 0.37] m and y in [-0.22, 0.145] m, where the arm was measured to reach
        with the gripper pointing down), the basket stands beyond the objects as the placement
        families' goals do, and the objects are spread so that each can be grasped from above while
        the others are still on the table: the open fingers reach 47 mm from the grasp axis, the palm
        100 mm along the closing axis from 46 mm above GC, so each object stays clear of its neighbours
        by those amounts and the tall standing bottle stands apart from everything. Each object's range
        is a narrow box around its place, so the layout varies without ever crowding.
        Basket (``storage_basket``: 300 x 200 mm inside, 44 mm deep, brown, 2 kg, so it does not slide
        when brushed) centre x in [0.11, 0.14] m, y in [0.075, 0.085] m, long side along world x. Row in
        front of the basket: red cube x in [-0.055, -0.025] m and yellow cube x in [0.085, 0.115] m, both y in
        [-0.11, -0.09] m, 44 mm, yaw in [-45°, 45°] (as grasp_single_cube). Row nearer the robot: blue
        pen (140 mm, black cap) x in [-0.03, 0.01] m, y in [-0.22, -0.20] m, yaw in [-20°, 20°]; cyan
        bottle lying (the base families' water bottle, white cap) x in [0.19, 0.23] m, y in [-0.22, -0.20]
        m, yaw in [-10°, 10°] (narrower than grasp_single_pen's ±30° and grasp_single_bottle's ±22.5°,
        so their ends stay clear of the row in front). Purple bottle (same shape, white cap) standing to
        the right of the basket, x in [0.345, 0.37] m, y in [-0.01, 0.03] m.
    Success conditions:
        Hardened: ``in_basket_<object>`` for each of the five objects: every corner of the object lies
        over the basket's inner floor (1 mm tolerance), its lowest point is at most 20 mm above the rim
        (on the floor, or on contents lying on it, not piled high above the basket), it touches neither
        the robot nor the table, and it rests on the basket or on objects that are themselves in the
        basket (so it is not held, not balanced on the rim and not propped on the table);
        ``confirmed_after_settle``: with all five in, a scratch copy of the world with the arm put at
        home and the gripper open still has all five in after 3 s, every object and the basket at rest
        over the last 0.5 s.
        Paper (the seed states only "all five objects in the basket"; read as table 23 reads a
        container): ``in_basket_<object>`` for each object: its centre lies over the basket's inner floor
        and its lowest point at least 5 mm below the rim; ``gripper_open``: the right gripper is commanded
        open.
    Checkpoints:
        Per object (15 in all): ``grasped_<object>`` (gripper closed with both pads on it),
        ``lifted_<object>`` (grasped at least 50 mm above its start), ``in_basket_<object>`` (the hardened
        state test above, latched once met). The metric ``objects_in_basket`` counts the objects in the
        basket now (0-5).
    """

    name = "place_five_objects_in_basket"
    instruction = (
        "Put all five objects into the brown basket: the red cube, the yellow cube, the blue pen, the cyan "
        "bottle lying on its side and the purple bottle standing upright."
    )
    budget = 200
    track = "long_horizon"
    objects_of_interest = (*OBJECTS, BASKET)
    clear_arms_to_confirm = True
    skills: ClassVar[dict[str, str]] = SKILLS

    def sample_layout(self, rng: np.random.Generator) -> dict[str, Any]:
        layout = {"basket_x": float(rng.uniform(*BASKET_X)), "basket_y": float(rng.uniform(*BASKET_Y))}
        for item in ITEMS:
            layout[f"{item.body}_x"] = float(rng.uniform(*item.x))
            layout[f"{item.body}_y"] = float(rng.uniform(*item.y))
            if item.yaw_deg is not None:
                yaw = math.radians(item.yaw_deg)
                layout[f"{item.body}_yaw"] = float(rng.uniform(-yaw, yaw))
        return layout

    def objects(self) -> tuple[str, ...]:
        layout = self.layout
        parts = [basket(BASKET, (layout["basket_x"], layout["basket_y"]), 0.0, TABLE_TOP_Z)]
        for item in ITEMS:
            x, y, yaw = (
                layout[f"{item.body}_x"],
                layout[f"{item.body}_y"],
                layout.get(f"{item.body}_yaw", 0.0),
            )
            if item.kind == "cube":
                color = item.body.removesuffix("_cube")
                parts.append(
                    cube(item.body, (x, y, TABLE_TOP_Z + CUBE_HALF), yaw, half_size=CUBE_HALF, color=color)
                )
            elif item.kind == "pen":
                parts.append(pen(item.body, (x, y, TABLE_TOP_Z + PEN_APOTHEM), axis_quat(yaw, 0.0)))
            elif item.kind == "lying_bottle":
                pos = (x, y, TABLE_TOP_Z + CYAN_BOTTLE.lying_rest_height)
                parts.append(bottle(item.body, pos, axis_quat(yaw, 0.0), CYAN_BOTTLE))
            else:
                pos = (x, y, TABLE_TOP_Z + PURPLE_BOTTLE.upright_rest_height)
                parts.append(bottle(item.body, pos, axis_quat(0.0, math.pi / 2), PURPLE_BOTTLE))
        return tuple(parts)

    # --- verdicts ---
    def state_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        return {in_basket_name(b): ok for b, ok in objects_in_basket(ctx).items()}

    def paper_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        rim = rim_z(ctx)
        conditions = {}
        for b in OBJECTS:
            centre = in_basket_frame(ctx, ctx.world.body_position(b)[None, :])[0]
            conditions[in_basket_name(b)] = (
                abs(float(centre[0])) <= MODEL.inner_half_x
                and abs(float(centre[1])) <= MODEL.inner_half_y
                and lowest_z(ctx, b) <= rim - RIM_TOLERANCE_M
            )
        return {**conditions, "gripper_open": not gripper_closed(ctx, "right")}

    def checkpoints(self, ctx: TaskContext) -> dict[str, bool]:
        inside = objects_in_basket(ctx)
        points = {}
        for b in OBJECTS:
            held = grasped(ctx, "right", b)
            points[f"grasped_{b}"] = held
            points[f"lifted_{b}"] = held and lift_m(ctx, b) >= LIFT_THRESHOLD_M
            points[in_basket_name(b)] = inside[b]
        return points

    def metrics(self, ctx: TaskContext) -> dict[str, float]:
        return {
            "objects_in_basket": float(sum(objects_in_basket(ctx).values())),
            "basket_displacement_mm": 1000 * displacement_m(ctx, BASKET),
        }

    # --- expert ---
    def expert(self, ctx: TaskContext) -> Iterator[EnvAction]:
        for item in ITEMS:
            yield from place_item(ctx, item)

    def skill_expert(self, ctx: TaskContext, skill: str) -> Iterator[EnvAction]:
        """One atomic skill on its own: the skill's object into its slot in the basket."""
        yield from place_item(ctx, item_of(SKILLS[skill]))

    def skill_done(self, ctx: TaskContext, skill: str) -> bool:
        """The skill's object is in the basket."""
        return objects_in_basket(ctx)[SKILLS[skill]]


def item_of(body: str) -> Item:
    """The item whose object is ``body``."""
    return next(item for item in ITEMS if item.body == body)


def place_item(ctx: TaskContext, item: Item, on: str | None = None) -> Iterator[EnvAction]:
    """Grasp ``item`` from above as its atomic skill does, carry it over the basket, turn it square to the
    basket, lower it onto the floor at its slot (or, with ``on``, centred onto the top of that object),
    let go and raise the open gripper."""
    yield from grasp_item(ctx, item)
    lift_by = TABLE_TOP_Z + TRANSPORT_CLEARANCE_M - lowest_z(ctx, item.body)
    yield from move_gc_to(ctx, "right", _gc(ctx) + np.array([0.0, 0.0, lift_by]), order="z")
    basket_yaw = body_yaw(ctx, BASKET)
    if item.kind == "cube":  # closing axis along the basket's x: the open fingers move along the column
        yield from align_closing_axis(ctx, "right", wrist_friendly(ctx, basket_yaw, 180.0), FULL_TURN_DEG)
    elif item.kind in ("pen", "lying_bottle"):  # long axis along the basket's x
        heading = wrist_friendly(ctx, basket_yaw + math.pi / 2, 180.0)
        yield from align_closing_axis(ctx, "right", heading, FULL_TURN_DEG)
    slot = ctx.world.body_position(BASKET) + fm.matvec(
        ctx.world.body_rotation(BASKET), np.array([item.slot[0], item.slot[1], 0.0])
    )
    if on is not None:
        slot = ctx.world.body_position(on)
    for _ in range(2):  # the second pass corrects any drift of the object in the grasp
        offset = slot - ctx.world.body_position(item.body)
        yield from move_gc_to(ctx, "right", _gc(ctx) + np.array([offset[0], offset[1], 0.0]), order="xy")
    support = floor_top_z(ctx) if on is None else highest_z(ctx, on)
    drop = support + RELEASE_CLEARANCE_M - lowest_z(ctx, item.body)
    yield from move_gc_to(ctx, "right", _gc(ctx) + np.array([0.0, 0.0, drop]), order="z")
    yield SetGripper("open", reason="expert: release")
    yield from move_gc_to(ctx, "right", _gc(ctx) + np.array([0.0, 0.0, RETREAT_MM / 1000]), order="z")


def grasp_item(ctx: TaskContext, item: Item) -> Iterator[EnvAction]:
    """The atomic skill's grasp: the same grasp point and closing-axis heading as its single-object family
    (of the headings equivalent by the object's symmetry, the one that leaves the wrist most room)."""
    body = item.body
    if item.kind == "cube":  # grasp_single_cube
        heading = wrist_friendly(ctx, body_yaw(ctx, body), 90.0)
        yield from grasp_from_above(ctx, ctx.world.body_position(body), heading, FULL_TURN_DEG)
    elif item.kind == "pen":  # grasp_single_pen
        centre = ctx.world.body_position(body)
        point = np.array([centre[0], centre[1], max(float(centre[2]), MIN_GC_Z)])
        heading = wrist_friendly(ctx, long_axis_yaw(ctx, body) + math.pi / 2, 180.0)
        yield from grasp_from_above(ctx, point, heading, FULL_TURN_DEG)
    elif item.kind == "lying_bottle":  # grasp_single_bottle
        heading = wrist_friendly(ctx, long_axis_yaw(ctx, body) + math.pi / 2, 180.0)
        yield from grasp_from_above(ctx, site_position(ctx, f"{body}_side_grasp"), heading, FULL_TURN_DEG)
    else:  # grasp_single_bottle_upright
        yield from grasp_from_above(ctx, site_position(ctx, f"{body}_top_grasp"), None)


def wrist_friendly(ctx: TaskContext, heading: float, symmetry_deg: float) -> float:
    """Of the closing-axis headings ``heading + k * symmetry_deg``, the one whose turn leaves the last wrist
    joint nearest the middle of its range (a turn of the gripper by ``delta`` about world z changes that
    joint by about ``-delta`` when the gripper points down), so later moves do not run it into its limit."""
    q7 = float(ctx.arms["right"].joint_positions(ctx.world.data)[6])
    current = closing_axis_heading(ctx, "right")
    step = math.radians(symmetry_deg)
    candidates = [heading + k * step for k in range(round(360.0 / symmetry_deg))]
    return min(candidates, key=lambda h: abs(q7 - wrap(h - current, 2 * math.pi)))


def _gc(ctx: TaskContext) -> np.ndarray:
    return ctx.arms["right"].gc(ctx.world.data)
