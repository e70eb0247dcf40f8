"""grasp_single_bottle_upright: the standing pose and the grasp point.

Checker cases: test_lift_families.py; reset state and layout ranges: test_families.py.
"""

from __future__ import annotations

from actloop.sim.robot import GC_OFFSET
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.predicates import site_position

TASK = "grasp_single_bottle_upright"  # the conftest ``env`` fixture builds it at seed 1000
PALM_ABOVE_GC = GC_OFFSET - (0.035 + 0.022)  # palm box bottom (robot.py) above the finger midpoint


def test_bottle_stands_and_the_grasp_point_clears_the_palm(env: SpatialEnv) -> None:
    rotation = env.world.body_rotation("bottle")
    assert rotation[2, 2] > 0.9999
    grasp = site_position(env.context, "bottle_top_grasp")
    top = TABLE_TOP_Z + env.task.model.height
    assert grasp[2] - 0.012 > TABLE_TOP_Z  # fingertips above the table
    assert grasp[2] + PALM_ABOVE_GC > top + 0.005  # palm above the cap
