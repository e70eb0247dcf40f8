"""Which instruments a served image shows readably: in view, not covered, marks large enough in pixels.

For each instrument the platform names a reading site (a world point, the world step between adjacent
marks there, the geom that carries the marks). The site is projected with the camera's published
calibration; it is in view when it lands inside the image in front of the camera, unoccluded when a ray
from the camera meets the marks' geom before anything else, and its pixel size is the projected distance
between adjacent marks.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from actloop.sim.fixedmath import matmul, norm
from actloop.suites.lab.cameras import HEIGHT, WIDTH
from actloop.suites.lab.instruments import Visibility
from actloop.suites.lab.platforms.base import ReadingSite

OCCLUSION_SLACK_M = 0.002


def project(
    point: np.ndarray, position: np.ndarray, rotation: np.ndarray, fy: float
) -> tuple[float, float] | None:
    """Pixel (u, v) of a world point for a camera at ``position`` with camera-to-world ``rotation``; None
    when the point is behind the camera."""
    local = matmul(np.ascontiguousarray(rotation.T), (point - position).reshape(3, 1)).reshape(3)  # no BLAS:
    # readability decides which citations count, so it must come out the same on every machine
    depth = -float(local[2])
    if depth <= 1e-6:
        return None
    return WIDTH / 2 + fy * float(local[0]) / depth, HEIGHT / 2 - fy * float(local[1]) / depth


def visibility(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    camera: str,
    pose: tuple[np.ndarray, np.ndarray],
    fy: float,
    sites: dict[str, ReadingSite],
) -> list[Visibility]:
    """The readability facts of every instrument in one camera image."""
    position, rotation = pose
    out = []
    for name, site in sites.items():
        at = project(site.point, position, rotation, fy)
        step = project(site.point + site.resolve, position, rotation, fy)
        in_view = at is not None and 0 <= at[0] < WIDTH and 0 <= at[1] < HEIGHT
        size = 0.0 if at is None or step is None else math.hypot(step[0] - at[0], step[1] - at[1])
        out.append(
            Visibility(name, camera, in_view, in_view and _unoccluded(model, data, position, site), size)
        )
    return out


def _unoccluded(model: mujoco.MjModel, data: mujoco.MjData, position: np.ndarray, site: ReadingSite) -> bool:
    """The first geom a ray from the camera meets on its way to the site is the marks' own geom."""
    direction = site.point - position
    distance = norm(direction)
    hit = np.array([-1], dtype=np.int32)
    found = mujoco.mj_ray(model, data, position, direction / distance, None, 1, -1, hit)
    if found < 0:
        return True
    own = {model.geom(name).id for name in site.geoms}
    return int(hit[0]) in own or found >= distance - OCCLUSION_SLACK_M
