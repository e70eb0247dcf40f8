"""Helpers shared by the functional-contact families (click_bell_right, beat_block_hammer_right)."""

from __future__ import annotations

import numpy as np

from actloop.vabench.predicates import body_geoms
from actloop.vabench.task import TaskContext


def arm_contact_points(ctx: TaskContext, arm: str, body: str) -> list[np.ndarray]:
    """World positions of the active contacts between any geom of the arm and any geom of ``body``."""
    arm_geoms, body_ = ctx.arms[arm].geoms, body_geoms(ctx, body)
    points = []
    for i in range(ctx.world.data.ncon):
        c = ctx.world.data.contact[i]
        g1, g2 = int(c.geom1), int(c.geom2)
        if (g1 in arm_geoms and g2 in body_) or (g2 in arm_geoms and g1 in body_):
            points.append(c.pos.copy())
    return points


def pad_reach(ctx: TaskContext, arm: str) -> float:
    """How far the finger pads reach beyond GC along the approach axis (their half height), metres."""
    return float(ctx.world.model.geom_size[ctx.arms[arm].pad_geoms[0]][2])
