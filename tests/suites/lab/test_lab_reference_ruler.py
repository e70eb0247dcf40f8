"""The reference reads the ruler at the pointer from a level close-up to within the evidence gate's half
millimetre, on several instances (images rendered from a camera placed where the reference puts it)."""

from __future__ import annotations

import numpy as np
import pytest

from actloop.sim.render import Renderer
from actloop.suites.lab.cameras import HEIGHT, WIDTH, WRIST_FOVY_DEG
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.reference.ruler import read_ruler
from actloop.suites.lab.reference.spring_stand import VIEW_DISTANCE, ruler_view


def close_up(env: LabEnv, camera_z: float) -> np.ndarray:
    """What the wrist camera sees when the reference holds it level at ``camera_z`` facing the ruler."""
    model, data = env._model, env._world.data
    x, face = ruler_view(env.calibration()["layout"])
    position = np.array([x, face - VIEW_DISTANCE, camera_z])
    rotation = np.column_stack([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])  # right, up, backward
    model.cam_fovy[model.camera("observer").id] = WRIST_FOVY_DEG
    with Renderer(model, WIDTH, HEIGHT) as renderer:
        return renderer.render_from(data, position, rotation)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_a_level_close_up_reads_within_half_a_millimetre(seed: int) -> None:
    env = LabEnv("hookes_law", seed, render=False)
    pointer_z = float(env._world.data.geom_xpos[env._model.geom("tray_pointer").id][2])
    reading = read_ruler(close_up(env, pointer_z))
    assert reading.value_mm == pytest.approx(env.platform.pointer_reading_mm(env._world.data), abs=0.2)
    env.close()


def test_no_ruler_or_no_pointer_is_said_plainly() -> None:
    with pytest.raises(ValueError, match="no ruler in view"):
        read_ruler(np.full((HEIGHT, WIDTH, 3), 200, dtype=np.uint8))
