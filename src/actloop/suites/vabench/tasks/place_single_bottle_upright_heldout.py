"""place_single_bottle_upright_heldout: the held-out variant of place_single_bottle_upright with a
mirrored layout."""

from __future__ import annotations

from actloop.suites.vabench.task import HELD_OUT_CANDIDATES, register_task
from actloop.suites.vabench.tasks._placing import mirrored_range
from actloop.suites.vabench.tasks.place_single_bottle_upright import PlaceSingleBottleUpright

MIRROR_X = 0.155
"""The layout is the base family's mirrored left-right about this line x = 0.155 m (the middle of the
span of the bottle's and the pad's x ranges)."""


@register_task
class PlaceSingleBottleUprightHeldout(PlaceSingleBottleUpright):
    """place_single_bottle_upright with the layout mirrored left-right: the spatial layout is held out.

    Instruction:
        Pick up the upright bottle and place it upright on the blue pad. (The base family's, word for
        word.)
    Changed from place_single_bottle_upright:
        Both x ranges are mirrored about x = 0.155 m, so the bottle starts on the left and the pad lies
        far right: bottle centre x in [0.03, 0.11] m (was [0.20, 0.28] m), pad centre x in
        [0.22, 0.28] m (was [0.03, 0.09] m). On average the carry from bottle to pad goes 0.18 m
        towards +x and 0.2 m towards +y (was 0.18 m towards -x and 0.2 m towards +y). Objects are
        unchanged: the ``water_bottle`` preset and the 100 mm blue pad.
    Randomization:
        Bottle centre x in [0.03, 0.11] m, y in [-0.16, -0.04] m (unchanged), fixed upright
        orientation; pad centre x in [0.22, 0.28] m, y in [0.07, 0.13] m (unchanged). Seeds from 3000
        (disjoint from the base family's).
    Success conditions (the base family's; see ``place_single_bottle_upright.PlaceSingleBottleUpright``):
        Hardened: the paper's conditions, ``object_clear_of_robot``, ``standing_upright_cap_up``,
        ``confirmed_after_settle``.
        Paper (table 23, ``predicates.TargetPlacement``), with the paper's literal tolerances:
        ``previously_lifted_50mm``, ``x_error_le_40mm``, ``y_error_le_40mm``, ``height_error_le_35mm``
        (against the water bottle's upright rest height, unchanged), ``target_displacement_le_2mm``,
        ``contact``, ``gripper_open``. No term depends on the layout: the errors are taken against this
        scene's pad, so a bottle set down where the base family's pad would be (mirrored back) fails.
    Checkpoints:
        As the base family's: ``approached``, ``grasped``, ``lifted``, ``over_target``, ``placed``,
        ``released``.
    """

    name = "place_single_bottle_upright_heldout"
    track = "held_out"
    base_task = "place_single_bottle_upright"
    first_candidate = HELD_OUT_CANDIDATES
    bottle_x_range = mirrored_range(PlaceSingleBottleUpright.bottle_x_range, MIRROR_X)
    target_x_range = mirrored_range(PlaceSingleBottleUpright.target_x_range, MIRROR_X)
