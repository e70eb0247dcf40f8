"""Moving the hand along straight lines with T0 calls only: inverse kinematics at short waypoints and
joint trajectories within the published speed limits."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
from PIL import Image

from actloop.suites.lab.reference.display import Camera, project, read_display, window_corners

WAYPOINT_M = 0.02
WAYPOINT_RAD = 0.15
SPEED_FRACTION = 0.5
SETTLE_S = 0.3


GC_OFFSET = 0.1034
"""The finger pads' centre along the approach axis from the hand frame, metres (the published calibration's
``robot.finger_pad_centre_in_hand_m``)."""


class Client(Protocol):
    """The public client's calls the reference uses (see the workspace's ``lab_client.Lab``)."""

    def observe(self) -> dict[str, Any]: ...
    def submit(
        self, result: Mapping[str, float | str], citations: list[dict[str, Any]]
    ) -> dict[str, Any]: ...
    def state(self) -> dict[str, Any]: ...
    def calibration(self) -> dict[str, Any]: ...
    def ik(
        self, position: list[float], quaternion: list[float], start: list[float] | None = None
    ) -> dict[str, Any]: ...
    def move_joints(self, targets: list[list[float]]) -> dict[str, Any]: ...
    def gripper(self, width_m: float) -> dict[str, Any]: ...
    def wait(self, seconds: float) -> dict[str, Any]: ...
    def export(self, logger: str, file: str) -> dict[str, Any]: ...


def quaternion(approach: tuple[float, float, float], closing: tuple[float, float, float]) -> list[float]:
    """The hand orientation (w, x, y, z) with its approach and finger-closing axes along the given world
    directions (orthonormal)."""
    rx, ry = np.array(approach, dtype=float), np.array(closing, dtype=float)
    rz = np.cross(rx, ry)
    m = np.column_stack([rx, ry, rz])
    w = math.sqrt(max(0.0, 1.0 + m[0, 0] + m[1, 1] + m[2, 2])) / 2
    if w > 1e-6:
        return [
            w,
            (m[2, 1] - m[1, 2]) / (4 * w),
            (m[0, 2] - m[2, 0]) / (4 * w),
            (m[1, 0] - m[0, 1]) / (4 * w),
        ]
    i = int(np.argmax(np.diag(m)))
    j, k = (i + 1) % 3, (i + 2) % 3
    s = math.sqrt(max(0.0, 1.0 + m[i, i] - m[j, j] - m[k, k])) * 2
    q = [0.0, 0.0, 0.0, 0.0]
    q[0] = (m[k, j] - m[j, k]) / s
    q[1 + i] = s / 4
    q[1 + j] = (m[j, i] + m[i, j]) / s
    q[1 + k] = (m[k, i] + m[i, k]) / s
    return q


def slerp(q0: np.ndarray, q1: np.ndarray, t: float) -> np.ndarray:
    """The unit quaternion a fraction ``t`` of the shortest rotation from ``q0`` to ``q1``."""
    dot = float(q0 @ q1)
    if dot < 0:
        q1, dot = -q1, -dot
    if dot > 0.9995:
        q = q0 + t * (q1 - q0)
        return q / np.linalg.norm(q)
    angle = math.acos(dot)
    return (math.sin((1 - t) * angle) * q0 + math.sin(t * angle) * q1) / math.sin(angle)


DOWN = quaternion((0.0, 0.0, -1.0), (1.0, 0.0, 0.0))
"""Fingertips down, fingers closing along world x."""
PAD_HALF = 0.012
"""The finger pads reach this far past the grasp centre along the approach axis (the fingertips)."""


class Arm:
    """The robot as the reference drives it."""

    def __init__(self, lab: Client) -> None:
        self.lab = lab
        robot = lab.calibration()["robot"]
        self.dt = float(robot["physics_dt_s"])
        self.speed = np.array(robot["max_joint_speed_rad_s"]) * SPEED_FRACTION
        limits = np.array(robot["joint_limits_rad"])
        self.lower, self.upper = limits[:, 0], limits[:, 1]

    def joints_to(self, target: np.ndarray) -> None:
        """A smooth joint trajectory to ``target`` within the speed limits."""
        current = np.array(self.lab.state()["joints"])
        target = np.clip(target, self.lower, self.upper)
        span = float(np.max(np.abs(target - current) / self.speed))
        steps = max(2, math.ceil(1.6 * span / self.dt))  # a cosine profile peaks at π/2 of the mean speed
        ramp = [0.5 - 0.5 * math.cos(math.pi * i / steps) for i in range(1, steps)]
        path = [np.clip(current + (target - current) * r, self.lower, self.upper) for r in ramp] + [target]
        self.lab.move_joints([q.tolist() for q in path])

    def line(self, position: list[float] | np.ndarray, orientation: list[float] = DOWN) -> float:
        """Move the hand along a straight line to ``position``, turning it evenly to ``orientation`` on the
        way (short waypoints, each solved by the bench's IK); returns the final distance to it (m)."""
        state = self.lab.state()
        start = np.array(state["hand_position"])
        q0, q1 = np.array(state["hand_quaternion"]), np.array(orientation, dtype=float)
        goal = np.asarray(position, dtype=float)
        turn = 2 * math.acos(min(1.0, abs(float(q0 @ q1))))
        n = max(
            1, math.ceil(float(np.linalg.norm(goal - start)) / WAYPOINT_M), math.ceil(turn / WAYPOINT_RAD)
        )
        for i in range(1, n + 1):
            waypoint = start + (goal - start) * i / n
            solved = self.lab.ik(waypoint.tolist(), slerp(q0, q1, i / n).tolist())
            self.joints_to(np.array(solved["joints"]))
        self.lab.wait(SETTLE_S)
        return float(np.linalg.norm(np.array(self.lab.state()["hand_position"]) - goal))

    def grip(self, width_m: float) -> None:
        self.lab.gripper(width_m)


class Operator:
    """A reference's hands on one bench: the client, its arm, the calibration and the bench's published
    layout (``calibration()["layout"]``), and the presses every bench's keys and switches take."""

    def __init__(self, lab: Client) -> None:
        self.lab = lab
        self.arm = Arm(lab)
        self.calibration = lab.calibration()
        self.layout: dict[str, list[float]] = self.calibration["layout"]
        self.ready = np.array(lab.state()["joints"])
        """The arm's posture at the start (fingertips down, high in front): the way between one kind of
        work and another."""

    def close_up(self) -> tuple[str, np.ndarray, Camera]:
        """(observation id, the wrist camera's image, its pose) of one observation."""
        seen = self.lab.observe()
        robot = seen["robot"]
        camera = Camera.wrist(self.calibration, robot["hand_position"], robot["hand_quaternion"])
        image = np.asarray(Image.open(io.BytesIO(seen["images"]["wrist"])).convert("RGB"))
        return str(seen["observation_id"]), image, camera

    def read_window(
        self,
        image: np.ndarray,
        camera: Camera,
        window: str,
        cells: int,
        up: Sequence[float] = (0.0, 0.0, 1.0),
        centre: Sequence[float] | None = None,
    ) -> str:
        """The text of the LCD whose window the layout names ``window`` (its centre, and its width and
        height as ``<window>_size``; facing the robot, its top towards ``up``), seen in ``image``; the
        window's ``centre`` where it has moved from the layout's."""
        width, height = self.layout[f"{window}_size"]
        at = self.layout[window] if centre is None else centre
        corners = window_corners(tuple(at), (1.0, 0.0, 0.0), tuple(up), width, height)
        return read_display(image, project(corners, camera), cells)

    def to_ready(self, safe_z: float) -> None:
        """Straight up to ``safe_z`` (from below it), then the starting posture."""
        here = self.lab.state()
        if here["hand_position"][2] < safe_z - 0.02:
            self.arm.line([*here["hand_position"][:2], safe_z], here["hand_quaternion"])
        self.arm.joints_to(self.ready)

    def press(
        self, x: float, y: float, top_z: float, depth: float, clearance: float, orientation: list[float]
    ) -> None:
        """Press down with closed fingertips at (x, y) from ``clearance`` above ``top_z`` to ``depth`` below
        it, and back up."""
        tip = GC_OFFSET + PAD_HALF
        self.lab.gripper(0.0)
        self.arm.line([x, y, top_z + tip + clearance], orientation)
        self.arm.line([x, y, top_z + tip - depth], orientation)
        self.arm.line([x, y, top_z + tip + clearance], orientation)
