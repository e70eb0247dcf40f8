"""The reference experimenter for Hooke's law, through the public client only.

It reads the pointer on the ruler with the tray empty and with one to five weights on it (taking each
reading from a close-up image once the tray has settled), fits the extension against the load over the
loads that opened the close-wound spring's coils (the tray left its unloaded reading; the empty tray hangs
on the shut coils, off the line), puts every weight back in the rack and submits k with the readings it
rests on.

What it knows besides the card is the bench's visible layout (where the rack, the tray, the ruler stand),
as any experimenter at the bench would; every value comes from the images.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from PIL import Image

from actloop.suites.lab.reference.motion import GC_OFFSET, Arm, Client, quaternion
from actloop.suites.lab.reference.ruler import read_ruler

G = 9.81
RACK = [(0.09 + 0.055 * (i - 1), -0.12) for i in range(1, 6)]
RACK_TOP_Z = 0.74
TRAY_CENTRE = (0.0, 0.01)
SPOTS = ((-0.035, 0.02), (0.035, 0.02), (-0.035, -0.02), (0.035, -0.02))
"""Where weights 1-4 go on the tray plate (from its centre): the back row first, so no weight is carried
over one already on the tray, and far enough apart along the fingers' closing direction that open fingers
never touch a neighbour."""
STACKED = {5: 4}
"""Weights that stand on another weight on the tray (slotted weights stack): weight 5 on weight 4, the last
placed, at the front."""
RULER_FACE = (0.062, 0.0969)
"""Where the ruler's marks meet the pointer (x) and its face (y)."""
WEIGHT_HEIGHT = 0.024
POINTER_ABOVE_PLATE = 0.018
"""The pointer crosses the ruler this far above the tray plate's top."""
WRIST_UP_M = 0.09
"""The wrist camera sits this far along the palm side from the hand frame and looks along the approach."""
VIEW_DISTANCE = 0.12
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
OPEN_MM = 0.5
"""A load has opened the spring's coils when its reading lies at least this far below the unloaded one."""
LOOK = quaternion((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))
"""Approach towards the ruler, palm side up: the wrist camera looks at the ruler's face, upright."""


class Experimenter:
    def __init__(self, lab: Client) -> None:
        self.lab = lab
        self.arm = Arm(lab)
        self.calibration = lab.calibration()
        self.pointer_z = 1.0
        self.ready = np.array(lab.state()["joints"])
        """The arm's posture at the start (fingertips down, high in front): the way between reading and
        carrying."""

    # --- reading ---
    def _look_from(self, camera_z: float) -> dict[str, Any]:
        """Put the wrist camera level with ``camera_z`` in front of the ruler and take an observation. The
        hand comes from the open space in front of the bench at that height, passing under the tray."""
        hand_z = camera_z - WRIST_UP_M
        here = self.lab.state()["hand_position"]
        if here[1] < RULER_FACE[1] - VIEW_DISTANCE - 0.05:  # not yet in front of the ruler
            self.arm.line([RULER_FACE[0], FRONT_Y, hand_z], LOOK)
        self.arm.line([RULER_FACE[0], RULER_FACE[1] - VIEW_DISTANCE, hand_z], LOOK)
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
        ``shift_m``), read the ruler."""
        self._away_from_tray()
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

    # --- carrying ---
    def _away_from_tray(self) -> None:
        """Back off to the open space in front of the bench."""
        here = self.lab.state()["hand_position"]
        self.arm.line([here[0], FRONT_Y, max(here[2], 0.95)], self._orientation())

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
        self._away_from_tray()
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
        below = STACKED.get(weight)
        dx, dy = SPOTS[(below or weight) - 1]
        base = self.pointer_z - POINTER_ABOVE_PLATE + (WEIGHT_HEIGHT if below else 0.0)
        return (TRAY_CENTRE[0] + dx, TRAY_CENTRE[1] + dy, base + WEIGHT_HEIGHT / 2)

    @staticmethod
    def in_rack(weight: int) -> tuple[float, float, float]:
        x, y = RACK[weight - 1]
        return (x, y, RACK_TOP_Z + WEIGHT_HEIGHT / 2)


def fit_k(readings: list[tuple[float, float]]) -> float:
    """k (N/m) from (load in kg, reading in mm) by least squares: the reading falls by g/k per kg."""
    n = len(readings)
    mean_m = sum(m for m, _ in readings) / n
    mean_r = sum(r for _, r in readings) / n
    slope = sum((m - mean_m) * (r - mean_r) for m, r in readings) / sum(
        (m - mean_m) ** 2 for m, _ in readings
    )
    return 1000.0 * G / -slope


def coils_open(readings: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The (load, reading) pairs taken with weights on the tray whose reading lies OPEN_MM or more below
    the empty tray's (mean) reading: the loads that opened the close-wound spring's coils."""
    unloaded = [r for m, r in readings if m == 0]
    if not unloaded:
        raise ValueError("no reading of the empty tray")
    rest = sum(unloaded) / len(unloaded)
    return [(m, r) for m, r in readings if m > 0 and r <= rest - OPEN_MM]


def solve(lab: Client, public: Mapping[str, float], loads: int = 5) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    weight_mass = public["weight_mass"]
    me = Experimenter(lab)
    cited: list[tuple[int, dict[str, Any]]] = []
    points = []
    for n in range(loads + 1):
        if n:
            me.carry(me.in_rack(n), me.on_tray(n))
        me._away_from_tray()
        lab.wait(SETTLE_S)
        for observation, value in me.read_agreed():
            cited.append((n, {"observation_id": observation, "instrument": "ruler", "value": value}))
            points.append((n * weight_mass, value))
    for n in range(loads, 0, -1):
        me.read()  # the tray rises as weights come off: find it again before each grasp
        me.carry(me.on_tray(n), me.in_rack(n))
    me._away_from_tray()
    fitted = coils_open(points)
    if len({m for m, _ in fitted}) < 2:
        raise RuntimeError("fewer than two loads opened the spring's coils")
    k = fit_k(fitted)
    if not math.isfinite(k):
        raise RuntimeError("the readings give no stiffness")
    kept = {round(m / weight_mass) for m, _ in fitted} | {0}  # the fitted loads and the unloaded one
    return lab.submit({"k": k}, [c for n, c in cited if n in kept])
