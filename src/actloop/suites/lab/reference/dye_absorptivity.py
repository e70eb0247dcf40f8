"""The reference experimenter for dye absorptivity, through the public client only.

With a dilute cuvette seated it sweeps the wavelength in coarse steps (holding λ+), then with the solvent
blank seated the same sweep gives the lamp's baseline: their difference locates the band. It zeroes on
the blank at the coarse peak, records the blank's baseline and the dye's absorbance at every nanometre
around it, and takes λmax from a quartic fitted to the difference. At the wavelength nearest λmax it reads
the dye cuvettes whose absorbance lies on the straight part of the instrument's response, fits ε through
the origin by Beer–Lambert (1 cm), puts every cuvette back and submits with the readings it rests on.

What it knows besides the card is the bench's visible layout (where the rack, the holder, the keys and the
LCDs are); every value comes from images of the LCDs.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from actloop.suites.lab.reference.display import Camera, project, read_display, window_corners
from actloop.suites.lab.reference.motion import Arm, Client, quaternion

TABLE_Z = 0.74
DECK_Z = 0.83
RACK = [(0.10 + 0.04 * i, -0.16) for i in range(7)]
HOLDER = (0.08, 0.05)
CUVETTE_HEIGHT = 0.05
KEYS = {"lambda_down": (-0.10, 0.02), "lambda_up": (-0.06, 0.02), "blank": (-0.02, 0.02)}
KEY_TOP_Z = DECK_Z + 0.014
"""The key caps' tops at rest; a key switches 3 mm down and stops 5 mm down."""


@dataclass(frozen=True)
class Face:
    """An LCD lying flat on the deck, digits upright for a reader in front (its window's centre and size)."""

    centre: tuple[float, float, float]
    width: float
    height: float
    cells: int


FACES = {
    "wavelength": Face((-0.06, 0.11, DECK_Z + 0.0021), 3 * 0.55 * 0.016, 0.016, 3),
    "absorbance": Face((-0.06, 0.085, DECK_Z + 0.0021), 5 * 0.55 * 0.016, 0.016, 5),
}
GC_OFFSET = 0.1034
"""Hand control frame to the centre of the finger pads, along the approach axis."""
PRESS = quaternion((0.0, 0.0, -1.0), (-1.0, 0.0, 0.0))
"""Fingertips down, palm side away from the robot: the wrist camera looks down on the LCDs behind the
keys while a fingertip presses one."""
GRIP_BELOW_TOP = 0.012
SAFE_Z = 1.0
FRONT_Y = -0.25
HOVER_M = 0.006
PRESS_DEPTH_M = 0.0045
REFRESH_S = 0.5


class Experimenter:
    def __init__(self, lab: Client) -> None:
        self.lab = lab
        self.arm = Arm(lab)
        self.calibration = lab.calibration()
        self._poses: dict[tuple[str, str], np.ndarray] = {}

    # --- the keys and the LCDs ---
    def _key_pose(self, key: str, pressed: bool) -> np.ndarray:
        """Joint angles with the fingertips just above ``key`` or pressing it (solved once each)."""
        if (key, str(pressed)) not in self._poses:
            x, y = KEYS[key]
            z = KEY_TOP_Z + (-PRESS_DEPTH_M if pressed else HOVER_M) + GC_OFFSET + 0.012
            solved = self.lab.ik([x, y, z], PRESS)
            self._poses[key, str(pressed)] = np.array(solved["joints"])
        return self._poses[key, str(pressed)]

    def go_to_keys(self, key: str = "lambda_up") -> None:
        """Bring the closed hand over the keys from above."""
        x, y = KEYS[key]
        self.lab.gripper(0.0)
        self.arm.line([x, y - 0.04, SAFE_Z], PRESS)
        self.arm.line([x, y, KEY_TOP_Z + HOVER_M + GC_OFFSET + 0.012], PRESS)
        self.arm.joints_to(self._key_pose(key, False))

    def press(self, key: str, hold_s: float = 0.1) -> None:
        """Push ``key`` down, hold it ``hold_s`` seconds, let it up (the hand over it)."""
        self.arm.joints_to(self._key_pose(key, False))
        self.arm.joints_to(self._key_pose(key, True))
        self.lab.wait(hold_s)
        self.arm.joints_to(self._key_pose(key, False))

    def read(self) -> tuple[str, float, float | None]:
        """Observe once the displays have refreshed; (observation id, wavelength, absorbance or None
        for OL) read from the wrist camera."""
        self.lab.wait(1.2 * REFRESH_S)
        seen = self.lab.observe()
        image = np.asarray(Image.open(io.BytesIO(seen["images"]["wrist"])).convert("RGB"))
        robot = seen["robot"]
        camera = Camera.wrist(self.calibration, robot["hand_position"], robot["hand_quaternion"])
        texts = {}
        for name, face in FACES.items():
            corners = window_corners(face.centre, (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), face.width, face.height)
            texts[name] = read_display(image, project(corners, camera), face.cells)
        absorbance = None if texts["absorbance"] == "OL" else float(texts["absorbance"])
        return str(seen["observation_id"]), float(texts["wavelength"]), absorbance

    # --- the cuvettes ---
    def carry(self, start: tuple[float, float, float], end: tuple[float, float, float]) -> None:
        """Lift the cuvette standing on the floor at ``start`` (x, y, floor z) and stand it at ``end``."""
        top = start[2] + CUVETTE_HEIGHT
        self.lab.gripper(0.03)
        self.arm.line([start[0], start[1], SAFE_Z], PRESS)
        self.arm.line([start[0], start[1], top + 0.03 + GC_OFFSET], PRESS)
        self.arm.line([start[0], start[1], top - GRIP_BELOW_TOP + GC_OFFSET], PRESS)
        self.lab.gripper(0.0)
        self.arm.line([start[0], start[1], SAFE_Z], PRESS)
        self.arm.line([end[0], end[1], SAFE_Z], PRESS)
        drop = end[2] + CUVETTE_HEIGHT + 0.002
        self.arm.line([end[0], end[1], drop + 0.03 - GRIP_BELOW_TOP + GC_OFFSET], PRESS)
        self.arm.line([end[0], end[1], drop - GRIP_BELOW_TOP + GC_OFFSET], PRESS)
        self.lab.gripper(0.03)
        self.arm.line([end[0], end[1], SAFE_Z], PRESS)
