"""place_single_bottle_upright: move a standing bottle onto a target pad, upright (the seed's table 23)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from actloop.sim.assets.blocks import target_pad
from actloop.sim.assets.bottle import WATER_BOTTLE, BottleModel
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.expert import move_gc_to
from actloop.suites.vabench.predicates import (
    TargetPlacement,
    gc_near,
    grasped,
    gripper_closed,
    previously_lifted,
    site_position,
    tilt_deg,
    touches_robot,
    touching,
)
from actloop.suites.vabench.protocol.decisions import EnvAction, SetGripper
from actloop.suites.vabench.task import TaskContext, register_task
from actloop.suites.vabench.tasks._grasping import (
    NEAR_XY_M,
    NEAR_Z_M,
    UPRIGHT_BOTTLE_X_RANGE,
    UPRIGHT_BOTTLE_Y_RANGE,
    grasp_from_above,
    lift,
    sample_upright_bottle,
    upright_bottle,
)
from actloop.suites.vabench.tasks._placing import PlacementTask

XY_TOLERANCE_M = 0.04
UPRIGHT_TILT_DEG = 10.0
"""Hardened: the bottle's base-to-cap axis within this angle of straight up. A bottle set down standing
on the pad leans at most 0.05° (the expert's and the baseline's successes on the 40 verified seeds of this
family and its held-out variant); lying it is at 90°, on its cap at 180°."""
UPRIGHT = "standing_upright_cap_up"
RELEASE_GAP_M = 0.003
"""The expert lowers the bottle's base to this height above the pad before opening."""


@register_task
class PlaceSingleBottleUpright(PlacementTask):
    """Pick up the standing bottle and set it down upright on the blue target pad.

    Instruction:
        Pick up the upright bottle and place it upright on the blue pad.
    Randomization:
        Bottle as in grasp_single_bottle_upright: centre x in [0.20, 0.28] m, y in [-0.16, -0.04] m,
        fixed upright orientation (preset ``water_bottle``). Target pad (100 mm square, blue) centre
        x in [0.03, 0.09] m, y in [0.07, 0.13] m.
    Success conditions:
        Hardened: all of the paper's conditions below, ``object_clear_of_robot`` (the bottle touches no
        robot geom), ``standing_upright_cap_up`` (the bottle's axis from base to cap within 10° of
        straight up: the paper's height term cannot tell a bottle standing on its cap, whose centre is
        as high, from one on its base) and ``confirmed_after_settle`` (``_placing.PlacementTask``: in a
        scratch copy of the world the arm is put at home with the gripper open and the world simulated
        for 3 s; every hardened condition must still hold, with bottle and pad at rest over the last
        0.5 s).
        Paper (table 23, ``predicates.TargetPlacement``, x/y tolerance 40 mm):
        ``previously_lifted_50mm``: the bottle has been at least 50 mm above its start;
        ``x_error_le_40mm`` / ``y_error_le_40mm``: bottle centre within 40 mm of the pad centre on each
        axis; ``height_error_le_35mm``: bottle centre within 35 mm of its upright resting height on the
        pad (a bottle lying on the pad fails this); ``target_displacement_le_2mm``: the pad moved at
        most 2 mm; ``contact``: bottle and pad touch; ``gripper_open``: the right gripper is open.
    Checkpoints:
        ``approached`` (GC within 20 mm in x/y and 25 mm in z of the top grasp point), ``grasped``
        (gripper closed with both pads on the bottle), ``lifted`` (previously lifted 50 mm),
        ``over_target`` (bottle held with its x/y errors within 40 mm), ``placed`` (bottle touching the
        pad), ``released`` (bottle touching the pad with the gripper open and no robot geom on it).
    """

    name = "place_single_bottle_upright"
    instruction = "Pick up the upright bottle and place it upright on the blue pad."
    budget = 100
    objects_of_interest = ("bottle", "target")
    placed = "bottle"
    model: ClassVar[BottleModel] = WATER_BOTTLE
    bottle_x_range: ClassVar[tuple[float, float]] = UPRIGHT_BOTTLE_X_RANGE
    """Range of the bottle centre's x, metres (the layout's ranges; held-out variants move them)."""
    bottle_y_range: ClassVar[tuple[float, float]] = UPRIGHT_BOTTLE_Y_RANGE
    target_x_range: ClassVar[tuple[float, float]] = (0.03, 0.09)
    target_y_range: ClassVar[tuple[float, float]] = (0.07, 0.13)

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.placement = TargetPlacement(
            "bottle", "target", rest_height_m=self.model.upright_rest_height, xy_tolerance_m=XY_TOLERANCE_M
        )

    def sample_layout(self, rng: np.random.Generator) -> dict[str, Any]:
        return {
            **sample_upright_bottle(rng, self.model, self.bottle_x_range, self.bottle_y_range),
            "target_x": float(rng.uniform(*self.target_x_range)),
            "target_y": float(rng.uniform(*self.target_y_range)),
        }

    def objects(self) -> tuple[str, ...]:
        pad_xy = (self.layout["target_x"], self.layout["target_y"])
        return (upright_bottle(self.layout, self.model), target_pad("target", pad_xy, TABLE_TOP_Z))

    def paper_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        return self.placement.conditions(ctx)

    def state_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        return {**super().state_conditions(ctx), UPRIGHT: tilt_deg(ctx, "bottle") <= UPRIGHT_TILT_DEG}

    def checkpoints(self, ctx: TaskContext) -> dict[str, bool]:
        ex, ey, _ = self.placement.errors(ctx)
        on_target = touching(ctx, "bottle", "target")
        return {
            "approached": gc_near(ctx, "right", site_position(ctx, "bottle_top_grasp"), NEAR_XY_M, NEAR_Z_M),
            "grasped": grasped(ctx, "right", "bottle"),
            "lifted": previously_lifted(ctx, "bottle"),
            "over_target": grasped(ctx, "right", "bottle")
            and max(abs(ex), abs(ey)) <= self.placement.xy_tolerance_m,
            "placed": on_target,
            "released": on_target and not gripper_closed(ctx, "right") and not touches_robot(ctx, "bottle"),
        }

    def metrics(self, ctx: TaskContext) -> dict[str, float]:
        return {**self.placement.metrics(ctx), "tilt_deg": tilt_deg(ctx, "bottle")}

    def expert(self, ctx: TaskContext) -> Iterator[EnvAction]:
        yield from grasp_from_above(ctx, site_position(ctx, "bottle_top_grasp"), heading=None)
        yield lift()
        ex, ey, _ = self.placement.errors(ctx)
        yield from move_gc_to(ctx, "right", self._gc(ctx) - np.array([ex, ey, 0.0]), order="xy")
        _, _, ez = self.placement.errors(ctx)  # how far the base hangs above the pad
        yield from move_gc_to(
            ctx, "right", self._gc(ctx) - np.array([0.0, 0.0, ez - RELEASE_GAP_M]), order="z"
        )
        yield SetGripper("open", reason="expert: release")

    @staticmethod
    def _gc(ctx: TaskContext) -> np.ndarray:
        return ctx.arms["right"].gc(ctx.world.data)
