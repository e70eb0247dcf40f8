"""grasp_single_cube: pick up a single cube (the seed's table 22)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from actloop.protocol.decisions import EnvAction, MoveWorld, SetGripper, Translation
from actloop.sim.assets.blocks import cube
from actloop.sim.scene import TABLE_TOP_Z
from actloop.vabench.expert import align_closing_axis, move_gc_to
from actloop.vabench.predicates import gc_near, grasped, gripper_closed, lift_m
from actloop.vabench.task import LIFT_THRESHOLD_M, Task, TaskContext, register_task

CUBE_HALF = 0.022
NEAR_XY_M = 0.02
NEAR_Z_M = 0.025


@register_task
class GraspSingleCube(Task):
    """Grasp the cube on the table and lift it.

    Instruction:
        Pick up the red cube from the table and lift it.
    Randomization:
        Cube centre x in [0.18, 0.26] m, y in [-0.16, -0.06] m, yaw in [-45°, 45°]; 44 mm red cube.
    Success conditions:
        ``lifted_gt_50mm``: the cube centre is more than 50 mm above its initial height;
        ``right_gripper_closed``: the right gripper is commanded closed.
    Checkpoints:
        ``approached`` (GC within 20 mm of the cube centre in x/y and 25 mm in z), ``grasped`` (gripper
        closed with both finger pads touching the cube), ``lifted`` (success reached).
    """

    name = "grasp_single_cube"
    instruction = "Pick up the red cube from the table and lift it."
    budget = 50
    objects_of_interest = ("cube",)

    def sample_layout(self, rng: np.random.Generator) -> dict[str, Any]:
        return {
            "x": float(rng.uniform(0.18, 0.26)),
            "y": float(rng.uniform(-0.16, -0.06)),
            "yaw": float(rng.uniform(-np.pi / 4, np.pi / 4)),
        }

    def objects(self) -> tuple[str, ...]:
        pos = (self.layout["x"], self.layout["y"], TABLE_TOP_Z + CUBE_HALF)
        return (cube("cube", pos, self.layout["yaw"], half_size=CUBE_HALF, color="red"),)

    def conditions(self, ctx: TaskContext) -> dict[str, bool]:
        return {
            "lifted_gt_50mm": lift_m(ctx, "cube") > LIFT_THRESHOLD_M,
            "right_gripper_closed": gripper_closed(ctx, "right"),
        }

    def checkpoints(self, ctx: TaskContext) -> dict[str, bool]:
        return {
            "approached": gc_near(ctx, "right", ctx.world.body_position("cube"), NEAR_XY_M, NEAR_Z_M),
            "grasped": grasped(ctx, "right", "cube"),
            "lifted": all(self.conditions(ctx).values()),
        }

    def metrics(self, ctx: TaskContext) -> dict[str, float]:
        return {"lift_mm": 1000.0 * lift_m(ctx, "cube")}

    def expert(self, ctx: TaskContext) -> Iterator[EnvAction]:
        cube_pos = ctx.world.body_position("cube")
        yaw = float(np.arctan2(ctx.world.body_rotation("cube")[1, 0], ctx.world.body_rotation("cube")[0, 0]))
        yield from align_closing_axis(ctx, "right", yaw, symmetry_deg=90.0)
        hover = np.array([cube_pos[0], cube_pos[1], cube_pos[2] + 0.08])
        yield from move_gc_to(ctx, "right", hover, order="zxy")
        yield from move_gc_to(ctx, "right", cube_pos, order="z")
        yield SetGripper("close", reason="expert: grasp")
        yield MoveWorld(Translation("z", "+", 80.0), reason="expert: lift")
