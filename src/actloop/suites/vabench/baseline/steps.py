"""Constructors of the baseline's plan steps that move grippers (see ``policy`` for the step kinds)."""

from __future__ import annotations


def move_step(to: list, order: str, why: str = "", arm: str | None = None) -> dict:
    """A ``move`` plan step: bring GC to ``to`` (None keeps an axis) along the axes in ``order``."""
    step = {"op": "move", "to": _target(to), "order": order, "why": why}
    return step if arm is None else {**step, "arm": arm}


def dual_move_step(left: list, right: list, order: str, why: str) -> dict:
    """A ``dual_move`` plan step: both GCs to their targets, axis by axis in ``order``, synchronized."""
    to = {"left": _target(left), "right": _target(right)}
    return {"op": "dual_move", "to": to, "order": order, "why": why}


def _target(to: list) -> list:
    return [None if v is None else float(v) for v in to]
