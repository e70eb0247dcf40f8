"""Manipulation skills for the lab bench, each a short sequence of the client's T1 calls.

Read them, use them, change them: they know nothing the client does not tell them. Poses are in the world
frame (x right seen from the robot, y away from it, z up; metres). The hand frame: x along the fingers,
y the fingers' closing direction, z the palm side. Every skill returns what it measured or the last state.

    from lab_client import Lab
    from lab_skills import locate, grasp, carry, place, press, push
    lab = Lab()
    grasp(lab, "weight_1")
    carry(lab, [0.0, 0.0, 0.95])
    place(lab, [0.0, 0.0, 0.80])
"""

from __future__ import annotations

import math
from typing import Any

DOWN = [math.sqrt(0.5), 0.0, math.sqrt(0.5), 0.0]
"""The hand pointing down, fingers closing along y."""
DOWN_ACROSS = [0.5, 0.5, 0.5, -0.5]
"""The hand pointing down, fingers closing along x."""
CLEARANCE = 0.10
"""How far above a part the hand approaches and leaves, metres."""
GRIP_DEPTH = 0.015
"""How far below a part's top the finger pads close (never lower than FINGERTIP_CLEARANCE above its
visible bottom, so the fingertips stay off what it stands on)."""
FINGERTIP_CLEARANCE = 0.014
PAD_REACH = 0.1034
"""The control point (hand frame origin) sits this far behind the centre of the finger pads."""
PHYSICS_HZ = 240
"""Joint targets are one per physics step."""
STROKE_SPEED_RAD_S = 0.7
"""A stroke's fastest joint turns at most this fast (about a third of the published limit)."""


def locate(lab: Any, part: str, camera: str = "front") -> dict[str, Any]:
    """Where a part is: the centroid, top and bottom of its visible surface, from ``segment``."""
    seen = lab.segment(part, camera)
    if not seen["points"]:
        raise RuntimeError(f"{part} is not visible from the {camera} camera")
    heights = [p[2] for p in seen["points"]]
    top, bottom = max(heights), min(heights)
    return {"centroid": seen["centroid"], "top": top, "bottom": bottom, "pixels": seen["pixels"]}


def _hand_at(pads: list[float]) -> list[float]:
    """The control point that puts the finger pads' centre at ``pads`` with the hand pointing down."""
    return [pads[0], pads[1], pads[2] + PAD_REACH]


def _close_on(lab: Any, part: str, camera: str, across: bool) -> tuple[float, float, float, list[float]]:
    """Open, come down over the part and close the finger pads on it below its top: (x, y, pads' height,
    hand orientation)."""
    where = locate(lab, part, camera)
    x, y, _ = where["centroid"]
    orientation = DOWN_ACROSS if across else DOWN
    lab.gripper(0.08)
    lab.move_hand(_hand_at([x, y, where["top"] + CLEARANCE]), orientation)
    pads_z = max(where["top"] - GRIP_DEPTH, where["bottom"] + FINGERTIP_CLEARANCE)
    lab.move_hand(_hand_at([x, y, pads_z]), orientation)
    lab.gripper(0.0)
    return x, y, pads_z, orientation


def grasp(lab: Any, part: str, camera: str = "front", across: bool = False) -> dict[str, Any]:
    """Open, come down over the part, close on it below its top, and lift it by the clearance."""
    top = locate(lab, part, camera)["top"]
    x, y, _, orientation = _close_on(lab, part, camera, across)
    return lab.move_hand(_hand_at([x, y, top + CLEARANCE]), orientation)


def carry(lab: Any, above: list[float], across: bool = False) -> dict[str, Any]:
    """Move what the hand holds to the clearance height above the point ``above``: up first if that is
    higher, across at the higher of the two heights, then down (what hangs from the fingers clears what
    stands in between)."""
    x, y, z = above
    orientation = DOWN_ACROSS if across else DOWN
    target = _hand_at([x, y, z + CLEARANCE])
    here = lab.state()["hand_position"]
    high = max(here[2], target[2])
    if here[2] < high:
        lab.move_hand([here[0], here[1], high], orientation)
    if high > target[2]:
        lab.move_hand([x, y, high], orientation)
    return lab.move_hand(target, orientation)


def place(lab: Any, at: list[float], across: bool = False) -> dict[str, Any]:
    """Lower the finger pads to ``at``, open, and withdraw upwards."""
    orientation = DOWN_ACROSS if across else DOWN
    lab.move_hand(_hand_at(at), orientation)
    lab.gripper(0.08)
    return lab.move_hand(_hand_at([at[0], at[1], at[2] + CLEARANCE]), orientation)


def stroke(lab: Any, position: list[float], quaternion: list[float]) -> dict[str, Any]:
    """Move the hand straight to a pose that touches something (a key pressed, a part pushed), which
    ``move_hand`` refuses as a collision: a T0 joint trajectory to the IK solution, at a third of the
    speed limit (a short stroke is near straight in joint space)."""
    start = lab.state()["joints"]
    goal = lab.ik(position, quaternion)["joints"]
    turn = max(abs(b - a) for a, b in zip(start, goal, strict=True))
    steps = max(24, math.ceil(turn / (STROKE_SPEED_RAD_S / PHYSICS_HZ)))
    return lab.move_joints([[a + (b - a) * k / steps for a, b in zip(start, goal, strict=True)]
                            for k in range(1, steps + 1)])  # fmt: skip


def press(
    lab: Any, part: str, depth: float = 0.004, camera: str = "front", across: bool = False
) -> dict[str, Any]:
    """Press a key or switch straight down with closed fingers by ``depth`` below its top, then let go
    (``across``: the hand turned with its fingers closing along x, its long side along the bench)."""
    where = locate(lab, part, camera)
    x, y, _ = where["centroid"]
    orientation = DOWN_ACROSS if across else DOWN
    lab.gripper(0.0)
    lab.move_hand(_hand_at([x, y, where["top"] + 0.03]), orientation)
    stroke(lab, _hand_at([x, y, where["top"] - depth]), orientation)
    return stroke(lab, _hand_at([x, y, where["top"] + 0.03]), orientation)


def push(
    lab: Any, part: str, direction: list[float], distance: float, camera: str = "front"
) -> dict[str, Any]:
    """Push a part horizontally by ``distance`` along ``direction`` with closed fingers, starting behind
    it at half its visible height."""
    where = locate(lab, part, camera)
    dx, dy = direction[0], direction[1]
    norm = math.hypot(dx, dy)
    if norm == 0:
        raise ValueError("direction must have a horizontal component")
    dx, dy = dx / norm, dy / norm
    x, y, _ = where["centroid"]
    z = (where["top"] + where["bottom"]) / 2
    start = [x - dx * 0.04, y - dy * 0.04, z]
    lab.gripper(0.0)
    lab.move_hand(_hand_at([start[0], start[1], where["top"] + 0.05]), DOWN)
    lab.move_hand(_hand_at(start), DOWN)
    end = [start[0] + dx * distance, start[1] + dy * distance, z]
    stroke(lab, _hand_at(end), DOWN)
    return stroke(lab, _hand_at([end[0], end[1], where["top"] + 0.05]), DOWN)


def slide(
    lab: Any, part: str, along: list[float], distance: float, camera: str = "front", across: bool = False
) -> dict[str, Any]:
    """Slide a carriage or slider along its rail: close on it from above, draw the hand ``distance``
    along the horizontal direction ``along``, let go and withdraw upwards."""
    dx, dy = along[0], along[1]
    norm = math.hypot(dx, dy)
    if norm == 0:
        raise ValueError("along must have a horizontal component")
    x, y, pads_z, orientation = _close_on(lab, part, camera, across)
    end = [x + dx / norm * distance, y + dy / norm * distance]
    stroke(lab, _hand_at([end[0], end[1], pads_z]), orientation)
    lab.gripper(0.08)
    return stroke(lab, _hand_at([end[0], end[1], pads_z + CLEARANCE]), orientation)
