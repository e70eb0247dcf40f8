"""Building blocks for privileged expert plans, expressed as ordinary agent decisions.

Experts read privileged state (object poses) but act only through the decisions a model could send,
so a successful expert run certifies that a seed is solvable through the agent's own interface.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from actloop.suites.vabench.protocol.decisions import (
    MAX_ANGLE_DEG,
    MAX_DISTANCE_MM,
    MIN_DISTANCE_MM,
    Arm,
    MoveWorld,
    RotateLocal,
    Translation,
)
from actloop.suites.vabench.task import TaskContext, split_steps

_AXES = ("x", "y", "z")


def move_gc_to(ctx: TaskContext, arm: Arm, target: np.ndarray, order: str = "xyz") -> Iterator[MoveWorld]:
    """Translate the arm's GC to ``target`` one world axis at a time, in ``order``."""
    for axis in order:
        i = _AXES.index(axis)
        delta_mm = 1000.0 * (float(target[i]) - float(ctx.arms[arm].gc(ctx.world.data)[i]))
        if abs(delta_mm) < MIN_DISTANCE_MM:
            continue
        for chunk in split_steps(delta_mm, MAX_DISTANCE_MM):
            yield MoveWorld(
                Translation(axis, "+" if chunk > 0 else "-", round(abs(chunk), 1)),  # type: ignore[arg-type]
                arm=arm,
                reason=f"expert: move {axis}",
            )


def closing_axis_heading(ctx: TaskContext, arm: Arm) -> float:
    """Heading (rad) of the finger-closing axis ry projected on the table plane."""
    _, rot = ctx.arms[arm].control_pose(ctx.world.data)
    return math.atan2(float(rot[1, 1]), float(rot[0, 1]))


def align_closing_axis(
    ctx: TaskContext, arm: Arm, heading: float, symmetry_deg: float
) -> Iterator[RotateLocal]:
    """Turn a downward-pointing gripper about its approach axis so ry matches ``heading``.

    ``symmetry_deg`` is the object's rotational symmetry (90 for a cube, 180 for a bar), so the
    smallest equivalent turn is used. With rx pointing down, +rx turns the gripper clockwise seen
    from above.
    """
    sym = math.radians(symmetry_deg)
    delta = (heading - closing_axis_heading(ctx, arm) + sym / 2) % sym - sym / 2  # world-z turn
    angle = -math.degrees(delta)
    if abs(angle) < 1.0:
        return
    for chunk in split_steps(angle, MAX_ANGLE_DEG):
        yield RotateLocal(
            "rx", "+" if chunk > 0 else "-", round(abs(chunk), 2), arm=arm, reason="expert: align"
        )
