"""The circuit board's operator for reference experimenters: carry a component box between its pad and the
socket, rock the supply on or off, step its setting with the UP key, and read the meters' LCDs from an
overhead close-up. Every position comes from the bench's published layout (``calibration()["layout"]``).
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from PIL import Image

from actloop.suites.lab.reference.display import Camera, project, read_display, window_corners
from actloop.suites.lab.reference.motion import GC_OFFSET, PAD_HALF, Client, Operator, quaternion

ROCKER_ARM = 0.016
"""The rocker is pressed this far in front of (on) or behind (off) its pivot."""
KEY_PRESS_M = 0.0035
PRESS_CLEARANCE = 0.03
"""A press starts and ends this far above what it presses."""
WRIST_BACK_M = 0.09
"""The wrist camera sits this far along the palm side of the hand frame."""
VIEW_HEIGHT = 0.22
SAFE_Z = 0.98
HAND = quaternion((0.0, 0.0, -1.0), (-1.0, 0.0, 0.0))
"""Fingertips down, palm side away from the robot: the wrist camera looks down with the far side up."""
IMAGES_PER_SETTING = 3
SETTLE_S = 0.8
READ_GAP_S = 0.3
MAX_UNREAD = 3
"""Images per setting that may fail to read before the operator gives up."""


class BoardOperator(Operator):
    """Works the board of a connected client; ``cells`` gives each meter's LCD character cells (by name)."""

    def __init__(self, lab: Client, cells: Mapping[str, int]) -> None:
        super().__init__(lab)
        self.cells = dict(cells)
        self.setting = 0

    def to(self, x: float, y: float, z: float) -> None:
        self.arm.line([x, y, z], HAND)

    def above(self, x: float, y: float) -> None:
        """Rise to the safe height, then cross to above (x, y)."""
        here = self.lab.state()["hand_position"]
        if here[2] < SAFE_Z - 0.01:
            self.to(here[0], here[1], SAFE_Z)
        self.to(x, y, SAFE_Z)

    def rise(self) -> None:
        """Rise straight up to the safe height."""
        here = self.lab.state()["hand_position"]
        self.to(here[0], here[1], SAFE_Z)

    # --- boxes ---
    def carry_box(self, start: str, end: str) -> None:
        """Carry the box standing at layout place ``start`` (a pad, the socket) to set it down at ``end``."""
        (sx, sy, sz), (ex, ey, ez) = self.layout[start], self.layout[end]
        grip = self.layout["box_size"][2] - PAD_HALF + GC_OFFSET
        self.lab.gripper(0.055)
        self.above(sx, sy)
        self.to(sx, sy, sz + grip)
        self.lab.gripper(0.0)
        self.to(sx, sy, SAFE_Z)
        self.to(ex, ey, SAFE_Z)
        self.to(ex, ey, ez + 0.0015 + grip)
        self.lab.gripper(0.055)
        self.to(ex, ey, SAFE_Z)

    # --- the supply ---
    def rocker(self, on: bool) -> None:
        x, y, z = self.layout["rocker"]
        self.above(x, y)
        self.press(x, y + (-ROCKER_ARM if on else ROCKER_ARM), z, 0.001, PRESS_CLEARANCE, HAND)

    def set_to(self, volts: int) -> None:
        """Raise the supply's setting to ``volts`` steps with the UP key."""
        x, y, z = self.layout["key_up"]
        self.above(x, y)
        while self.setting < volts:
            self.press(x, y, z, KEY_PRESS_M, PRESS_CLEARANCE, HAND)
            self.setting += 1

    def press_rec(self) -> None:
        """Press the REC key: the logger starts (or stops) recording the meters."""
        x, y, z = self.layout["key_rec"]
        self.above(x, y)
        self.press(x, y, z, KEY_PRESS_M, PRESS_CLEARANCE, HAND)

    # --- the meters ---
    def read_meters(self) -> list[tuple[str, dict[str, float]]]:
        """(observation id, every meter's value) from IMAGES_PER_SETTING overhead images of the LCDs."""
        centres = [self.layout[f"{name}_lcd"] for name in self.cells]
        x = (min(c[0] for c in centres) + max(c[0] for c in centres)) / 2
        y, z = centres[0][1] - WRIST_BACK_M, centres[0][2] + VIEW_HEIGHT
        self.above(x, y)
        self.to(x, y, z)
        self.lab.wait(SETTLE_S)
        readings = []
        for _ in range(IMAGES_PER_SETTING + MAX_UNREAD):
            seen = self.lab.observe()
            try:
                values = self.read(seen)
            except ValueError:
                continue  # a face read without confidence: look again
            finally:
                self.lab.wait(READ_GAP_S)
            readings.append((str(seen["observation_id"]), values))
            if len(readings) == IMAGES_PER_SETTING:
                return readings
        raise RuntimeError("the meters could not be read")

    def read(self, seen: dict[str, Any]) -> dict[str, float]:
        """Every meter's value in an observation's wrist image."""
        robot = seen["robot"]
        camera = Camera.wrist(self.calibration, robot["hand_position"], robot["hand_quaternion"])
        image = np.asarray(Image.open(io.BytesIO(seen["images"]["wrist"])).convert("RGB"))
        size = self.layout["lcd_window_size"]
        values = {}
        for name, cells in self.cells.items():
            corners = window_corners(tuple(self.layout[f"{name}_lcd"]), (1, 0, 0), (0, 1, 0), *size)
            values[name] = float(read_display(image, project(corners, camera), cells))
        return values


GRID = 60
GOLDEN_STEPS = 50


def _exponentials(
    t: np.ndarray, ys: list[np.ndarray], rate: float
) -> tuple[float, list[tuple[float, float]]]:
    """The summed squared residuals of each ``y`` fitted as a + b e^(−rate t) (t from the first sample), and
    each (a, b)."""
    e = np.exp(-rate * (t - t[0]))
    n, se, see = len(t), float(e.sum()), float(e @ e)
    det = n * see - se * se
    total, fits = 0.0, []
    for y in ys:
        sy, sye = float(y.sum()), float(y @ e)
        b = (n * sye - se * sy) / det
        a = (sy - b * se) / n
        total += float(np.sum((y - a - b * e) ** 2))
        fits.append((a, b))
    return total, fits


def fit_exponentials(t: np.ndarray, ys: list[np.ndarray]) -> tuple[float, list[tuple[float, float]]]:
    """(τ, each (a, b)) of curves ``ys`` sampled at ``t`` fitted as a + b e^(−(t − t0)/τ) with one τ: τ
    minimises the summed squared residuals of the curves, each scaled by its span (a log grid of τ from
    half the sampling interval to a hundred times the record's length, then a golden-section search)."""
    scales = [float(np.ptp(y)) or 1.0 for y in ys]
    scaled = [y / s for y, s in zip(ys, scales, strict=True)]
    span = float(t[-1] - t[0])
    step = float(np.median(np.diff(t)))
    grid = np.exp(np.linspace(math.log(0.01 / span), math.log(2.0 / step), GRID))
    best = int(np.argmin([_exponentials(t, scaled, k)[0] for k in grid]))
    low, high = math.log(grid[max(best - 1, 0)]), math.log(grid[min(best + 1, GRID - 1)])
    golden = (math.sqrt(5) - 1) / 2
    for _ in range(GOLDEN_STEPS):
        a, b = high - golden * (high - low), low + golden * (high - low)
        if _exponentials(t, scaled, math.exp(a))[0] < _exponentials(t, scaled, math.exp(b))[0]:
            high = b
        else:
            low = a
    rate = math.exp((low + high) / 2)
    _, fits = _exponentials(t, scaled, rate)
    return 1.0 / rate, [(a * s, b * s) for (a, b), s in zip(fits, scales, strict=True)]
