"""Generic pieces for dual-arm families: which arm works on which side, contact tests per arm, and an
expert move that carries both grippers to their own targets in synchronized translations.

Nothing here knows a particular family; the single-arm helpers stay in ``predicates`` and ``expert``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from actloop.suites.vabench.predicates import body_geoms, contacts, gripper_closed, hand_geoms
from actloop.suites.vabench.protocol.decisions import (
    MAX_DISTANCE_MM,
    MIN_DISTANCE_MM,
    Arm,
    DualMoveWorld,
    EnvAction,
    MoveWorld,
    Translation,
)
from actloop.suites.vabench.task import TaskContext, split_steps

ARMS: tuple[Arm, Arm] = ("left", "right")
_AXES = ("x", "y", "z")


def arm_on_side(x: float) -> Arm:
    """The arm whose side of the table (the left arm works at x < 0) holds world x coordinate ``x``."""
    return "left" if x < 0 else "right"


def geom_ids(ctx: TaskContext, names: tuple[str, ...]) -> frozenset[int]:
    """Ids of the named geoms."""
    return frozenset(ctx.world.model.geom(n).id for n in names)


def pads_on(ctx: TaskContext, arm: str, geoms: frozenset[int]) -> bool:
    """Both finger pads of ``arm`` touch one of ``geoms`` (a part of an object, e.g. a handle)."""
    return all(ctx.world.in_contact(frozenset({p}), geoms) for p in ctx.arms[arm].pad_geoms)


def holds_part(ctx: TaskContext, arm: str, geoms: frozenset[int]) -> bool:
    """``arm``'s gripper is commanded closed with both pads on ``geoms``."""
    return gripper_closed(ctx, arm) and pads_on(ctx, arm, geoms)


def all_grippers_open(ctx: TaskContext) -> bool:
    """Every exposed gripper is commanded open."""
    return all(not gripper_closed(ctx, arm) for arm in ctx.arms)


def supported_by_hands_only(ctx: TaskContext, body: str, arms: tuple[str, ...]) -> bool:
    """The body touches the grippers of ``arms`` and nothing else (no table, no arm link, no object)."""
    hands = frozenset().union(*(hand_geoms(ctx, arm) for arm in arms))
    others = [other for _, _, other in contacts(ctx, body_geoms(ctx, body))]
    return bool(others) and all(g in hands for g in others)


def move_gcs_to(
    ctx: TaskContext, targets: Mapping[Arm, np.ndarray], order: str = "xyz"
) -> Iterator[EnvAction]:
    """Translate each named arm's GC to its target one world axis at a time, in ``order``.

    Along each axis, arms that both have to move travel together in synchronized dual translations
    (``dual_gripper.move_world``) in equal chunks of at most 100 mm; otherwise each moving arm goes by
    itself. Offsets are read afresh for every axis.
    """
    for axis in order:
        i = _AXES.index(axis)
        deltas = {
            arm: 1000.0 * (float(target[i]) - float(ctx.arms[arm].gc(ctx.world.data)[i]))
            for arm, target in targets.items()
        }
        moving = {arm: d for arm, d in deltas.items() if abs(d) >= MIN_DISTANCE_MM}
        chunks = max((len(split_steps(d, MAX_DISTANCE_MM)) for d in moving.values()), default=0)
        if len(moving) == 2 and all(abs(d) / chunks >= MIN_DISTANCE_MM for d in moving.values()):
            for _ in range(chunks):
                left, right = (_translation(axis, moving[arm] / chunks) for arm in ARMS)
                yield DualMoveWorld(left, right, reason=f"expert: move both {axis}")
            continue
        for arm, delta in moving.items():
            for chunk in split_steps(delta, MAX_DISTANCE_MM):
                yield MoveWorld(_translation(axis, chunk), arm=arm, reason=f"expert: move {axis}")


def _translation(axis: str, delta_mm: float) -> Translation:
    return Translation(axis, "+" if delta_mm > 0 else "-", round(abs(delta_mm), 1))  # type: ignore[arg-type]
