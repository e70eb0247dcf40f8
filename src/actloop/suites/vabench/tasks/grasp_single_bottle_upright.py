"""grasp_single_bottle_upright: pick up a standing bottle from above (the seed's table 22)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from actloop.sim.assets.bottle import WATER_BOTTLE, BottleModel
from actloop.suites.vabench.predicates import site_position
from actloop.suites.vabench.task import TaskContext, register_task
from actloop.suites.vabench.tasks._grasping import LiftTask, sample_upright_bottle, upright_bottle


@register_task
class GraspSingleBottleUpright(LiftTask):
    """Grasp the standing bottle near its top and lift it.

    Instruction:
        Pick up the upright bottle from the table and lift it.
    Randomization:
        Bottle centre x in [0.20, 0.28] m, y in [-0.16, -0.04] m; fixed upright orientation. The base
        preset is the tall cyan water bottle with a red cap (``water_bottle``, 182 mm tall);
        ``soda_bottle`` is kept for held-out variants.
    Success conditions (``_grasping.LiftTask``; the target is the bottle):
        Hardened: ``lifted_gt_50mm``, ``held_in_right_gripper`` (both pads on it),
        ``supported_by_gripper_only``, ``confirmed_after_settle`` (still held after 3 s).
        Paper (table 22): ``lifted_gt_50mm``, ``right_gripper_closed``.
    Checkpoints:
        ``approached`` (GC within 20 mm in x/y and 25 mm in z of the top grasp point, on the axis 8 mm
        below the top of the body), ``grasped`` (gripper closed with both finger pads touching the
        bottle), ``lifted`` (the hardened state conditions hold).
    """

    name = "grasp_single_bottle_upright"
    instruction = "Pick up the upright bottle from the table and lift it."
    budget = 50
    objects_of_interest = ("bottle",)
    target = "bottle"
    model: ClassVar[BottleModel] = WATER_BOTTLE

    def sample_layout(self, rng: np.random.Generator) -> dict[str, Any]:
        return sample_upright_bottle(rng, self.model)

    def objects(self) -> tuple[str, ...]:
        return (upright_bottle(self.layout, self.model),)

    def grasp_point(self, ctx: TaskContext) -> np.ndarray:
        return site_position(ctx, "bottle_top_grasp")

    def grasp_heading(self, ctx: TaskContext) -> None:
        return None
