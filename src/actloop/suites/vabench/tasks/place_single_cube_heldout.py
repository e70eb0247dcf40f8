"""place_single_cube_heldout: the held-out variant of place_single_cube with a mirrored layout."""

from __future__ import annotations

from actloop.suites.vabench.task import HELD_OUT_CANDIDATES, register_task
from actloop.suites.vabench.tasks._placing import mirrored_range
from actloop.suites.vabench.tasks.place_single_cube import PlaceSingleCube

MIRROR_X = 0.18
"""The layout is the base family's mirrored left-right about this line x = 0.18 m."""


@register_task
class PlaceSingleCubeHeldout(PlaceSingleCube):
    """place_single_cube with the layout mirrored left-right: the spatial layout is held out.

    Instruction:
        Pick up the red cube and place it on the blue target pad. (The base family's, word for word.)
    Changed from place_single_cube:
        Both x ranges are mirrored about x = 0.18 m, so the pad lies to the right of the cube (+x) where
        the base family's lies to its left: cube centre x in [0.10, 0.18] m (was [0.18, 0.26] m), pad
        centre x in [0.22, 0.26] m (was [0.10, 0.14] m). On average the carry from cube to pad goes
        0.1 m towards +x and 0.13 m towards +y (was 0.1 m towards -x and 0.13 m towards +y). Objects are
        unchanged: the 44 mm red cube and the 100 × 100 × 6 mm blue pad.
    Randomization:
        Cube centre x in [0.10, 0.18] m, y in [-0.16, -0.06] m (unchanged), yaw in [-45°, 45°]
        (unchanged); pad centre x in [0.22, 0.26] m, y in [0, 0.04] m (unchanged), redrawn, as in the
        base family, until the cube clears it at any yaw. Seeds from 3000 (disjoint from the base
        family's).
    Success conditions (the base family's; see ``place_single_cube.PlaceSingleCube``):
        Hardened: the paper's conditions, ``object_clear_of_robot``, ``confirmed_after_settle``.
        Paper (table 23, ``predicates.TargetPlacement``), with the paper's literal tolerances:
        ``previously_lifted_50mm``, ``x_error_le_35mm``, ``y_error_le_35mm``, ``height_error_le_35mm``,
        ``target_displacement_le_2mm``, ``contact``, ``gripper_open``. No term depends on the layout:
        the errors are taken against this scene's pad, so a cube set down where the base family's pad
        would be (mirrored back) fails.
    Checkpoints:
        As the base family's: ``approached``, ``grasped``, ``lifted``, ``over_target``, ``placed``,
        ``released``.
    """

    name = "place_single_cube_heldout"
    track = "held_out"
    base_task = "place_single_cube"
    first_candidate = HELD_OUT_CANDIDATES
    cube_x_range = mirrored_range(PlaceSingleCube.cube_x_range, MIRROR_X)
    target_x_range = mirrored_range(PlaceSingleCube.target_x_range, MIRROR_X)
