"""The reference experimenter for the black-box resistor, through the public client only.

It carries the box from its pad into the board's socket, presses the supply's rocker on, and at several
settings (raised with the UP key) reads both meters from overhead close-ups of their LCDs, a few images per
setting. The slope of the current against the voltage gives the resistance in parallel with the voltmeter's
published input resistance (the meters' zero errors fall out of a slope), from which R follows. It then
switches the supply off, puts the box back on its pad and submits R with every reading it rests on.

Besides the card it knows the bench's visible layout: where the pad, the socket, the rocker, the keys and
the LCD windows are, and the windows' size.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from PIL import Image

from actloop.suites.lab.reference.display import Camera, project, read_display, window_corners
from actloop.suites.lab.reference.motion import GC_OFFSET, Arm, Client, quaternion

TABLE_Z = 0.74
BOARD_Z = 0.752
BOX_HOME = (-0.07, -0.19)
SOCKET = (0.0, -0.05)
BOX_HEIGHT = 0.044
ROCKER = (0.19, -0.07, 0.798)
"""The rocker's pivot; its front end (towards the robot) switches the supply on."""
ROCKER_ARM = 0.016
UP_KEY = (0.235, -0.085, 0.803)
"""The UP key's centre and the height of its top."""
KEY_PRESS_M = 0.0035
LCDS = {"voltmeter": ((0.0, 0.085), 6), "ammeter": ((0.115, 0.085), 7)}
"""Each meter's LCD window centre and character cells."""
LCD_Z = 0.7701
LCD_SIZE = (0.07, 0.02)
PAD_HALF = 0.012
WRIST_BACK_M = 0.09
"""The wrist camera sits this far along the palm side of the hand frame."""
VIEW_HEIGHT = 0.22
SAFE_Z = 0.98
HAND = quaternion((0.0, 0.0, -1.0), (-1.0, 0.0, 0.0))
"""Fingertips down, palm side away from the robot: the wrist camera looks down with the far side up."""
SETTINGS = (2, 4, 6, 8, 10)
IMAGES_PER_SETTING = 3
SETTLE_S = 0.8
READ_GAP_S = 0.3
MAX_UNREAD = 3
"""Images per setting that may fail to read before the reference gives up."""


class Experimenter:
    def __init__(self, lab: Client) -> None:
        self.lab = lab
        self.arm = Arm(lab)
        self.calibration = lab.calibration()
        self.setting = 0

    def to(self, x: float, y: float, z: float) -> None:
        self.arm.line([x, y, z], HAND)

    def above(self, x: float, y: float) -> None:
        """Rise to the safe height, then cross to above (x, y)."""
        here = self.lab.state()["hand_position"]
        if here[2] < SAFE_Z - 0.01:
            self.to(here[0], here[1], SAFE_Z)
        self.to(x, y, SAFE_Z)

    # --- the box ---
    def carry_box(self, start: tuple[float, float, float], end: tuple[float, float, float]) -> None:
        """Carry the box from underside height ``start`` (x, y, z) to set it down at ``end``."""
        grip = BOX_HEIGHT - PAD_HALF + GC_OFFSET
        self.lab.gripper(0.055)
        self.above(start[0], start[1])
        self.to(start[0], start[1], start[2] + grip)
        self.lab.gripper(0.0)
        self.to(start[0], start[1], SAFE_Z)
        self.to(end[0], end[1], SAFE_Z)
        self.to(end[0], end[1], end[2] + 0.0015 + grip)
        self.lab.gripper(0.055)
        self.to(end[0], end[1], SAFE_Z)

    # --- the supply ---
    def press(self, x: float, y: float, top_z: float, depth: float) -> None:
        """Press down with closed fingertips at (x, y) to ``depth`` below ``top_z``, and let go."""
        tip = GC_OFFSET + PAD_HALF
        self.lab.gripper(0.0)
        self.to(x, y, top_z + tip + 0.03)
        self.to(x, y, top_z + tip - depth)
        self.to(x, y, top_z + tip + 0.03)

    def rocker(self, on: bool) -> None:
        x, y, z = ROCKER
        self.above(x, y)
        self.press(x, y + (-ROCKER_ARM if on else ROCKER_ARM), z, 0.001)

    def set_to(self, volts: int) -> None:
        x, y, z = UP_KEY
        self.above(x, y)
        while self.setting < volts:
            self.press(x, y, z, KEY_PRESS_M)
            self.setting += 1

    # --- the meters ---
    def read_meters(self) -> list[tuple[str, float, float]]:
        """(observation id, volts, milliamperes) from overhead images of both LCDs."""
        xs = [c[0] for c, _ in LCDS.values()]
        y = LCDS["voltmeter"][0][1]
        self.above((min(xs) + max(xs)) / 2, y - WRIST_BACK_M)
        self.to((min(xs) + max(xs)) / 2, y - WRIST_BACK_M, LCD_Z + VIEW_HEIGHT)
        self.lab.wait(SETTLE_S)
        readings = []
        for _ in range(IMAGES_PER_SETTING + MAX_UNREAD):
            seen = self.lab.observe()
            try:
                values = self._read(seen)
            except ValueError:
                continue  # a face read without confidence: look again
            finally:
                self.lab.wait(READ_GAP_S)
            readings.append((str(seen["observation_id"]), values["voltmeter"], values["ammeter"]))
            if len(readings) == IMAGES_PER_SETTING:
                return readings
        raise RuntimeError("the meters could not be read")

    def _read(self, seen: dict[str, Any]) -> dict[str, float]:
        """Both meters' values in an observation's wrist image."""
        robot = seen["robot"]
        camera = Camera.wrist(self.calibration, robot["hand_position"], robot["hand_quaternion"])
        image = np.asarray(Image.open(io.BytesIO(seen["images"]["wrist"])).convert("RGB"))
        values = {}
        for name, ((cx, cy), cells) in LCDS.items():
            corners = window_corners((cx, cy, LCD_Z), (1, 0, 0), (0, 1, 0), *LCD_SIZE)
            values[name] = float(read_display(image, project(corners, camera), cells))
        return values


def fit_resistance(points: list[tuple[float, float]], voltmeter_ohms: float) -> float:
    """R (ohm) from (volts, milliamperes) readings: the least-squares slope of current against voltage is
    1/R + 1/R_V (the ammeter carries the voltmeter's current); zero errors only shift the line."""
    n = len(points)
    mean_v = sum(v for v, _ in points) / n
    mean_i = sum(i for _, i in points) / n
    slope = sum((v - mean_v) * (i - mean_i) for v, i in points) / sum((v - mean_v) ** 2 for v, _ in points)
    return 1.0 / (slope / 1000.0 - 1.0 / voltmeter_ohms)


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    voltmeter_ohms = public["voltmeter_resistance"]
    me = Experimenter(lab)
    me.carry_box((*BOX_HOME, TABLE_Z), (*SOCKET, BOARD_Z))
    me.rocker(on=True)
    citations, points = [], []
    for volts in SETTINGS:
        me.set_to(volts)
        for observation, v, i in me.read_meters():
            citations += [
                {"observation_id": observation, "instrument": "voltmeter", "value": v},
                {"observation_id": observation, "instrument": "ammeter", "value": i},
            ]
            points.append((v, i))
    me.rocker(on=False)
    me.carry_box((*SOCKET, BOARD_Z), (*BOX_HOME, TABLE_Z))
    here = lab.state()["hand_position"]
    me.to(here[0], here[1], SAFE_Z)
    ohms = fit_resistance(points, voltmeter_ohms)
    if not math.isfinite(ohms) or ohms <= 0:
        raise RuntimeError("the readings give no resistance")
    return lab.submit({"R": ohms}, citations)
