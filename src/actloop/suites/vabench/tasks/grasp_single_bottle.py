"""grasp_single_bottle: pick up a bottle lying on its side (the seed's table 22)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from actloop.sim.assets.bottle import WATER_BOTTLE, BottleModel, bottle
from actloop.sim.assets.common import axis_quat
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.predicates import site_position
from actloop.suites.vabench.task import TaskContext, register_task
from actloop.suites.vabench.tasks._grasping import LiftTask, long_axis_yaw


@register_task
class GraspSingleBottle(LiftTask):
    """Grasp the bottle lying on the table and lift it.

    Instruction:
        Pick up the bottle lying on the table and lift it.
    Randomization:
        Bottle centre x in [0.20, 0.28] m, y in [-0.16, -0.04] m; yaw of its long axis in
        [-22.5°, 22.5°] (along world x at 0°, cap towards +x). The base preset is the tall cyan water
        bottle with a red cap (``water_bottle``, 56 mm across); ``soda_bottle`` is kept for held-out
        variants.
    Success conditions (``_grasping.LiftTask``; the target is the bottle):
        Hardened: ``lifted_gt_50mm``, ``held_in_right_gripper`` (both pads on it),
        ``supported_by_gripper_only``, ``confirmed_after_settle`` (still held after 3 s).
        Paper (table 22): ``lifted_gt_50mm``, ``right_gripper_closed``.
    Checkpoints:
        ``approached`` (GC within 20 mm in x/y and 25 mm in z of the middle of the bottle's body),
        ``grasped`` (gripper closed with both finger pads touching the bottle), ``lifted`` (the hardened
        state conditions hold).
    """

    name = "grasp_single_bottle"
    instruction = "Pick up the bottle lying on the table and lift it."
    budget = 50
    objects_of_interest = ("bottle",)
    target = "bottle"
    model: ClassVar[BottleModel] = WATER_BOTTLE

    def sample_layout(self, rng: np.random.Generator) -> dict[str, Any]:
        return {
            "x": float(rng.uniform(0.20, 0.28)),
            "y": float(rng.uniform(-0.16, -0.04)),
            "yaw": float(rng.uniform(-np.pi / 8, np.pi / 8)),
            "model_id": self.model.model_id,
        }

    def objects(self) -> tuple[str, ...]:
        pos = (self.layout["x"], self.layout["y"], TABLE_TOP_Z + self.model.lying_rest_height)
        return (bottle("bottle", pos, axis_quat(self.layout["yaw"], 0.0), self.model),)

    def grasp_point(self, ctx: TaskContext) -> np.ndarray:
        return site_position(ctx, "bottle_side_grasp")

    def grasp_heading(self, ctx: TaskContext) -> float:
        return long_axis_yaw(ctx, "bottle") + np.pi / 2
