"""The reference experimenter for the thermistor's B constant, through the public client only.

It carries the probe by its handle from the holder into the block's well, switches the heater on with the
rocker, and for each setpoint from 30 to 80 degC in steps of 10 (raised with the up key) waits in front of
the meter panel until both LCDs hold steady, then reads the block's temperature and the resistance across
the probe's lead from a wrist close-up. The probe is a two-wire one, so the reading is the thermistor's and
its leads' in series: B, R25 and the leads' r come from a least-squares fit of R = r + R25 exp(B (1/T -
1/298.15 K)) over the six readings (T in kelvin), the leads weighing most in the hottest, smallest ones. It
then switches the heater off, puts the probe back in its holder and submits with every reading it rests
on.

Besides the card it knows the bench's visible layout: where the holder, the well, the rocker, the keys and
the LCD windows are, and the windows' size.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from PIL import Image

from actloop.suites.lab.reference.display import Camera, project, read_display, window_corners
from actloop.suites.lab.reference.motion import DOWN, GC_OFFSET, Arm, Client, quaternion

KELVIN = 273.15
T25 = 298.15


def fit_b_r25(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """(B in K, R25 in ohm) from (temperature in degC, resistance in ohm) pairs at two or more
    temperatures: the least-squares line of ln R against 1/T - 1/298.15 K."""
    b, ln_r25, _ = _line(points, 0.0)
    return b, math.exp(ln_r25)


def _line(points: Sequence[tuple[float, float]], series: float) -> tuple[float, float, float]:
    """(slope, intercept, residual sum of squares) of the least-squares line of ln(R - ``series``) against
    1/T - 1/298.15 K."""
    xs = [1.0 / (t + KELVIN) - 1.0 / T25 for t, _ in points]
    ys = [math.log(r - series) for _, r in points]
    if len(set(xs)) < 2:
        raise ValueError("readings at two or more temperatures are needed")
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sxx
    intercept = mean_y - slope * mean_x
    residual = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys, strict=True))
    return slope, intercept, residual


def fit_thermistor(points: Sequence[tuple[float, float]]) -> tuple[float, float, float]:
    """(B in K, R25 in ohm, r in ohm) of R = r + R25 exp(B (1/T - 1/298.15 K)) from (temperature in degC,
    resistance in ohm) pairs at three or more temperatures: for each trial r, the least-squares line of
    ln(R - r) against 1/T; r is the one whose line leaves the least residual (a grid over r below the
    smallest reading, refined by golden-section search)."""
    if len({t for t, _ in points}) < 3:
        raise ValueError("readings at three or more temperatures are needed")
    low = min(r for _, r in points)

    def cost(series: float) -> float:
        return _line(points, series)[2]

    grid = [low * (-0.5 + 1.4 * k / 280) for k in range(281)]  # -0.5 to 0.9 of the smallest reading
    best = min(range(len(grid)), key=lambda k: cost(grid[k]))
    a, b = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    for _ in range(80):
        if cost(c) < cost(d):
            b, d = d, c
            c = b - ratio * (b - a)
        else:
            a, c = c, d
            d = a + ratio * (b - a)
    series = (a + b) / 2.0
    slope, intercept, _ = _line(points, series)
    return slope, math.exp(intercept), series


HOLDER = (0.15, -0.07, 0.79)
"""The holder's well (x, y) and the height of its top."""
BLOCK = (0.15, 0.06, 0.80)
WELL_DEPTH = 0.04
LET_GO_M = 0.003
"""The probe is let go with its tip this far above the well's floor."""
GRIP_ABOVE_TIP = 0.079
"""Where the fingers close on the handle, above the stem's tip."""
ROCKER = (0.33, 0.04, 0.808)
"""The rocker's pivot; its front half (towards the robot) switches the heater on."""
ROCKER_ARM = 0.013
ROCKER_PRESS_TOP = 0.002
"""How far above the pivot the fingertips stop: the rocker's top there is past its middle, so it snaps
over."""
UP_KEY = (0.402, 0.04, 0.809)
"""The up key's centre and the height of its top."""
KEY_PRESS_M = 0.0055
"""A little past the key's 4 mm travel, so it bottoms out."""
LCDS = {"thermometer": ((-0.1, 0.018, 0.89), 4, 0.066), "ohmmeter": ((-0.093, 0.018, 0.85), 5, 0.08)}
"""Each meter's LCD window centre, character cells and width; the windows face the robot."""
LCD_HEIGHT = 0.022
PAD_HALF = 0.012
WRIST_UP_M = 0.09
VIEW = (-0.095, -0.13, 0.895)
"""Where the wrist camera looks at the panel from (level, the hand clear of the table)."""
LOOK = quaternion((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))
"""Approach towards the panel, palm side up: the wrist camera looks at the LCDs upright."""
GRASP = quaternion((0.0, 0.0, -1.0), (0.0, 1.0, 0.0))
"""Fingertips down, closing along y: the probe comes out of a well hanging above where it stood (closing
along x, it comes out a few millimetres towards the back)."""
SAFE_Z = 1.05
SETPOINTS = (30, 40, 50, 60, 70, 80)
FIRST_SETPOINT = 25
STEP_C = 5
HEAT_S = 60.0
"""A first wait after raising the setpoint (the block heats at about half a degree a second)."""
CHECK_S = 10.0
STEADY_C = 0.02
STEADY_FRACTION = 3e-4
STEADY_KOHM = 0.0015
"""Two resistance readings agree within this fraction of the reading, or one count of the LCD."""
MAX_CHECKS = 30


class Experimenter:
    def __init__(self, lab: Client) -> None:
        self.lab = lab
        self.arm = Arm(lab)
        self.calibration = lab.calibration()
        self.setpoint = FIRST_SETPOINT
        self.ready = np.array(lab.state()["joints"])
        """The arm's posture at the start (fingertips down, high in front): the way to and from the panel."""
        self.at_panel = False
        self.look: np.ndarray | None = None
        """The posture high in front of the panel, turned towards it, as first reached from the start."""

    def to(self, x: float, y: float, z: float, orientation: list[float] = DOWN) -> None:
        self.arm.line([x, y, z], orientation)

    def above(self, x: float, y: float) -> None:
        """Rise to the safe height fingertips down (from the panel through the starting posture), then
        cross to above (x, y)."""
        if self.at_panel:
            self.arm.line([*VIEW[:2], SAFE_Z - WRIST_UP_M], LOOK)
            self.arm.joints_to(self.ready)
            self.at_panel = False
        here = self.lab.state()["hand_position"]
        self.to(here[0], here[1], max(SAFE_Z, here[2]))
        self.to(x, y, SAFE_Z)

    # --- the probe ---
    def carry_probe(self, start: tuple[float, float, float], end: tuple[float, float, float]) -> None:
        """Lift the probe by its handle out of the well at ``start`` (x, y, top) and lower it into the one
        at ``end`` (the holder's funnel guides a stem a few millimetres off)."""
        grip = GRIP_ABOVE_TIP + GC_OFFSET
        self.lab.gripper(0.04)
        self.above(start[0], start[1])
        self.to(start[0], start[1], SAFE_Z, GRASP)
        self.to(start[0], start[1], start[2] - WELL_DEPTH + grip + 0.0005, GRASP)
        self.lab.gripper(0.0)
        self.to(start[0], start[1], SAFE_Z, GRASP)
        self.to(end[0], end[1], SAFE_Z, GRASP)
        self.to(end[0], end[1], end[2] - WELL_DEPTH + LET_GO_M + grip, GRASP)
        self.lab.gripper(0.04)
        self.to(end[0], end[1], SAFE_Z, GRASP)

    # --- the controller ---
    def press(self, x: float, y: float, top_z: float, depth: float) -> None:
        """Press down with closed fingertips at (x, y) to ``depth`` below ``top_z``, and let go."""
        tip = GC_OFFSET + PAD_HALF
        self.lab.gripper(0.0)
        self.to(x, y, top_z + tip + 0.02)
        self.to(x, y, top_z + tip - depth)
        self.to(x, y, top_z + tip + 0.02)

    def heater(self, on: bool) -> None:
        x, y, z = ROCKER
        self.above(x, y)
        self.press(x, y + (-ROCKER_ARM if on else ROCKER_ARM), z + ROCKER_PRESS_TOP, 0.0)

    def set_to(self, celsius: int) -> None:
        x, y, z = UP_KEY
        self.above(x, y)
        while self.setpoint < celsius:
            self.press(x, y, z, KEY_PRESS_M)
            self.setpoint += STEP_C

    # --- the meters ---
    def face_panel(self) -> None:
        """Hold the wrist camera level in front of the panel, coming from the starting posture."""
        if self.at_panel:
            return
        x, y, z = VIEW
        if self.look is None:  # from the start, where the bench's IK turns the wrist the short way
            self.to(x, y, SAFE_Z - WRIST_UP_M, LOOK)
            self.look = np.array(self.lab.state()["joints"])
        else:  # the same way every time, through the starting posture
            self.above(x, y)
            self.arm.joints_to(self.ready)
            self.arm.joints_to(self.look)
        self.to(x, y, z - WRIST_UP_M, LOOK)
        self.at_panel = True

    def read_meters(self) -> tuple[str, float, float]:
        """(observation id, degC, kohm) from a close-up of both LCDs."""
        seen = self.lab.observe()
        robot = seen["robot"]
        camera = Camera.wrist(self.calibration, robot["hand_position"], robot["hand_quaternion"])
        image = np.asarray(Image.open(io.BytesIO(seen["images"]["wrist"])).convert("RGB"))
        values = {}
        for name, (centre, cells, width) in LCDS.items():
            corners = window_corners(centre, (1, 0, 0), (0, 0, 1), width, LCD_HEIGHT)
            values[name] = float(read_display(image, project(corners, camera), cells))
        return str(seen["observation_id"]), values["thermometer"], values["ohmmeter"]

    def settled_reading(self) -> tuple[str, float, float]:
        """A reading once two in a row, :data:`CHECK_S` apart, agree (the block and probe settled)."""
        self.lab.wait(HEAT_S)
        last = self.read_meters()
        for _ in range(MAX_CHECKS):
            self.lab.wait(CHECK_S)
            now = self.read_meters()
            if abs(now[1] - last[1]) <= STEADY_C and abs(now[2] - last[2]) <= max(
                STEADY_FRACTION * now[2], STEADY_KOHM
            ):
                return now
            last = now
        raise RuntimeError("the meters never settled")


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    me = Experimenter(lab)
    me.face_panel()  # first from the start
    me.carry_probe(HOLDER, BLOCK)
    me.heater(on=True)
    citations, points = [], []
    for celsius in SETPOINTS:
        me.set_to(celsius)
        me.face_panel()
        observation, temperature, kilohms = me.settled_reading()
        citations += [
            {"observation_id": observation, "instrument": "thermometer", "value": temperature},
            {"observation_id": observation, "instrument": "ohmmeter", "value": kilohms},
        ]
        points.append((temperature, 1000.0 * kilohms))
    me.heater(on=False)
    me.carry_probe(BLOCK, HOLDER)
    b, r25, _ = fit_thermistor(points)
    return lab.submit({"B": b, "R25": r25}, citations)
