"""The observer camera rig: poses, look-at, the seed's semantic views and incremental moves (table 27).

A pose is a position plus yaw and pitch (no roll). Yaw is the heading of the viewing direction in the
world XY plane (90° looks along +y, away from the robot); pitch is its elevation (-90° looks straight
down). The image's right axis depends on yaw only, so a top-down view is well defined: its image-up
direction is the yaw heading. Positions are clamped to the camera workspace after every action.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

CAMERA_LOW = np.array([-0.85, -0.95, 0.78])
CAMERA_HIGH = np.array([0.85, 0.35, 1.85])
PITCH_LIMITS_DEG = (-90.0, 60.0)
MOVE_STEP_M = 0.05
ZOOM_STEP_M = 0.08
TURN_STEP_DEG = 10.0

# Nominal offsets from the view centre for the right arm; x is mirrored for the left arm.
SEMANTIC_OFFSETS: dict[str, tuple[float, float, float]] = {
    "topdown": (0.0, 0.0, 0.68),
    "side": (0.58, -0.02, 0.06),
    "front_side_45": (0.44, -0.44, 0.18),
    "side_top_45": (0.48, -0.02, 0.48),
    "oblique_45": (0.42, -0.42, 0.42),
}
INITIAL_EYE = (-0.2, -0.92, 1.55)
INITIAL_TARGET = (0.12, -0.02, 0.74)


@dataclass(frozen=True)
class CameraPose:
    position: tuple[float, float, float]
    yaw_deg: float
    pitch_deg: float

    def forward(self) -> np.ndarray:
        y, p = math.radians(self.yaw_deg), math.radians(self.pitch_deg)
        return np.array([math.cos(p) * math.cos(y), math.cos(p) * math.sin(y), math.sin(p)])

    def right(self) -> np.ndarray:
        y = math.radians(self.yaw_deg)
        return np.array([math.sin(y), -math.cos(y), 0.0])

    def up(self) -> np.ndarray:
        return np.cross(self.right(), self.forward())

    def rotation(self) -> np.ndarray:
        """Camera-to-world rotation in MuJoCo's convention (columns: right, up, backward)."""
        return np.column_stack([self.right(), self.up(), -self.forward()])


def clamp_position(position: np.ndarray) -> tuple[float, float, float]:
    p = np.clip(position, CAMERA_LOW, CAMERA_HIGH)
    return (float(p[0]), float(p[1]), float(p[2]))


def look_at(eye: np.ndarray | tuple[float, ...], target: np.ndarray | tuple[float, ...]) -> CameraPose:
    """A pose at ``eye`` (clamped to the workspace) looking at ``target``."""
    position = clamp_position(np.asarray(eye, dtype=float))
    d = np.asarray(target, dtype=float) - np.asarray(position)
    horizontal = math.hypot(float(d[0]), float(d[1]))
    yaw = 90.0 if horizontal < 1e-9 else math.degrees(math.atan2(float(d[1]), float(d[0])))
    pitch = math.degrees(math.atan2(float(d[2]), horizontal))
    return CameraPose(position, yaw, float(np.clip(pitch, *PITCH_LIMITS_DEG)))


def initial_pose() -> CameraPose:
    """The high front view every episode starts from."""
    return look_at(INITIAL_EYE, INITIAL_TARGET)


def semantic_view(view: str, centre: np.ndarray, side: float = 1.0) -> CameraPose:
    """One of the five gripper-centred views around ``centre``; ``side`` -1 mirrors x (left arm)."""
    dx, dy, dz = SEMANTIC_OFFSETS[view]
    eye = np.asarray(centre, dtype=float) + np.array([side * dx, dy, dz])
    return look_at(eye, centre)


def incremental(pose: CameraPose, action: str) -> CameraPose:
    """Apply one incremental camera action (``move_left``, ``zoom_in``, ``yaw_right``, ...)."""
    pos = np.asarray(pose.position)
    moves = {
        "move_left": -MOVE_STEP_M * pose.right(),
        "move_right": MOVE_STEP_M * pose.right(),
        "move_up": MOVE_STEP_M * pose.up(),
        "move_down": -MOVE_STEP_M * pose.up(),
        "zoom_in": ZOOM_STEP_M * pose.forward(),
        "zoom_out": -ZOOM_STEP_M * pose.forward(),
    }
    if action in moves:
        return replace(pose, position=clamp_position(pos + moves[action]))
    turns = {
        "yaw_left": (TURN_STEP_DEG, 0.0),
        "yaw_right": (-TURN_STEP_DEG, 0.0),
        "pitch_up": (0.0, TURN_STEP_DEG),
        "pitch_down": (0.0, -TURN_STEP_DEG),
    }
    if action in turns:
        d_yaw, d_pitch = turns[action]
        pitch = float(np.clip(pose.pitch_deg + d_pitch, *PITCH_LIMITS_DEG))
        return replace(pose, yaw_deg=(pose.yaw_deg + d_yaw) % 360.0, pitch_deg=pitch)
    raise ValueError(f"unknown incremental camera action {action!r}")
