"""place_cube_on_cube_heldout: the held-out variant of place_cube_on_cube with a larger base cube."""

from __future__ import annotations

from actloop.suites.vabench.task import HELD_OUT_CANDIDATES, register_task
from actloop.suites.vabench.tasks.place_cube_on_cube import PlaceCubeOnCube

BASE_HALF = 0.038
BASE_MASS = 0.476
"""The base family's base density (0.12 kg for 48 mm) at 76 mm."""


@register_task
class PlaceCubeOnCubeHeldout(PlaceCubeOnCube):
    """place_cube_on_cube with a larger green base cube: the box instance is held out.

    Instruction:
        Pick up the red cube and stack it on top of the green cube. (The base family's, word for word.)
    Changed from place_cube_on_cube:
        The green base cube's edge is 76 mm (was 48 mm), 0.476 kg (was 0.12 kg, the same density). Its
        top face is 76 mm above the table (was 48 mm), so a red cube let down to where the base
        family's stack rests would be pressed into it; the stacked red cube rests with its centre
        98 mm above the table (was 70 mm), 60 mm above the base centre (was 46 mm), and stays up with
        its centre up to 38 mm from the base's centre along the base's axes (was 24 mm). A stacked red
        cube is now more than 50 mm above its start, so unlike the base family's, the final state
        alone implies ``previously_lifted_50mm``. The red cube (44 mm, 0.08 kg) is unchanged.
    Randomization:
        Unchanged: red cube centre x in [0.20, 0.26] m, y in [-0.14, -0.06] m; base cube centre
        x in [0.10, 0.14] m, y in [0, 0.04] m; both yaws in [-45°, 45°]; seeds from 3000 (disjoint from
        the base family's).
    Success conditions (the base family's; see ``place_cube_on_cube.PlaceCubeOnCube``):
        Hardened: the paper's conditions, ``object_clear_of_robot``, ``confirmed_after_settle``.
        Paper (table 23), with the paper's literal tolerances: ``previously_lifted_50mm``,
        ``top_surface_overlap_ge_2mm``, ``height_error_le_12mm``, ``base_displacement_le_12mm``,
        ``contact``, ``gripper_open``. The two terms that depend on the base's geometry use this base:
        the overlap is taken with this base's 76 mm top face, and the height error against this base's
        top plus the red half size (38 + 22 = 60 mm above the base centre). Measured against the 48 mm
        base's 46 mm, a correctly stacked red cube would read 14 mm high and fail the 12 mm tolerance.
    Checkpoints:
        As the base family's: ``approached``, ``grasped``, ``lifted``, ``over_target``, ``placed``,
        ``released``.
    """

    name = "place_cube_on_cube_heldout"
    track = "held_out"
    base_task = "place_cube_on_cube"
    first_candidate = HELD_OUT_CANDIDATES
    base_half = BASE_HALF
    base_mass = BASE_MASS
