"""Pinhole geometry of the published semantic camera views, as the baseline reconstructs it.

Known from the interface description alone: semantic views sit at a fixed offset from the gripper
centre (GC) and look at it, with a 55° vertical field of view and no roll; camera positions are
clamped to the camera workspace. With the GC read from proprioception, the baseline knows the camera
that took each frame and can turn pixels into rays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

VERTICAL_FOV_DEG = 55.0
TOPDOWN_OFFSET = np.array([0.0, 0.0, 0.68])
SIDE_OFFSET = np.array([0.58, -0.02, 0.06])
CAMERA_LOW = np.array([-0.85, -0.95, 0.78])
CAMERA_HIGH = np.array([0.85, 0.35, 1.85])
_UP = np.array([0.0, 0.0, 1.0])


@dataclass(frozen=True)
class Pinhole:
    """A camera at ``eye`` with orthonormal ``right``, ``up`` and ``forward`` axes (world frame)."""

    eye: np.ndarray
    right: np.ndarray
    up: np.ndarray
    forward: np.ndarray
    width: int
    height: int

    @property
    def focal_px(self) -> float:
        return (self.height / 2) / math.tan(math.radians(VERTICAL_FOV_DEG / 2))

    def ray(self, u: float, v: float) -> np.ndarray:
        """Unit world direction through pixel (u right, v down)."""
        f = self.focal_px
        d = f * self.forward + (u - self.width / 2) * self.right - (v - self.height / 2) * self.up
        return d / np.linalg.norm(d)

    def project(self, point: np.ndarray) -> tuple[float, float]:
        """Pixel (u right, v down) of a world point in front of the camera."""
        d = np.asarray(point, dtype=float) - self.eye
        depth = float(np.dot(d, self.forward))
        f = self.focal_px
        return (
            self.width / 2 + f * float(np.dot(d, self.right)) / depth,
            self.height / 2 - f * float(np.dot(d, self.up)) / depth,
        )

    def point_at_height(self, u: float, v: float, z: float) -> np.ndarray:
        """Where the ray through a pixel meets the horizontal plane at height ``z``."""
        d = self.ray(u, v)
        t = (z - self.eye[2]) / d[2]
        return self.eye + t * d

    def height_on_vertical(self, u: float, v: float, xy: np.ndarray) -> float:
        """Height of the point on the vertical line through ``xy`` closest to the pixel's ray."""
        d = self.ray(u, v)
        horizontal = np.array([d[0], d[1]])
        t = float(np.dot(np.asarray(xy) - self.eye[:2], horizontal) / np.dot(horizontal, horizontal))
        return float(self.eye[2] + t * d[2])


def _looking_at(eye: np.ndarray, target: np.ndarray, width: int, height: int) -> Pinhole:
    forward = target - eye
    forward = forward / np.linalg.norm(forward)
    if abs(forward[2]) > 0.999:  # straight down: the image's up is world +y (yaw 90°)
        right = np.array([1.0, 0.0, 0.0])
    else:
        right = np.cross(forward, _UP)
        right = right / np.linalg.norm(right)
    up = np.cross(right, forward)
    return Pinhole(eye, right, up, forward, width, height)


def topdown(gc: np.ndarray, width: int, height: int) -> Pinhole:
    """The ``camera.view_topdown`` camera for a gripper centre ``gc``."""
    eye = np.clip(np.asarray(gc) + TOPDOWN_OFFSET, CAMERA_LOW, CAMERA_HIGH)
    return _looking_at(eye, np.asarray(gc, dtype=float), width, height)


def side(gc: np.ndarray, width: int, height: int) -> Pinhole:
    """The ``camera.view_side`` camera for a right-arm gripper centre ``gc`` (in dual-arm tasks: for the
    midpoint of both gripper centres)."""
    eye = np.clip(np.asarray(gc) + SIDE_OFFSET, CAMERA_LOW, CAMERA_HIGH)
    return _looking_at(eye, np.asarray(gc, dtype=float), width, height)
