"""Evaluator-side measurements and condition builders shared by the task families.

Everything here reads privileged simulator state and is used only by checkers, checkpoints, metrics
and experts; none of it reaches the model.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from actloop.sim import fixedmath as fm
from actloop.sim.world import subtree_geoms
from actloop.suites.vabench.task import LIFT_THRESHOLD_M, TaskContext

CLEAR_OF_ROBOT = "object_clear_of_robot"
"""Hardened placement condition: the placed object touches no geom of any robot arm."""


def body_geoms(ctx: TaskContext, body: str) -> frozenset[int]:
    """Geom ids of a body and its descendants."""
    return subtree_geoms(ctx.world.model, body)


def hand_geoms(ctx: TaskContext, arm: str) -> frozenset[int]:
    """Geom ids of the arm's gripper: flange, palm, finger bodies and pads."""
    return body_geoms(ctx, f"{arm}_hand")


def finger_geoms(ctx: TaskContext, arm: str) -> frozenset[int]:
    """Geom ids of the arm's two fingers: finger bodies and pads."""
    return body_geoms(ctx, f"{arm}_left_finger") | body_geoms(ctx, f"{arm}_right_finger")


def contacts(ctx: TaskContext, geoms: frozenset[int]) -> Iterator[tuple[int, int, int]]:
    """Active contacts touching ``geoms``: (contact index, the geom in ``geoms``, the other geom)."""
    for i in range(ctx.world.data.ncon):
        c = ctx.world.data.contact[i]
        g1, g2 = int(c.geom1), int(c.geom2)
        if g1 in geoms:
            yield i, g1, g2
        elif g2 in geoms:
            yield i, g2, g1


def lift_m(ctx: TaskContext, body: str) -> float:
    """Height of the body's origin above its settled starting height, metres."""
    return float(ctx.world.body_position(body)[2] - ctx.initial_positions[body][2])


def displacement_m(ctx: TaskContext, body: str) -> float:
    """Distance the body's origin has moved from its settled start, metres."""
    return fm.norm(ctx.world.body_position(body) - ctx.initial_positions[body])


def tilt_deg(ctx: TaskContext, body: str) -> float:
    """Angle between the body's z axis and the world's vertical, degrees: 0 upright, 180 upside down."""
    up = float(ctx.world.body_rotation(body)[2, 2])
    return math.degrees(math.acos(max(-1.0, min(1.0, up))))


def touching(ctx: TaskContext, body_a: str, body_b: str) -> bool:
    """Physical contact between any geom of one body and any geom of the other."""
    return ctx.world.in_contact(body_geoms(ctx, body_a), body_geoms(ctx, body_b))


def touches_robot(ctx: TaskContext, body: str) -> bool:
    """Any geom of the body touches any geom of any arm."""
    robot = frozenset().union(*(arm.geoms for arm in ctx.arms.values()))
    return ctx.world.in_contact(body_geoms(ctx, body), robot)


def supported_by_hand_only(ctx: TaskContext, arm: str, body: str) -> bool:
    """The body touches the arm's gripper and nothing else (no table, no other object, no arm link)."""
    hand = hand_geoms(ctx, arm)
    others = [other for _, _, other in contacts(ctx, body_geoms(ctx, body))]
    return bool(others) and all(g in hand for g in others)


def gripper_closed(ctx: TaskContext, arm: str = "right") -> bool:
    """The arm's gripper is commanded closed (whether or not it holds anything)."""
    return not ctx.arms[arm].gripper_commanded_open(ctx.world.data)


def finger_opening_m(ctx: TaskContext, arm: str) -> float:
    """Gap between the two finger pads' inner faces, metres (0 when the fingers are shut)."""
    left, right = ctx.arms[arm].finger_qpos
    return float(ctx.world.data.qpos[left] + ctx.world.data.qpos[right])


def pads_touch(ctx: TaskContext, arm: str, body: str) -> bool:
    """Both finger pads of the arm touch the body."""
    geoms = body_geoms(ctx, body)
    return all(ctx.world.in_contact(frozenset({p}), geoms) for p in ctx.arms[arm].pad_geoms)


def grasped(ctx: TaskContext, arm: str, body: str) -> bool:
    """The gripper is closed with both pads on the body."""
    return gripper_closed(ctx, arm) and pads_touch(ctx, arm, body)


def contact_normal(ctx: TaskContext, index: int, from_geom: int) -> np.ndarray:
    """Unit normal of contact ``index`` pointing away from ``from_geom`` (one of its two geoms)."""
    c = ctx.world.data.contact[index]
    normal = c.frame[:3].copy()  # MuJoCo's normal points from geom1 to geom2
    return normal if int(c.geom1) == from_geom else -normal


def gc_near(ctx: TaskContext, arm: str, point: np.ndarray, xy_m: float, z_m: float) -> bool:
    """The arm's finger midpoint is within ``xy_m`` horizontally and ``z_m`` vertically of ``point``."""
    offset = np.asarray(point) - ctx.arms[arm].gc(ctx.world.data)
    return math.hypot(offset[0], offset[1]) < xy_m and abs(float(offset[2])) < z_m


def site_position(ctx: TaskContext, site: str) -> np.ndarray:
    """World position of an (evaluator-only) site."""
    return ctx.world.data.site(site).xpos.copy()


def previously_lifted(ctx: TaskContext, body: str, threshold_m: float = LIFT_THRESHOLD_M) -> bool:
    """Latched: the body has been at least ``threshold_m`` above its start at some step of the episode."""
    return ctx.latch(f"{body}_lifted_{threshold_m}", lift_m(ctx, body) >= threshold_m)


@dataclass(frozen=True)
class TargetPlacement:
    """The shared target-placement predicate (the seed's table 23, place_single_* tasks).

    ``rest_height_m`` is the height of the object's body origin above the target's top surface when
    the object rests on it as intended; the height error is measured against that.
    """

    obj: str
    target: str
    rest_height_m: float
    xy_tolerance_m: float
    height_tolerance_m: float = 0.035
    target_displacement_m: float = 0.002

    def errors(self, ctx: TaskContext) -> tuple[float, float, float]:
        """Object-minus-expected error in x, y and height, metres."""
        obj = ctx.world.body_position(self.obj)
        target = ctx.world.body_position(self.target)
        return (
            float(obj[0] - target[0]),
            float(obj[1] - target[1]),
            float(obj[2] - (target[2] + self.rest_height_m)),
        )

    def conditions(self, ctx: TaskContext, arm: str = "right") -> dict[str, bool]:
        """The seed's literal conditions, term by term."""
        ex, ey, ez = self.errors(ctx)
        xy_mm = round(1000 * self.xy_tolerance_m)
        z_mm = round(1000 * self.height_tolerance_m)
        return {
            "previously_lifted_50mm": previously_lifted(ctx, self.obj),
            f"x_error_le_{xy_mm}mm": abs(ex) <= self.xy_tolerance_m,
            f"y_error_le_{xy_mm}mm": abs(ey) <= self.xy_tolerance_m,
            f"height_error_le_{z_mm}mm": abs(ez) <= self.height_tolerance_m,
            "target_displacement_le_2mm": displacement_m(ctx, self.target) <= self.target_displacement_m,
            "contact": touching(ctx, self.obj, self.target),
            "gripper_open": not gripper_closed(ctx, arm),
        }

    def metrics(self, ctx: TaskContext) -> dict[str, float]:
        ex, ey, ez = self.errors(ctx)
        return {
            "x_error_mm": 1000 * ex,
            "y_error_mm": 1000 * ey,
            "height_error_mm": 1000 * ez,
            "target_displacement_mm": 1000 * displacement_m(ctx, self.target),
            "lift_mm": 1000 * lift_m(ctx, self.obj),
        }
