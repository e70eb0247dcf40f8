"""Evaluator-side measurements and condition builders shared by the task families.

Everything here reads privileged simulator state and is used only by checkers, checkpoints, metrics
and experts; none of it reaches the model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from actloop.sim.world import subtree_geoms
from actloop.vabench.task import LIFT_THRESHOLD_M, TaskContext


def body_geoms(ctx: TaskContext, body: str) -> frozenset[int]:
    """Geom ids of a body and its descendants."""
    return subtree_geoms(ctx.world.model, body)


def lift_m(ctx: TaskContext, body: str) -> float:
    """Height of the body's origin above its settled starting height, metres."""
    return float(ctx.world.body_position(body)[2] - ctx.initial_positions[body][2])


def displacement_m(ctx: TaskContext, body: str) -> float:
    """Distance the body's origin has moved from its settled start, metres."""
    return float(np.linalg.norm(ctx.world.body_position(body) - ctx.initial_positions[body]))


def touching(ctx: TaskContext, body_a: str, body_b: str) -> bool:
    """Physical contact between any geom of one body and any geom of the other."""
    return ctx.world.in_contact(body_geoms(ctx, body_a), body_geoms(ctx, body_b))


def gripper_closed(ctx: TaskContext, arm: str = "right") -> bool:
    """The arm's gripper is commanded closed (whether or not it holds anything)."""
    return not ctx.arms[arm].gripper_commanded_open(ctx.world.data)


def pads_touch(ctx: TaskContext, arm: str, body: str) -> bool:
    """Both finger pads of the arm touch the body."""
    geoms = body_geoms(ctx, body)
    return all(ctx.world.in_contact(frozenset({p}), geoms) for p in ctx.arms[arm].pad_geoms)


def grasped(ctx: TaskContext, arm: str, body: str) -> bool:
    """The gripper is closed with both pads on the body."""
    return gripper_closed(ctx, arm) and pads_touch(ctx, arm, body)


def gc_near(ctx: TaskContext, arm: str, point: np.ndarray, xy_m: float, z_m: float) -> bool:
    """The arm's finger midpoint is within ``xy_m`` horizontally and ``z_m`` vertically of ``point``."""
    offset = np.asarray(point) - ctx.arms[arm].gc(ctx.world.data)
    return bool(np.hypot(offset[0], offset[1]) < xy_m and abs(offset[2]) < z_m)


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
