"""The lab's three cameras with their fixed, published calibration: two fixed on the bench and one on
the wrist.

Frames follow MuJoCo's (and OpenGL's) camera convention: x right, y up, the camera looking along −z.
``rotation`` is camera-to-world; a world point p maps to camera coordinates Rᵀ(p − position), and to
pixels u = cx + fx·x/(−z), v = cy − fy·y/(−z) (v grows downwards, origin at the top-left pixel).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from actloop.sim.camera import look_at
from actloop.sim.fixedmath import matmul

WIDTH = 640
HEIGHT = 480
FIXED_FOVY_DEG = 50.0
WRIST_FOVY_DEG = 50.0
WRIST_OFFSET_M = (0.0, 0.0, 0.09)
"""Wrist camera position in the hand's control frame (x approach, y finger-closing, z palm side)."""


@dataclass(frozen=True)
class CameraSpec:
    """One camera: its name, vertical field of view and, for a fixed camera, its pose."""

    name: str
    fovy_deg: float
    eye: tuple[float, float, float] | None = None
    target: tuple[float, float, float] | None = None

    def intrinsics(self) -> dict[str, float]:
        """Pinhole intrinsics in pixels for the published image size."""
        fy = (HEIGHT / 2) / math.tan(math.radians(self.fovy_deg) / 2)
        return {"width": WIDTH, "height": HEIGHT, "fx": fy, "fy": fy, "cx": WIDTH / 2, "cy": HEIGHT / 2}

    def fixed_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """(position, camera-to-world rotation) of a fixed camera."""
        if self.eye is None or self.target is None:
            raise ValueError(f"{self.name} is not a fixed camera")
        pose = look_at(self.eye, self.target)
        return np.array(pose.position), pose.rotation()


def wrist_pose(hand_position: np.ndarray, hand_rotation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The wrist camera's pose from the hand's control frame: mounted at :data:`WRIST_OFFSET_M`, looking
    along the approach axis with the palm side up."""
    rx, ry, rz = hand_rotation[:, 0], hand_rotation[:, 1], hand_rotation[:, 2]
    offset = np.array(WRIST_OFFSET_M)
    position = hand_position + matmul(hand_rotation, offset.reshape(3, 1)).reshape(3)
    rotation = np.column_stack([-ry, rz, -rx])  # right, up, backward (looks along +rx)
    return position, rotation


def calibration(cameras: tuple[CameraSpec, ...]) -> dict[str, Any]:
    """What a client receives once: intrinsics of every camera, extrinsics of the fixed ones and the
    wrist camera's mount in the hand frame."""
    out: dict[str, Any] = {"convention": __doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else ""}
    for cam in cameras:
        entry: dict[str, Any] = {"intrinsics": cam.intrinsics()}
        if cam.eye is not None:
            position, rotation = cam.fixed_pose()
            entry["extrinsics"] = {"position": position.tolist(), "rotation": rotation.tolist()}
        else:
            entry["mount"] = {
                "frame": "hand control frame (x approach, y finger-closing, z palm side)",
                "position": list(WRIST_OFFSET_M),
                "rotation_in_hand": [[0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            }
        out[cam.name] = entry
    return out
