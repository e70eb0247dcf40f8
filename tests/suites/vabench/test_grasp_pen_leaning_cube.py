"""grasp_pen_leaning_cube: the leaning pose.

Checker cases: test_lift_families.py; reset state and layout ranges: test_families.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scene_edit import settle

from actloop.suites.vabench.env import SpatialEnv
from actloop.suites.vabench.predicates import body_geoms, touching

TASK = "grasp_pen_leaning_cube"  # the conftest ``env`` fixture builds it at seed 1000


def test_pen_leans_at_30_degrees_on_the_table_and_the_cube(env: SpatialEnv) -> None:
    axis = env.world.body_rotation("pen")[:, 2]
    assert np.rad2deg(np.arcsin(axis[2])) == pytest.approx(30.0, abs=0.5)
    heading = np.arctan2(axis[1], axis[0])
    assert heading == pytest.approx(env.task.layout["yaw"], abs=0.01)
    settle(env, 500)
    assert touching(env.context, "pen", "cube")
    table = frozenset({env.world.model.geom("table").id})
    assert env.world.in_contact(table, body_geoms(env.context, "pen"))
