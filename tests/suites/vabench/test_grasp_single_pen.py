"""grasp_single_pen: the pen asset.

Checker cases: test_lift_families.py; reset state and layout ranges: test_families.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from actloop.sim.assets.pen import PEN_APOTHEM, PEN_LENGTH
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.env import SpatialEnv

TASK = "grasp_single_pen"  # the conftest ``env`` fixture builds it at seed 1000


def test_pen_is_slim_light_and_lies_on_a_flat(env: SpatialEnv) -> None:
    model = env.world.model
    across_flats, across_corners = 2 * PEN_APOTHEM, 2 * PEN_APOTHEM / np.cos(np.pi / 6)
    assert across_flats >= 0.010 and across_corners <= 0.016
    assert PEN_LENGTH >= 0.12
    assert float(model.body_subtreemass[model.body("pen").id]) == pytest.approx(0.02, abs=1e-4)
    assert env.world.body_position("pen")[2] == pytest.approx(TABLE_TOP_Z + PEN_APOTHEM, abs=2e-4)
    flat_normal = env.world.body_rotation("pen")[:, 0]
    assert flat_normal[2] == pytest.approx(-1.0, abs=1e-4)
