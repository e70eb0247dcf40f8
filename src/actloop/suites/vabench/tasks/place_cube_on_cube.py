"""place_cube_on_cube: stack the red cube on a larger base cube (the seed's table 23)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from itertools import product
from typing import Any, ClassVar

import numpy as np

from actloop.sim import fixedmath as fm
from actloop.sim.assets.blocks import cube
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.predicates import (
    displacement_m,
    gripper_closed,
    lift_m,
    previously_lifted,
    touching,
)
from actloop.suites.vabench.protocol.decisions import EnvAction
from actloop.suites.vabench.task import TaskContext, register_task
from actloop.suites.vabench.tasks._grasping import body_yaw
from actloop.suites.vabench.tasks._placing import ARM, Placement, PlacementTask, uniform
from actloop.suites.vabench.tasks.grasp_single_cube import CUBE_HALF, red_cube

BASE_HALF = 0.024
"""48 mm: larger than the red cube, yet a stacked red cube sits below the 50 mm lift threshold, so
``previously_lifted_50mm`` is never implied by the final state alone."""
BASE_MASS = 0.12
MIN_OVERLAP_M = 0.002
HEIGHT_TOLERANCE_M = 0.012
BASE_DISPLACEMENT_M = 0.012
PLACEMENT = Placement("cube", "base", rest_height_m=BASE_HALF + CUBE_HALF)
"""The base family's placement (``PlaceCubeOnCube.placement`` with the 48 mm base)."""
_CORNERS = np.array(list(product((-1.0, 1.0), repeat=3)))


def top_surface_overlap_m(
    ctx: TaskContext, base_half: float = BASE_HALF, cube_half: float = CUBE_HALF
) -> tuple[float, float]:
    """Overlap of the red cube's footprint with the base's top face along the base's two horizontal axes.

    The footprint is the red cube's vertical projection onto the table plane (its bottom face when it
    sits upright); both it and the base's top face are projected onto the base's horizontal axes, and
    each result is the length of the intersection of the two intervals (negative: a gap). The half
    sizes default to the base family's cubes.
    """
    yaw = body_yaw(ctx, "base")
    c, s = math.cos(yaw), math.sin(yaw)
    axes = np.array([[c, s, 0.0], [-s, c, 0.0]])
    corners = ctx.world.body_position("cube") + fm.matmul_t(
        cube_half * _CORNERS, ctx.world.body_rotation("cube")
    )
    local = fm.matmul_t(corners - ctx.world.body_position("base"), axes)
    high = np.minimum(local.max(axis=0), base_half)
    low = np.maximum(local.min(axis=0), -base_half)
    return float(high[0] - low[0]), float(high[1] - low[1])


def height_error_m(ctx: TaskContext, placement: Placement = PLACEMENT) -> float:
    """Red cube centre height minus the base's top surface plus the red cube's half size (``placement``'s
    rest height above the base centre; the base family's by default)."""
    return float(ctx.world.body_position("cube")[2] - placement.rest_position(ctx)[2])


def on_base(ctx: TaskContext, base_half: float = BASE_HALF) -> bool:
    return min(top_surface_overlap_m(ctx, base_half)) >= MIN_OVERLAP_M


@register_task
class PlaceCubeOnCube(PlacementTask):
    """Pick up the red cube and stack it on the green base cube.

    Instruction:
        Pick up the red cube and stack it on top of the green cube.
    Randomization:
        Red cube centre x in [0.20, 0.26] m, y in [-0.14, -0.06] m; base cube centre x in [0.10, 0.14] m,
        y in [0, 0.04] m; both yaws in [-45°, 45°]. Red cube 44 mm, 0.08 kg; green base cube 48 mm,
        0.12 kg.
    Success conditions:
        Hardened: all of the paper's conditions below, ``object_clear_of_robot`` (the red cube touches no
        robot geom) and ``confirmed_after_settle`` (``_placing.PlacementTask``: in a scratch copy of the
        world the arm is put at home with the gripper open and the world simulated for 3 s; every
        hardened condition must still hold, with both cubes at rest over the last 0.5 s).
        Paper (table 23): ``previously_lifted_50mm``: the red cube has been at least 50 mm above its
        start; ``top_surface_overlap_ge_2mm``: the red cube's footprint and the base's top face overlap
        by at least 2 mm along each of the base's horizontal axes (see :func:`top_surface_overlap_m`);
        ``height_error_le_12mm``: the red centre is within 12 mm of the base top plus the red half size;
        ``base_displacement_le_12mm``: the base moved at most 12 mm; ``contact``: the red cube touches
        the base; ``gripper_open``: the right gripper is commanded open.
    Checkpoints:
        ``approached``, ``grasped``, ``lifted``, ``over_target`` (red cube held above the base with the
        required overlap), ``placed`` (overlapping and touching the base), ``released`` (placed with the
        gripper open and no robot geom on the cube); see ``_placing.Placement.checkpoints``.
    """

    name = "place_cube_on_cube"
    instruction = "Pick up the red cube and stack it on top of the green cube."
    budget = 200
    objects_of_interest = ("cube", "base")
    placed = "cube"
    base_half: ClassVar[float] = BASE_HALF
    """Half the green base cube's edge length (held-out variants change it)."""
    base_mass: ClassVar[float] = BASE_MASS

    @property
    def placement(self) -> Placement:
        """The red cube resting on the base: its centre the base's and the red cube's half sizes above
        the base centre (the height-error reference and the expert's release height)."""
        return Placement("cube", "base", rest_height_m=self.base_half + CUBE_HALF)

    def sample_layout(self, rng: np.random.Generator) -> dict[str, Any]:
        return {
            "cube_x": uniform(rng, 0.20, 0.26),
            "cube_y": uniform(rng, -0.14, -0.06),
            "cube_yaw": uniform(rng, -np.pi / 4, np.pi / 4),
            "base_x": uniform(rng, 0.10, 0.14),
            "base_y": uniform(rng, 0.0, 0.04),
            "base_yaw": uniform(rng, -np.pi / 4, np.pi / 4),
        }

    def objects(self) -> tuple[str, ...]:
        layout = self.layout
        return (
            cube(
                "base",
                (layout["base_x"], layout["base_y"], TABLE_TOP_Z + self.base_half),
                layout["base_yaw"],
                half_size=self.base_half,
                color="green",
                mass=self.base_mass,
            ),
            red_cube(layout["cube_x"], layout["cube_y"], layout["cube_yaw"]),
        )

    def paper_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        return {
            "previously_lifted_50mm": previously_lifted(ctx, "cube"),
            "top_surface_overlap_ge_2mm": on_base(ctx, self.base_half),
            "height_error_le_12mm": abs(height_error_m(ctx, self.placement)) <= HEIGHT_TOLERANCE_M,
            "base_displacement_le_12mm": displacement_m(ctx, "base") <= BASE_DISPLACEMENT_M,
            "contact": touching(ctx, "cube", "base"),
            "gripper_open": not gripper_closed(ctx, ARM),
        }

    def checkpoints(self, ctx: TaskContext) -> dict[str, bool]:
        return self.placement.checkpoints(ctx, on_goal=on_base(ctx, self.base_half))

    def metrics(self, ctx: TaskContext) -> dict[str, float]:
        overlap_x, overlap_y = top_surface_overlap_m(ctx, self.base_half)
        return {
            "lift_mm": 1000 * lift_m(ctx, "cube"),
            "overlap_x_mm": 1000 * overlap_x,
            "overlap_y_mm": 1000 * overlap_y,
            "height_error_mm": 1000 * height_error_m(ctx, self.placement),
            "base_displacement_mm": 1000 * displacement_m(ctx, "base"),
        }

    def expert(self, ctx: TaskContext) -> Iterator[EnvAction]:
        yield from self.placement.expert(ctx, match_goal_yaw=True)
