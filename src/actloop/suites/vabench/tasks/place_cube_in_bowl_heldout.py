"""place_cube_in_bowl_heldout: the held-out variant of place_cube_in_bowl with a different bowl."""

from __future__ import annotations

from typing import ClassVar

from actloop.sim.assets.bowl import DEEP_BOWL, BowlModel
from actloop.suites.vabench.task import HELD_OUT_CANDIDATES, register_task
from actloop.suites.vabench.tasks.place_cube_in_bowl import PlaceCubeInBowl


@register_task
class PlaceCubeInBowlHeldout(PlaceCubeInBowl):
    """place_cube_in_bowl with a narrower, deeper bowl: the container instance is held out.

    Instruction:
        Pick up the red cube and place it inside the cyan bowl. (The base family's, word for word.)
    Changed from place_cube_in_bowl:
        The bowl preset is ``deep_bowl`` instead of ``cyan_bowl``: inner floor 84 mm across (was
        100 mm), 8 mm thick (was 6 mm); wall 65 mm high (was 50 mm), sloped 15° from vertical (was 30°);
        inner rim radius 59 mm (was 79 mm). Still cyan, still 0.4 kg. A cube carried just over the base
        bowl's 50 mm rim now hits this wall, and a cube let go above the outer part of the base bowl's
        opening misses this one. The cube (44 mm, red) is unchanged.
    Randomization:
        Unchanged: bowl centre x in [0.10, 0.14] m, y in [0, 0.04] m; cube centre x in [0.22, 0.27] m,
        y in [-0.17, -0.10] m, yaw in [-45°, 45°]; seeds from 3000 (disjoint from the base family's).
    Success conditions (the base family's; see ``place_cube_in_bowl.PlaceCubeInBowl``):
        Hardened: the paper's conditions, ``object_clear_of_robot``, ``confirmed_after_settle``.
        Paper (table 23), with the paper's literal tolerances: ``previously_lifted_50mm``,
        ``center_distance_lt_55mm``, ``relative_height_15_95mm``, ``bowl_displacement_lt_5mm``,
        ``contact``, ``gripper_open``. The window is kept literal: measured from the bowl's underside,
        a cube resting on this floor sits 30 mm up (8 mm floor plus 22 mm; 28 mm in the base bowl). The
        expert's release height and the ``over_target`` reference use this floor's thickness.
    Checkpoints:
        As the base family's: ``approached``, ``grasped``, ``lifted``, ``over_target``, ``placed``,
        ``released``.
    """

    name = "place_cube_in_bowl_heldout"
    track = "held_out"
    base_task = "place_cube_in_bowl"
    first_candidate = HELD_OUT_CANDIDATES
    bowl_model: ClassVar[BowlModel] = DEEP_BOWL
