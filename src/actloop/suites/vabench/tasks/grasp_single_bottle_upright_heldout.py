"""grasp_single_bottle_upright_heldout: the held-out variant of grasp_single_bottle_upright with a
different bottle."""

from __future__ import annotations

from typing import ClassVar

from actloop.sim.assets.bottle import SODA_BOTTLE, BottleModel
from actloop.suites.vabench.task import HELD_OUT_CANDIDATES, register_task
from actloop.suites.vabench.tasks.grasp_single_bottle_upright import GraspSingleBottleUpright


@register_task
class GraspSingleBottleUprightHeldout(GraspSingleBottleUpright):
    """grasp_single_bottle_upright with the wider, shorter soda bottle: object geometry is held out.

    Instruction:
        Pick up the upright bottle from the table and lift it. (The base family's, word for word.)
    Changed from grasp_single_bottle_upright:
        The bottle preset is ``soda_bottle`` instead of ``water_bottle``: 160 mm tall (was 182 mm),
        body 64 mm across the flats (was 56 mm) and 128 mm high (was 150 mm), green with a yellow cap
        (was cyan with a red cap), 0.18 kg (was 0.15 kg). The top grasp point, 8 mm below the top of
        the body, is 120 mm above the table (was 142 mm): closing where the water bottle's body was
        grasped would close on this bottle's neck.
    Randomization:
        Unchanged: bottle centre x in [0.20, 0.28] m, y in [-0.16, -0.04] m, fixed upright
        orientation; seeds from 3000 (disjoint from the base family's).
    Success conditions (``_grasping.LiftTask``, the base family's; the target is the bottle):
        Hardened: ``lifted_gt_50mm``, ``held_in_right_gripper`` (both pads on it),
        ``supported_by_gripper_only``, ``confirmed_after_settle`` (still held after 3 s).
        Paper (table 22): ``lifted_gt_50mm``, ``right_gripper_closed``. The lift is measured from this
        bottle's own settled start (its centre 80 mm above the table), not from the water bottle's 91 mm.
    Checkpoints:
        As the base family's: ``approached`` (GC within 20 mm in x/y and 25 mm in z of this bottle's
        top grasp point), ``grasped``, ``lifted``.
    """

    name = "grasp_single_bottle_upright_heldout"
    track = "held_out"
    base_task = "grasp_single_bottle_upright"
    first_candidate = HELD_OUT_CANDIDATES
    model: ClassVar[BottleModel] = SODA_BOTTLE
