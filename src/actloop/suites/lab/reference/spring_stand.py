"""The spring stand's operator for reference experimenters: carry a weight between its place in the rack and
the tray (stacking the fifth), step back and let the tray settle, and read the ruler at the pointer from a
level close-up. Every position of the bench comes from its published layout (``calibration()["layout"]``);
the pointer's height is found in the images.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from PIL import Image

from actloop.suites.lab.reference.motion import GC_OFFSET, Client, Operator, quaternion
from actloop.suites.lab.reference.ruler import read_ruler

SPOTS = ((-0.035, 0.02), (0.035, 0.02), (-0.035, -0.02), (0.035, -0.02))
"""Where weights 1-4 go on the tray plate (from its centre): the back row first, so no weight is carried
over one already on the tray, and far enough apart along the fingers' closing direction that open fingers
never touch a neighbour."""
STACKED = {5: 4}
"""Weights that stand on another weight on the tray (slotted weights stack): weight 5 on weight 4, the last
placed, at the front."""
MARKS_INSET_M = 0.004
"""The camera faces the ruler this far in from its marked edge, where the marks meet the pointer's tip."""
FACE_CLEARANCE_M = 0.0001
"""The view distance counts from just in front of the ruler's face."""
WRIST_UP_M = 0.09
"""The wrist camera sits this far along the palm side from the hand frame and looks along the approach."""
VIEW_DISTANCE = 0.12
POINTER_GUESS_Z = 1.0
"""Where the first search for the pointer starts from (it sweeps up from below this)."""
SAFE_Z = 1.18
CARRY_Z = 1.22
"""The hand's height while it carries a weight: the weight clears those standing on the tray, stacked too."""
CARRY_SPEED = 0.35
"""The fraction of its usual speed the arm moves at while it holds a weight: under fast starts and stops a
weight creeps sideways in the fingers (a few mm per carry at full speed, enough to lose it in two)."""
FRONT_Y = -0.25
SETTLE_S = 8.0
RE_READ_SHIFT_M = 0.006
"""How far the second close-up is raised (the third lowered) from level with the pointer."""
AGREE_MM = 0.4
"""Two reads of one settled pointer agree when they differ by no more than this."""
LOOK = quaternion((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))
"""Approach towards the ruler, palm side up: the wrist camera looks at the ruler's face, upright."""


def ruler_view(layout: Mapping[str, Sequence[float]]) -> tuple[float, float]:
    """Where on the ruler the close-ups look (x) and the face the view distance counts from (y)."""
    edge, face = layout["ruler_face"]
    return edge + MARKS_INSET_M, face - FACE_CLEARANCE_M


class StandOperator(Operator):
    """Works the spring stand of a connected client."""

    def __init__(self, lab: Client) -> None:
        super().__init__(lab)
        self.ruler = ruler_view(self.layout)
        self.weight_height = self.layout["weight_size"][1]
        self.pointer_z = POINTER_GUESS_Z

    # --- reading ---
    def _look_from(self, camera_z: float) -> dict[str, Any]:
        """Put the wrist camera level with ``camera_z`` in front of the ruler and take an observation. The
        hand comes from the open space in front of the bench at that height, passing under the tray."""
        hand_z = camera_z - WRIST_UP_M
        x, face = self.ruler
        here = self.lab.state()["hand_position"]
        if here[1] < face - VIEW_DISTANCE - 0.05:  # not yet in front of the ruler
            self.arm.line([x, FRONT_Y, hand_z], LOOK)
        self.arm.line([x, face - VIEW_DISTANCE, hand_z], LOOK)
        return self.lab.observe()

    def _image(self, seen: dict[str, Any]) -> np.ndarray:
        return np.asarray(Image.open(io.BytesIO(seen["images"]["wrist"])).convert("RGB"))

    def _camera_z(self) -> float:
        return float(self.lab.state()["hand_position"][2]) + WRIST_UP_M

    def _pointer_height(self, image: np.ndarray) -> float:
        """World height of the pointer seen in a level close-up (pinhole model, published intrinsics)."""
        reading = read_ruler(image)
        intrinsics = self.calibration["wrist"]["intrinsics"]
        offset = (intrinsics["cy"] - reading.pointer_row) / intrinsics["fy"] * VIEW_DISTANCE
        return self._camera_z() + offset

    def read_agreed(self) -> list[tuple[str, float]]:
        """Readings of the settled pointer that agree: two close-ups from slightly different heights (the
        marks and labels fall on other pixels), and a third when they differ, keeping the two closest. A
        misread label is off by whole centimetres, so two agreeing reads rule it out."""
        readings = [self.read(), self.read(RE_READ_SHIFT_M)]
        if abs(readings[0][1] - readings[1][1]) > AGREE_MM:
            readings.append(self.read(-RE_READ_SHIFT_M))
            readings = min(
                ([a, b] for i, a in enumerate(readings) for b in readings[i + 1 :]),
                key=lambda pair: abs(pair[0][1] - pair[1][1]),
            )
        if abs(readings[0][1] - readings[1][1]) > AGREE_MM:
            raise RuntimeError(f"three reads of the ruler disagree: {[v for _, v in readings]}")
        return readings

    def read(self, shift_m: float = 0.0) -> tuple[str, float]:
        """Find the pointer (sweeping up from below the tray), put the camera level with it (raised by
        ``shift_m``), read the ruler: (observation id, reading in mm)."""
        self.step_back()
        camera_z = self.pointer_z - 0.09
        for _ in range(12):
            seen = self._look_from(camera_z)
            try:
                self.pointer_z = self._pointer_height(self._image(seen))
                break
            except ValueError:
                camera_z += 0.03
        else:
            raise RuntimeError("the pointer was not found beside the ruler")
        seen = self._look_from(self.pointer_z + shift_m)
        self.pointer_z = self._pointer_height(self._image(seen))
        value = read_ruler(self._image(seen)).value_mm
        return str(seen["observation_id"]), round(value, 1)

    # --- loading ---
    def step_back(self) -> None:
        """Back off to the open space in front of the bench."""
        here = self.lab.state()["hand_position"]
        self.arm.line([here[0], FRONT_Y, max(here[2], 0.95)], self._orientation())

    def settle(self) -> None:
        """Step back and let the tray come to rest."""
        self.step_back()
        self.lab.wait(SETTLE_S)

    def put_on_tray(self, weight: int) -> None:
        """Carry ``weight`` from the rack to its spot on the tray."""
        self.carry(self.in_rack(weight), self.on_tray(weight))

    def back_to_rack(self, weight: int) -> None:
        """Find the tray again (it rises as weights come off) and carry ``weight`` back to the rack."""
        self.read()
        self.carry(self.on_tray(weight), self.in_rack(weight))

    def _orientation(self) -> list[float]:
        q = self.lab.state()["hand_quaternion"]
        return [float(x) for x in q]

    def _down_at(self, x: float, y: float, z: float) -> None:
        """Turn fingertips-down in free space, then go to (x, y, z) at a safe height."""
        self.arm.joints_to(self.ready)
        self.arm.line([x, FRONT_Y, SAFE_Z])
        self.arm.line([x, y, SAFE_Z])
        self.arm.line([x, y, z])

    def carry(self, start: tuple[float, float, float], end: tuple[float, float, float]) -> None:
        """Pick the weight whose centre is at ``start`` and set it down with its centre at ``end``: up,
        straight across above everything on the tray and down, slowly while it holds the weight."""
        self.step_back()
        self.lab.gripper(0.045)  # open enough for a weight, not so wide as to touch its neighbours
        self._down_at(start[0], start[1], start[2] + 0.12)
        self.arm.line([start[0], start[1], start[2] + GC_OFFSET + 0.004])  # fingertips clear the table
        self.lab.gripper(0.0)
        speed = self.arm.speed
        self.arm.speed = speed * CARRY_SPEED
        try:
            self.arm.line([start[0], start[1], CARRY_Z])
            self.arm.line([end[0], end[1], CARRY_Z])
            self.arm.line([end[0], end[1], end[2] + GC_OFFSET + 0.004])
        finally:
            self.arm.speed = speed
        self.lab.gripper(0.06)
        self.arm.line([end[0], end[1], SAFE_Z])
        self.arm.line([end[0], FRONT_Y, SAFE_Z])

    def on_tray(self, weight: int) -> tuple[float, float, float]:
        """Where ``weight``'s centre goes on the tray (on the weight below it, if stacked)."""
        below = STACKED.get(weight)
        dx, dy = SPOTS[(below or weight) - 1]
        x, y = self.layout["tray_plate"]
        plate_top = self.pointer_z - self.layout["pointer_above_plate"][0]
        base = plate_top + (self.weight_height if below else 0.0)
        return (x + dx, y + dy, base + self.weight_height / 2)

    def in_rack(self, weight: int) -> tuple[float, float, float]:
        """Where ``weight``'s centre stands in the rack."""
        x, y, z = self.layout[f"weight_{weight}_place"]
        return (x, y, z + self.weight_height / 2)
