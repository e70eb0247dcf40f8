"""Shared parts of the placement families: the hardened placement predicate, and for the cube families
layout draws, checkpoints and the pick-and-place expert.

A placement moves one held object (``obj``) onto or into a goal body (``goal``). Its expected resting
pose is the goal's origin plus ``rest_height_m`` along world z; each family supplies its own horizontal
"on the goal" test (centre distance, footprint overlap or per-axis error).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from actloop.suites.vabench.expert import align_closing_axis, closing_axis_heading, move_gc_to
from actloop.suites.vabench.predicates import (
    CLEAR_OF_ROBOT,
    gc_near,
    grasped,
    gripper_closed,
    lift_m,
    touches_robot,
    touching,
)
from actloop.suites.vabench.protocol.decisions import Arm, EnvAction, MoveWorld, SetGripper, Translation
from actloop.suites.vabench.task import LIFT_THRESHOLD_M, Task, TaskContext
from actloop.suites.vabench.tasks._grasping import NEAR_XY_M, NEAR_Z_M, body_yaw

ARM: Arm = "right"
CUBE_SYMMETRY_DEG = 90.0
HOVER_M = 0.08
"""Height of the pre-grasp hover above the object's centre."""
TRANSPORT_LIFT_M = 0.09
"""How far the held object is raised above its start before it is carried to the goal."""
RELEASE_CLEARANCE_M = 0.004
"""The held object is lowered to this height above its resting pose before the gripper opens."""


def uniform(rng: np.random.Generator, low: float, high: float) -> float:
    """One uniform draw in [low, high) as a plain float (layouts stay JSON- and equality-friendly)."""
    return float(rng.uniform(low, high))


def wrap(angle: float, period: float) -> float:
    """``angle`` wrapped into [-period/2, period/2)."""
    return float((angle + period / 2) % period - period / 2)


class PlacementTask(Task):
    """A placement family: the right arm carries ``placed`` onto a goal and lets go.

    Hardened conditions: the family's literal (paper) conditions, ``object_clear_of_robot`` (``placed``
    touches no robot geom) and ``confirmed_after_settle``, whose scratch copy first puts the arm at home
    with the gripper open, so the object must stay placed, without the robot, for the 3 s window, and
    be at rest over its last 0.5 s.
    """

    placed: ClassVar[str]
    clear_arms_to_confirm = True

    def state_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        return {**self.paper_conditions(ctx), CLEAR_OF_ROBOT: not touches_robot(ctx, self.placed)}


@dataclass(frozen=True)
class Placement:
    """One object to be carried onto a goal body by the right arm."""

    obj: str
    goal: str
    rest_height_m: float

    def rest_position(self, ctx: TaskContext) -> np.ndarray:
        """Where the object's origin is when it rests on the goal as intended."""
        return ctx.world.body_position(self.goal) + np.array([0.0, 0.0, self.rest_height_m])

    def checkpoints(self, ctx: TaskContext, on_goal: bool) -> dict[str, bool]:
        """Subtask states; ``on_goal`` is the family's horizontal placement test in the current state.

        ``approached``: GC within 20 mm (x/y) and 25 mm (z) of the object; ``grasped``: gripper closed
        with both pads on it; ``lifted``: grasped at least 50 mm above its start; ``over_target``: grasped,
        horizontally on the goal and above its resting height; ``placed``: on the goal and touching it;
        ``released``: placed with the gripper open and no robot geom touching the object.
        """
        pos = ctx.world.body_position(self.obj)
        held = grasped(ctx, ARM, self.obj)
        placed = on_goal and touching(ctx, self.obj, self.goal)
        return {
            "approached": gc_near(ctx, ARM, pos, NEAR_XY_M, NEAR_Z_M),
            "grasped": held,
            "lifted": held and lift_m(ctx, self.obj) >= LIFT_THRESHOLD_M,
            "over_target": held and on_goal and bool(pos[2] > self.rest_position(ctx)[2]),
            "placed": placed,
            "released": placed and not gripper_closed(ctx, ARM) and not touches_robot(ctx, self.obj),
        }

    def expert(self, ctx: TaskContext, match_goal_yaw: bool = False) -> Iterator[EnvAction]:
        """Grasp the object, lift it, carry it over the goal, lower it to just above rest and let go.

        With ``match_goal_yaw`` the held cube is turned about the approach axis until its yaw equals the
        goal's modulo 90° (stacking square on square).
        """
        yield from self._grasp(ctx)
        yield MoveWorld(Translation("z", "+", 1000 * TRANSPORT_LIFT_M), arm=ARM, reason="expert: lift")
        if match_goal_yaw:
            turn = wrap(body_yaw(ctx, self.goal) - body_yaw(ctx, self.obj), math.radians(CUBE_SYMMETRY_DEG))
            heading = closing_axis_heading(ctx, ARM) + turn
            yield from align_closing_axis(ctx, ARM, heading, CUBE_SYMMETRY_DEG)
        for _ in range(2):  # the second pass corrects any drift of the object in the grasp
            yield from move_gc_to(ctx, ARM, self._gc_for(ctx, self.rest_position(ctx), "xy"), order="xy")
        release = self.rest_position(ctx) + np.array([0.0, 0.0, RELEASE_CLEARANCE_M])
        yield from move_gc_to(ctx, ARM, self._gc_for(ctx, release, "z"), order="z")
        yield SetGripper("open", arm=ARM, reason="expert: release")

    def _grasp(self, ctx: TaskContext) -> Iterator[EnvAction]:
        pos = ctx.world.body_position(self.obj)
        yield from align_closing_axis(ctx, ARM, body_yaw(ctx, self.obj), CUBE_SYMMETRY_DEG)
        yield from move_gc_to(ctx, ARM, pos + np.array([0.0, 0.0, HOVER_M]), order="zxy")
        yield from move_gc_to(ctx, ARM, pos, order="z")
        yield SetGripper("close", arm=ARM, reason="expert: grasp")

    def _gc_for(self, ctx: TaskContext, obj_target: np.ndarray, axes: str) -> np.ndarray:
        """The GC position that puts the held object's origin at ``obj_target`` along ``axes``."""
        gc = ctx.arms[ARM].gc(ctx.world.data)
        offset = obj_target - ctx.world.body_position(self.obj)
        mask = np.array([axis in axes for axis in "xyz"], dtype=float)
        return gc + mask * offset


def mirrored_range(span: tuple[float, float], about_x: float) -> tuple[float, float]:
    """An x range mirrored left-right about the line x = ``about_x`` (held-out layouts)."""
    return (round(2 * about_x - span[1], 6), round(2 * about_x - span[0], 6))
