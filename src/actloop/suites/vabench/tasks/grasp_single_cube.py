"""grasp_single_cube: pick up a single cube (the seed's table 22)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from actloop.sim.assets.blocks import cube
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.task import TaskContext, register_task
from actloop.suites.vabench.tasks._grasping import LiftTask, body_yaw

CUBE_HALF = 0.022
CUBE_MASS = 0.08


def red_cube(x: float, y: float, yaw: float, half_size: float = CUBE_HALF, mass: float = CUBE_MASS) -> str:
    """The red cube ``cube`` standing on the table at ``(x, y)`` with ``yaw``: by default the cube
    families' 44 mm, 0.08 kg cube; held-out variants pass another ``half_size`` and ``mass``."""
    return cube("cube", (x, y, TABLE_TOP_Z + half_size), yaw, half_size=half_size, color="red", mass=mass)


@register_task
class GraspSingleCube(LiftTask):
    """Grasp the cube on the table and lift it.

    Instruction:
        Pick up the red cube from the table and lift it.
    Randomization:
        Cube centre x in [0.18, 0.26] m, y in [-0.16, -0.06] m, yaw in [-45°, 45°]; 44 mm red cube.
    Success conditions (``_grasping.LiftTask``; the target is the cube):
        Hardened: ``lifted_gt_50mm``, ``held_in_right_gripper`` (both pads on it),
        ``supported_by_gripper_only``, ``confirmed_after_settle`` (still held after 3 s).
        Paper (table 22): ``lifted_gt_50mm``, ``right_gripper_closed``.
    Checkpoints:
        ``approached`` (GC within 20 mm of the cube centre in x/y and 25 mm in z), ``grasped`` (gripper
        closed with both finger pads touching the cube), ``lifted`` (the hardened state conditions
        hold).
    """

    name = "grasp_single_cube"
    instruction = "Pick up the red cube from the table and lift it."
    budget = 50
    objects_of_interest = ("cube",)
    target = "cube"
    symmetry_deg = 90.0
    cube_half: ClassVar[float] = CUBE_HALF
    """Half the cube's edge length (held-out variants change it)."""
    cube_mass: ClassVar[float] = CUBE_MASS

    def sample_layout(self, rng: np.random.Generator) -> dict[str, Any]:
        return {
            "x": float(rng.uniform(0.18, 0.26)),
            "y": float(rng.uniform(-0.16, -0.06)),
            "yaw": float(rng.uniform(-np.pi / 4, np.pi / 4)),
        }

    def objects(self) -> tuple[str, ...]:
        layout = self.layout
        return (red_cube(layout["x"], layout["y"], layout["yaw"], self.cube_half, self.cube_mass),)

    def grasp_point(self, ctx: TaskContext) -> np.ndarray:
        return ctx.world.body_position("cube")

    def grasp_heading(self, ctx: TaskContext) -> float:
        return body_yaw(ctx, "cube")
