"""grasp_single_bottle_heldout: the held-out variant of grasp_single_bottle with a different bottle."""

from __future__ import annotations

from typing import ClassVar

from actloop.sim.assets.bottle import SODA_BOTTLE, BottleModel
from actloop.suites.vabench.task import HELD_OUT_CANDIDATES, register_task
from actloop.suites.vabench.tasks.grasp_single_bottle import GraspSingleBottle


@register_task
class GraspSingleBottleHeldout(GraspSingleBottle):
    """grasp_single_bottle with the wider, shorter soda bottle: object geometry is held out.

    Instruction:
        Pick up the bottle lying on the table and lift it. (The base family's, word for word.)
    Changed from grasp_single_bottle:
        The bottle preset is ``soda_bottle`` instead of ``water_bottle``: body 64 mm across the flats
        (was 56 mm), 160 mm long (was 182 mm), 128 mm body (was 150 mm), green with a yellow cap (was
        cyan with a red cap), 0.18 kg (was 0.15 kg). Lying on a flat, its axis is 32 mm above the table
        (was 28 mm), so the grasp height and the side-grasp point (the middle of the body, 16 mm from
        the bottle's centre towards its base; was 16 mm too) move with it.
    Randomization:
        Unchanged: bottle centre x in [0.20, 0.28] m, y in [-0.16, -0.04] m, yaw of the long axis in
        [-22.5°, 22.5°]; seeds from 3000 (disjoint from the base family's).
    Success conditions (``_grasping.LiftTask``, the base family's; the target is the bottle):
        Hardened: ``lifted_gt_50mm``, ``held_in_right_gripper`` (both pads on it),
        ``supported_by_gripper_only``, ``confirmed_after_settle`` (still held after 3 s).
        Paper (table 22): ``lifted_gt_50mm``, ``right_gripper_closed``. The lift is measured from this
        bottle's own settled start (32 mm above the table), not from the water bottle's 28 mm.
    Checkpoints:
        As the base family's: ``approached`` (GC within 20 mm in x/y and 25 mm in z of the middle of
        this bottle's body), ``grasped``, ``lifted``.
    """

    name = "grasp_single_bottle_heldout"
    track = "held_out"
    base_task = "grasp_single_bottle"
    first_candidate = HELD_OUT_CANDIDATES
    model: ClassVar[BottleModel] = SODA_BOTTLE
