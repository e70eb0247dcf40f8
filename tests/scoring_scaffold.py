"""Scoring a result with every gate held and every milestone reached: the tolerance alone decides."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from actloop.suites.lab.scoring import Check, ScoredQuantity, score


def succeeds_on_tolerance(
    submitted: Mapping[str, float], truth: Mapping[str, float], quantities: Sequence[ScoredQuantity]
) -> bool:
    """Whether ``submitted`` scores as a success against ``truth`` with the gates held and L1–L4 reached."""
    gates = [Check(name, True, "held") for name in ("evidence", "conditions", "restored")]
    milestones = [Check(name, True, "reached") for name in ("L1", "L2", "L3", "L4")]
    return score(submitted, truth, quantities, gates, milestones).success
