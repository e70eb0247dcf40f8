"""Shared pieces of the direct-grasp families: the upright-bottle scene, the lift predicate,
checkpoints and expert moves.

Every direct-grasp family here succeeds when its target is held in the closed right gripper, by both
pads and by nothing else, more than 50 mm above its start, and still is after the settle confirmation
(the seed's predicate: lifted more than 50 mm with the right gripper commanded closed). The families
differ in the scene, the grasp point and whether the closing axis must be turned across a long axis. The
upright-bottle placement family reuses the upright bottle and the grasp-from-above expert.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from actloop.sim.assets.bottle import BottleModel, bottle
from actloop.sim.assets.common import axis_quat
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.expert import align_closing_axis, move_gc_to
from actloop.suites.vabench.predicates import gc_near, grasped, gripper_closed, lift_m, supported_by_hand_only
from actloop.suites.vabench.protocol.decisions import EnvAction, MoveWorld, SetGripper, Translation
from actloop.suites.vabench.task import LIFT_THRESHOLD_M, Task, TaskContext

NEAR_XY_M = 0.02
NEAR_Z_M = 0.025
HOVER_M = 0.08
LIFT_MM = 80.0
LONG_AXIS_SYMMETRY_DEG = 180.0
UPRIGHT_QUAT = axis_quat(0.0, math.pi / 2)


UPRIGHT_BOTTLE_X_RANGE = (0.20, 0.28)
UPRIGHT_BOTTLE_Y_RANGE = (-0.16, -0.04)


def sample_upright_bottle(
    rng: np.random.Generator,
    model: BottleModel,
    x_range: tuple[float, float] = UPRIGHT_BOTTLE_X_RANGE,
    y_range: tuple[float, float] = UPRIGHT_BOTTLE_Y_RANGE,
) -> dict[str, Any]:
    """The upright bottle's scene fields: centre x/y (by default the seed's table 22 ranges) and the
    preset's model id."""
    return {
        "x": float(rng.uniform(*x_range)),
        "y": float(rng.uniform(*y_range)),
        "model_id": model.model_id,
    }


def upright_bottle(layout: dict[str, Any], model: BottleModel) -> str:
    """The bottle ``bottle`` standing on the table at the layout's x/y."""
    pos = (layout["x"], layout["y"], TABLE_TOP_Z + model.upright_rest_height)
    return bottle("bottle", pos, UPRIGHT_QUAT, model)


def body_yaw(ctx: TaskContext, body: str) -> float:
    """Heading (rad) of the body's local x axis in the table plane."""
    rot = ctx.world.body_rotation(body)
    return math.atan2(float(rot[1, 0]), float(rot[0, 0]))


def long_axis_yaw(ctx: TaskContext, body: str) -> float:
    """Heading (rad) of the body's long axis (body z) projected on the table plane."""
    axis = ctx.world.body_rotation(body)[:, 2]
    return math.atan2(float(axis[1]), float(axis[0]))


def grasp_from_above(
    ctx: TaskContext, point: np.ndarray, heading: float | None, symmetry_deg: float = LONG_AXIS_SYMMETRY_DEG
) -> Iterator[EnvAction]:
    """Turn the closing axis to ``heading`` (None: keep it; modulo the object's ``symmetry_deg``), hover
    above ``point``, descend, close."""
    if heading is not None:
        yield from align_closing_axis(ctx, "right", heading, symmetry_deg)
    yield from move_gc_to(ctx, "right", point + np.array([0.0, 0.0, HOVER_M]), order="zxy")
    yield from move_gc_to(ctx, "right", point, order="z")
    yield SetGripper("close", reason="expert: grasp")


def lift() -> MoveWorld:
    return MoveWorld(Translation("z", "+", LIFT_MM), reason="expert: lift")


class LiftTask(Task):
    """A direct-grasp family: grasp ``target`` and lift it more than 50 mm with the right gripper.

    Success conditions, the same for every lift family:
        Hardened (decide the episode): ``lifted_gt_50mm``: the target's origin is more than 50 mm above
        its initial height; ``held_in_right_gripper``: the right gripper is commanded closed with both
        finger pads on the target; ``supported_by_gripper_only``: the target touches the right gripper
        (pads, fingers, palm) and nothing else, so it is neither propped on the table nor resting on
        another object; ``confirmed_after_settle``: with all of these true, a scratch copy of the world
        that holds the current commands for 3 s still meets them (``vabench.confirm``): the target
        may swing or turn in the grasp, but must stay held.
        Paper (the seed's table 22, reported beside): ``lifted_gt_50mm`` and ``right_gripper_closed``
        (the gripper is commanded closed, whether or not it holds anything).

    Subclasses give the grasp point (also the ``approached`` checkpoint's reference) and the heading
    the closing axis must take (None when the object is round about the vertical).
    """

    target: ClassVar[str]
    symmetry_deg: ClassVar[float] = LONG_AXIS_SYMMETRY_DEG
    """Rotational symmetry of the grasp about the vertical (90° for a cube's faces)."""

    @abstractmethod
    def grasp_point(self, ctx: TaskContext) -> np.ndarray:
        """World point where GC should be when the gripper closes."""

    @abstractmethod
    def grasp_heading(self, ctx: TaskContext) -> float | None:
        """Heading (rad) of the closing axis for the grasp, or None if any heading works."""

    def state_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        return {
            "lifted_gt_50mm": lift_m(ctx, self.target) > LIFT_THRESHOLD_M,
            "held_in_right_gripper": grasped(ctx, "right", self.target),
            "supported_by_gripper_only": supported_by_hand_only(ctx, "right", self.target),
        }

    def paper_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        return {
            "lifted_gt_50mm": lift_m(ctx, self.target) > LIFT_THRESHOLD_M,
            "right_gripper_closed": gripper_closed(ctx, "right"),
        }

    def checkpoints(self, ctx: TaskContext) -> dict[str, bool]:
        return {
            "approached": gc_near(ctx, "right", self.grasp_point(ctx), NEAR_XY_M, NEAR_Z_M),
            "grasped": grasped(ctx, "right", self.target),
            "lifted": all(self.state_conditions(ctx).values()),
        }

    def metrics(self, ctx: TaskContext) -> dict[str, float]:
        return {"lift_mm": 1000.0 * lift_m(ctx, self.target)}

    def expert(self, ctx: TaskContext) -> Iterator[EnvAction]:
        yield from grasp_from_above(ctx, self.grasp_point(ctx), self.grasp_heading(ctx), self.symmetry_deg)
        yield lift()
