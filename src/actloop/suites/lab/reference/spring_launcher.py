"""The reference experimenter for the spring launcher's range at the set notch, through the public client
only.

For four notches other than the set one it grips the latch knob across the slot, slides it to the notch and
lets go, presses FIRE and, while the ball flies, moves to a level wrist close-up of the console; once the ball
has landed it reads the RANGE and NOTCH LCDs there. Each range R gives the muzzle speed's square from the
printed elevation θ and the muzzle's height h above the landing plane (the published cup centre less the sand
surface and the ball's radius): v² = g R² / (2 cos² θ (h + R tan θ)). It fits v² = a x² − b x to the notches'
printed compressions by least squares, and predicts the set notch's range from its v². It submits with the
four range readings.

Besides the card it knows the bench's published layout (the cup, the sand's surface, the latch knob at each
notch, the FIRE key, the LCD windows) and that the latch starts at notch 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from actloop.suites.lab.reference.motion import GC_OFFSET, Client, Operator, quaternion

ELEVATION_DEG = 35.0
COMPRESSIONS_MM = (8.0, 12.0, 16.0, 20.0, 24.0, 28.0)
BALL_RADIUS = 0.0085
G = 9.81
"""The card's: the barrel's elevation, the notches' compressions, the ball's radius; the bench's gravity."""
OPEN_M = 0.045
SAFE_Z = 1.0
"""The hand crosses the bench this high..."""
KEYS_Z = 1.2
"""...and this high over the console."""
KNOB_GRIP_ABOVE = 0.004
"""The grasp centre stands this far above the knob's centre (the fingertips clear of the gun's body)."""
KEY_PRESS_M = 0.0055
PRESS_CLEARANCE = 0.02
FLIGHT_S = 1.3
"""Longer than a flight from the top notch and the LCD's refresh after it."""
VIEW_FROM = (0.0, -0.16, 0.0)
WRIST_UP_M = 0.09
"""The wrist camera looks at the console from here relative to the middle of its LCD windows, level."""
ACROSS = quaternion((0.0, 0.0, -1.0), (1.0, 0.0, 0.0))
"""Fingertips down, closing along x: across the latch's slot, so the fingers push the knob along it."""
LOOK = quaternion((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))
"""Approach towards the console, palm side up: the wrist camera sees its LCDs upright."""


def shot_notches(set_notch: int) -> list[int]:
    """The four notches fired: the four highest below or around the set one, never it."""
    others = [n for n in range(len(COMPRESSIONS_MM), 0, -1) if n != set_notch]
    return sorted(others[:4])


class LauncherOperator(Operator):
    """Works the spring launcher: slides the latch, presses FIRE, reads the console."""

    def __init__(self, lab: Client) -> None:
        super().__init__(lab)
        self.notch = 1

    def to(self, position: Sequence[float], orientation: list[float] = ACROSS) -> None:
        self.arm.line(list(position), orientation)

    def above(self, x: float, y: float, z: float = SAFE_Z) -> None:
        here = self.lab.state()["hand_position"]
        if here[2] < z - 0.02:
            self.to([here[0], here[1], z], self.lab.state()["hand_quaternion"])
        self.to([x, y, z])

    def slide_latch(self, notch: int) -> None:
        """Grip the knob, slide it to ``notch``, let go and rise."""
        if notch == self.notch:
            return
        x, y, z = self.layout[f"latch_notch_{self.notch}"]
        tx = self.layout[f"latch_notch_{notch}"][0]
        grip_z = z + KNOB_GRIP_ABOVE + GC_OFFSET
        self.lab.gripper(OPEN_M)
        self.to_ready(KEYS_Z)
        self.above(x, y)
        self.to([x, y, grip_z + 0.05])
        self.to([x, y, grip_z])
        self.lab.gripper(0.0)
        self.to([tx, y, grip_z])
        self.lab.gripper(OPEN_M)
        self.to([tx, y, grip_z + 0.06])
        self.notch = notch

    def fire(self) -> None:
        x, y, top = self.layout["fire"]
        self.above(x, y, KEYS_Z)
        self.press(x, y, top, KEY_PRESS_M, PRESS_CLEARANCE, ACROSS)

    def to_console_view(self) -> None:
        x, y, z = np.mean([self.layout["range_lcd"], self.layout["notch_lcd"]], axis=0)
        view = [x + VIEW_FROM[0], y + VIEW_FROM[1], z + VIEW_FROM[2] - WRIST_UP_M]
        self.to_ready(KEYS_Z)
        self.to([view[0], view[1], KEYS_Z - WRIST_UP_M], LOOK)
        self.to(view, LOOK)

    def read_console(self) -> tuple[str, float, int]:
        """(observation id, the RANGE LCD (mm), the NOTCH LCD) from one close-up."""
        observation, image, camera = self.close_up()
        shown = float(self.read_window(image, camera, "range_lcd", 4))
        notch = int(float(self.read_window(image, camera, "notch_lcd", 1)))
        return observation, shown, notch

    def shoot(self, notch: int) -> tuple[str, float]:
        """Fire from ``notch``; (observation id, the range it shows, mm)."""
        self.slide_latch(notch)
        self.fire()
        self.to_console_view()
        self.lab.wait(FLIGHT_S)
        observation, shown, read_notch = self.read_console()
        if read_notch != notch:
            raise RuntimeError(f"the NOTCH LCD shows {read_notch} after the latch was set to {notch}")
        return observation, shown


def speed_squared(range_m: float, height: float) -> float:
    """v² of a launch at the card's elevation landing ``range_m`` away, ``height`` below the muzzle."""
    theta = math.radians(ELEVATION_DEG)
    return G * range_m**2 / (2 * math.cos(theta) ** 2 * (height + range_m * math.tan(theta)))


def predicted_range(v2: float, height: float) -> float:
    theta = math.radians(ELEVATION_DEG)
    vx, vz = math.sqrt(v2) * math.cos(theta), math.sqrt(v2) * math.sin(theta)
    return vx * (vz + math.sqrt(vz * vz + 2 * G * height)) / G


def predict(ranges: Mapping[int, float], set_notch: int, height: float) -> float:
    """The set notch's range (m) from the ranges (m) of other notches: v² = a x² − b x fitted to them."""
    x = np.array([COMPRESSIONS_MM[n - 1] / 1000 for n in ranges])
    v2 = np.array([speed_squared(r, height) for r in ranges.values()])
    (a, b), *_ = np.linalg.lstsq(np.column_stack([x * x, -x]), v2, rcond=None)
    xs = COMPRESSIONS_MM[set_notch - 1] / 1000
    return predicted_range(float(a * xs * xs - b * xs), height)


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure and submit; returns the submission's answer."""
    set_notch = round(public["notch"])
    launcher = LauncherOperator(lab)
    height = launcher.layout["muzzle"][2] - launcher.layout["sand_z"][0] - BALL_RADIUS
    ranges, citations = {}, []
    for notch in shot_notches(set_notch):
        observation, shown = launcher.shoot(notch)
        ranges[notch] = shown / 1000
        citations.append({"observation_id": observation, "instrument": "range", "value": shown})
    launcher.to_ready(SAFE_Z)
    return lab.submit({"range": predict(ranges, set_notch, height)}, citations)
