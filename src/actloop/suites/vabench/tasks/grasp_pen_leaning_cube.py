"""grasp_pen_leaning_cube: pick up a pen leaning against a cube (the seed's table 22)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from actloop.sim.assets.blocks import cube
from actloop.sim.assets.common import axis_quat
from actloop.sim.assets.pen import PEN_APOTHEM, PEN_LENGTH, pen
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.task import TaskContext, register_task
from actloop.suites.vabench.tasks._grasping import LiftTask, long_axis_yaw

LEAN_RAD = math.radians(30.0)
CUBE_HALF = 0.025


def leaning_pen_offset(lean_rad: float = LEAN_RAD, cube_half: float = CUBE_HALF) -> tuple[float, float]:
    """Pen centre relative to the cube's bottom centre in the group frame: (x, height above the table).

    The pen's axis rises along +x at ``lean_rad``; its underside flat touches the table at the pen's
    lower end and the cube's top edge facing the pen (x = -cube_half, z = 2·cube_half).
    """
    s, c = math.sin(lean_rad), math.cos(lean_rad)
    z = PEN_LENGTH / 2 * s + PEN_APOTHEM * c  # the lower end's bottom edge is on the table
    x = -cube_half - (PEN_APOTHEM + c * (2 * cube_half - z)) / s  # the underside passes the edge
    return float(x), float(z)


@register_task
class GraspPenLeaningCube(LiftTask):
    """Grasp the pen that leans against a cube and lift it.

    Instruction:
        Pick up the blue pen leaning against the yellow cube and lift it.
    Randomization:
        Group (the cube's centre) x in [0.16, 0.22] m, y in [-0.24, -0.20] m; group yaw in [-15°, 15°].
        The 50 mm yellow cube stands at the group origin; the pen (140 mm hexagonal prism) leans at a
        fixed 30° above the table, its tip on the table on the group's -x side and its capped upper part
        on the cube's top edge; its pose is computed analytically so it rests at once.
    Success conditions (``_grasping.LiftTask``; the target is the pen, which fails while it still
    leans on the cube):
        Hardened: ``lifted_gt_50mm``, ``held_in_right_gripper`` (both pads on it),
        ``supported_by_gripper_only``, ``confirmed_after_settle`` (still held after 3 s).
        Paper (table 22): ``lifted_gt_50mm``, ``right_gripper_closed``.
    Checkpoints:
        ``approached`` (GC within 20 mm in x/y and 25 mm in z of the pen's centre), ``grasped``
        (gripper closed with both finger pads touching the pen), ``lifted`` (the hardened state
        conditions hold).
    """

    name = "grasp_pen_leaning_cube"
    instruction = "Pick up the blue pen leaning against the yellow cube and lift it."
    budget = 50
    objects_of_interest = ("pen", "cube")
    target = "pen"

    def sample_layout(self, rng: np.random.Generator) -> dict[str, Any]:
        return {
            "x": float(rng.uniform(0.16, 0.22)),
            "y": float(rng.uniform(-0.24, -0.20)),
            "yaw": float(rng.uniform(-np.pi / 12, np.pi / 12)),
        }

    def objects(self) -> tuple[str, ...]:
        x, y, yaw = self.layout["x"], self.layout["y"], self.layout["yaw"]
        dx, z = leaning_pen_offset()
        pen_pos = (x + dx * math.cos(yaw), y + dx * math.sin(yaw), TABLE_TOP_Z + z)
        return (
            cube("cube", (x, y, TABLE_TOP_Z + CUBE_HALF), yaw, half_size=CUBE_HALF, color="yellow"),
            pen("pen", pen_pos, axis_quat(yaw, LEAN_RAD)),
        )

    def grasp_point(self, ctx: TaskContext) -> np.ndarray:
        return ctx.world.body_position("pen")

    def grasp_heading(self, ctx: TaskContext) -> float:
        return long_axis_yaw(ctx, "pen") + np.pi / 2
