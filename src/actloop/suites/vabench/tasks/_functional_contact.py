"""Helpers shared by the functional-contact families (click_bell_right, beat_block_hammer_right)."""

from __future__ import annotations

import numpy as np

from actloop.suites.vabench.predicates import body_geoms, contacts
from actloop.suites.vabench.task import TaskContext


def arm_contact_points(ctx: TaskContext, arm: str, body: str) -> list[np.ndarray]:
    """World positions of the active contacts between any geom of the arm and any geom of ``body``."""
    targets = body_geoms(ctx, body)
    return [
        ctx.world.data.contact[i].pos.copy()
        for i, _, other in contacts(ctx, ctx.arms[arm].geoms)
        if other in targets
    ]


def pad_reach(ctx: TaskContext, arm: str) -> float:
    """How far the finger pads reach beyond GC along the approach axis (their half height), metres."""
    return float(ctx.world.model.geom_size[ctx.arms[arm].pad_geoms[0]][2])
