"""grasp_single_pen: pick up a pen lying flat on the table (the seed's table 22)."""

from __future__ import annotations

from typing import Any

import numpy as np

from actloop.sim.assets.common import axis_quat
from actloop.sim.assets.pen import PEN_APOTHEM, pen
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.task import TaskContext, register_task
from actloop.suites.vabench.tasks._grasping import LiftTask, long_axis_yaw

MIN_GC_Z = TABLE_TOP_Z + 0.014
"""Lowest GC height of the grasp: the fingertips (12 mm below GC) stay 2 mm above the table, and the
24 mm pads still span the pen's widest part (6 mm above the table)."""


@register_task
class GraspSinglePen(LiftTask):
    """Grasp the pen lying on the table and lift it.

    Instruction:
        Pick up the blue pen lying on the table and lift it.
    Randomization:
        Pen centre x in [0.18, 0.26] m, y in [-0.20, -0.10] m; yaw of its long axis in [-30°, 30°]
        (along world x at 0°, black cap towards +x). The pen is a 140 mm hexagonal prism, 12 mm across
        its flats, lying on a flat.
    Success conditions (``_grasping.LiftTask``; the target is the pen: a pen propped on the table, or
    standing on its end beside the closed gripper, fails):
        Hardened: ``lifted_gt_50mm``, ``held_in_right_gripper`` (both pads on it),
        ``supported_by_gripper_only``, ``confirmed_after_settle`` (still held after 3 s).
        Paper (table 22): ``lifted_gt_50mm``, ``right_gripper_closed``.
    Checkpoints:
        ``approached`` (GC within 20 mm in x/y and 25 mm in z of the pen's centre, raised to the lowest
        safe GC height), ``grasped`` (gripper closed with both finger pads touching the pen),
        ``lifted`` (the hardened state conditions hold).
    """

    name = "grasp_single_pen"
    instruction = "Pick up the blue pen lying on the table and lift it."
    budget = 50
    objects_of_interest = ("pen",)
    target = "pen"

    def sample_layout(self, rng: np.random.Generator) -> dict[str, Any]:
        return {
            "x": float(rng.uniform(0.18, 0.26)),
            "y": float(rng.uniform(-0.20, -0.10)),
            "yaw": float(rng.uniform(-np.pi / 6, np.pi / 6)),
        }

    def objects(self) -> tuple[str, ...]:
        pos = (self.layout["x"], self.layout["y"], TABLE_TOP_Z + PEN_APOTHEM)
        return (pen("pen", pos, axis_quat(self.layout["yaw"], 0.0)),)

    def grasp_point(self, ctx: TaskContext) -> np.ndarray:
        centre = ctx.world.body_position("pen")
        return np.array([centre[0], centre[1], max(centre[2], MIN_GC_Z)])

    def grasp_heading(self, ctx: TaskContext) -> float:
        return long_axis_yaw(ctx, "pen") + np.pi / 2
