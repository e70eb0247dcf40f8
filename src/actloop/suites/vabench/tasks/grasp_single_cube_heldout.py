"""grasp_single_cube_heldout: the held-out variant of grasp_single_cube with a larger cube."""

from __future__ import annotations

from actloop.suites.vabench.task import HELD_OUT_CANDIDATES, register_task
from actloop.suites.vabench.tasks.grasp_single_cube import GraspSingleCube

CUBE_HALF = 0.026
CUBE_MASS = 0.132
"""The base cube's density (0.08 kg for 44 mm) at 52 mm."""


@register_task
class GraspSingleCubeHeldout(GraspSingleCube):
    """grasp_single_cube with a larger red cube: object geometry is held out.

    Instruction:
        Pick up the red cube from the table and lift it. (The base family's, word for word.)
    Changed from grasp_single_cube:
        The cube's edge is 52 mm (was 44 mm), 0.132 kg (was 0.08 kg, the same density); its centre,
        the grasp point, stands 26 mm above the table (was 22 mm). Open, the gripper leaves 14 mm on
        each side of a face (was 18 mm), and the cube's diagonal, 74 mm (was 62 mm), still fits the
        80 mm aperture. Still red.
    Randomization:
        Unchanged: cube centre x in [0.18, 0.26] m, y in [-0.16, -0.06] m, yaw in [-45°, 45°]; seeds
        from 3000 (disjoint from the base family's).
    Success conditions (``_grasping.LiftTask``, the base family's; the target is the cube):
        Hardened: ``lifted_gt_50mm``, ``held_in_right_gripper`` (both pads on it),
        ``supported_by_gripper_only``, ``confirmed_after_settle`` (still held after 3 s).
        Paper (table 22): ``lifted_gt_50mm``, ``right_gripper_closed``. The lift is measured from this
        cube's own settled start (26 mm above the table), not from the 44 mm cube's 22 mm.
    Checkpoints:
        As the base family's: ``approached`` (GC within 20 mm of the cube centre in x/y and 25 mm in
        z), ``grasped``, ``lifted``.
    """

    name = "grasp_single_cube_heldout"
    track = "held_out"
    base_task = "grasp_single_cube"
    first_candidate = HELD_OUT_CANDIDATES
    cube_half = CUBE_HALF
    cube_mass = CUBE_MASS
