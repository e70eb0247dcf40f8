"""A texture redrawn between frames shows in the next frame, in the model and on screen."""

import mujoco
import numpy as np
import pytest

from actloop.sim.render import Renderer

XML = """
<mujoco>
  <asset>
    <texture name="face" type="2d" builtin="flat" rgb1="0 0 1" width="16" height="8"/>
    <material name="face_mat" texture="face"/>
  </asset>
  <worldbody>
    <camera name="observer" pos="0 0 1" mode="fixed"/>
    <light pos="0 0 2" dir="0 0 -1" directional="true"/>
    <geom type="box" size="0.5 0.5 0.01" material="face_mat"/>
  </worldbody>
</mujoco>
"""


def test_uploaded_texture_shows_in_next_frame() -> None:
    model = mujoco.MjModel.from_xml_string(XML)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    with Renderer(model, 64, 48) as renderer:
        rotation = np.eye(3)
        before = renderer.render_from(data, np.array([0.0, 0.0, 1.0]), rotation)
        assert before[24, 32, 2] > before[24, 32, 0]  # blue face
        red = np.zeros((8, 16, 3), dtype=np.uint8)
        red[..., 0] = 255
        renderer.upload_texture("face", red)
        after = renderer.render_from(data, np.array([0.0, 0.0, 1.0]), rotation)
        assert after[24, 32, 0] > after[24, 32, 2]  # now red
        with pytest.raises(ValueError, match="texture 'face'"):
            renderer.upload_texture("face", np.zeros((4, 4, 3), dtype=np.uint8))
