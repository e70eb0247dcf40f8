"""Reading a bench's LCD faces back from a rendered close-up, through the published camera model."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from actloop.sim.camera import look_at
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.platforms.display import DisplayFace
from actloop.suites.lab.reference.display import Camera, project, read_display, window_corners


def assert_faces_read_back(
    env: LabEnv, faces: Iterable[DisplayFace], centres: Mapping[str, tuple[float, float, float]]
) -> None:
    """Each face, rendered from 12 cm in front of it (a rendering env, faces redrawn by an observation),
    reads back as its instrument's shown value in the log."""
    k = env.calibration()["wrist"]["intrinsics"]
    renderer = env._renderer
    assert renderer is not None
    for face in faces:
        centre = np.array(centres[face.texture]) - np.array([0.0, 0.001, 0.0])
        pose = look_at(centre + np.array([0.0, -0.12, 0.02]), centre)
        image = renderer.render_from(env.data, np.array(pose.position), pose.rotation())
        camera = Camera(np.array(pose.position), pose.rotation(), k["fx"], k["fy"], k["cx"], k["cy"])
        world = window_corners(centre, [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], face.width_m, face.height_m)
        text = read_display(image, project(world, camera), face.digits)
        spec = next(s for s in env.platform.instruments() if s.name == face.instrument)
        assert text == spec.text(env.instrument_log.shown_at(face.instrument, env.clock.time_s)), face
