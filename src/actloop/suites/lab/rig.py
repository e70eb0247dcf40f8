"""The bench's robot and clock, shared by the bench, its platforms, its evaluators and level T1 (a leaf:
it imports nothing of the lab): the physics rate, the arm, its home pose and published speed limits, and
the three cameras."""

from __future__ import annotations

from actloop.suites.lab.cameras import FIXED_FOVY_DEG, WRIST_FOVY_DEG, CameraSpec

PHYSICS_HZ = 240
DT = 1.0 / PHYSICS_HZ
ARM = "right"
ROBOT_PREFIX = f"{ARM}_"
"""Every geom of the bench's arm and hand is named with this prefix."""
HOME_Q = (0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785)
"""The arm's ready pose (joint angles, rad) at the start of every episode."""
MAX_JOINT_SPEED = (2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61)
"""rad/s: a trajectory may change no joint faster than this between consecutive physics steps."""
CAMERAS = (
    CameraSpec("front", FIXED_FOVY_DEG, eye=(0.05, -0.75, 1.30), target=(0.05, 0.10, 0.95)),
    CameraSpec("side", FIXED_FOVY_DEG, eye=(0.95, 0.15, 1.25), target=(0.05, 0.10, 0.95)),
    CameraSpec("wrist", WRIST_FOVY_DEG),
)
