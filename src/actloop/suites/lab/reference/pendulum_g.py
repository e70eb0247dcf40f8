"""The reference experimenter for g from three pendulums, through the public client only.

For P1, P2 and P3 in turn it closes its fingers round the bob from above (closing across the swing, so the
open fingers stand clear of it), draws it along its arc towards the robot to :data:`AMPLITUDE_RAD`, holds it
still, opens the fingers and rises straight up out of the swing's way, then presses the pendulum's START
key: its timer starts at the bob's next pass through the gate and stops ten periods later. Once all three
have stopped it reads the timer console's three LCDs from one level wrist close-up. g = 4π² / the
least-squares slope of T² against the printed lengths (the bobs' common offset below the printed length
only shifts the line; at 3 degrees the amplitude lengthens every period alike by 0.02 %). It submits with
the three timer readings.

Besides the card it knows the bench's published layout (the clamps' jaws, the bobs' rest, the START keys,
the LCD windows).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from actloop.suites.lab.reference.fits import line
from actloop.suites.lab.reference.motion import GC_OFFSET, Client, Operator, quaternion

LENGTHS = (0.30, 0.45, 0.60)
PERIODS = 10
"""P1–P3's printed lengths (m) and the periods a timing runs over (the card's)."""
OFFSET_GUESS = 0.025
"""How far beyond the printed length the bob's centre is taken to hang when drawing it aside (only the
amplitude depends on it)."""
AMPLITUDE_RAD = math.radians(3.0)
ARC_STEPS = 4
HOLD_S = 0.5
"""The bob is held still this long before it is let go."""
OPEN_M = 0.05
SAFE_Z = 1.05
"""The hand crosses the bench this high: clear of the gates, below the shortest pendulum's clamp."""
KEYS_Z = 1.12
"""...and this high over the timer console."""
CLEAR_Z = 0.12
"""The hand rises this far above the bob's rest after letting go."""
KEY_PRESS_M = 0.0055
PRESS_CLEARANCE = 0.02
SLOW = 0.3
"""The fraction of its usual speed the arm moves at while it holds a bob."""
TIMING_S = 18.0
"""Longer than the longest timing (ten periods of P3: under 15 s at the lowest g)."""
CELLS = 5
VIEW_FROM = (0.0, -0.15, 0.0)
WRIST_UP_M = 0.09
"""The wrist camera looks at the console from here relative to the middle LCD's window, level (the hand this
far below the camera's line of sight)."""
ACROSS = quaternion((0.0, 0.0, -1.0), (1.0, 0.0, 0.0))
"""Fingertips down, closing along x: across the swing."""
LOOK = quaternion((0.0, 1.0, 0.0), (-1.0, 0.0, 0.0))
"""Approach towards the console, palm side up: the wrist camera sees its LCDs upright."""


class PendulumOperator(Operator):
    """Works the pendulum frame: draws a bob aside and lets it go, presses START keys, reads the timers."""

    def to(self, position: list[float], orientation: list[float] = ACROSS) -> None:
        self.arm.line(position, orientation)

    def above(self, x: float, y: float, z: float = SAFE_Z) -> None:
        here = self.lab.state()["hand_position"]
        if here[2] < z - 0.02:
            self.to([here[0], here[1], z])
        self.to([x, y, z])

    def release(self, n: int) -> None:
        """Draw P``n``'s bob towards the robot to :data:`AMPLITUDE_RAD` and let it go without a push."""
        x, y, z = self.layout[f"bob_{n}"]
        jaws = self.layout[f"clamp_{n}"][2]
        radius = LENGTHS[n - 1] + OFFSET_GUESS
        self.lab.gripper(OPEN_M)
        self.above(x, y)
        self.to([x, y, z + GC_OFFSET])
        self.lab.gripper(0.0)
        speed = self.arm.speed
        self.arm.speed = speed * SLOW
        try:
            for k in range(1, ARC_STEPS + 1):
                angle = AMPLITUDE_RAD * k / ARC_STEPS
                self.to([x, y - radius * math.sin(angle), jaws - radius * math.cos(angle) + GC_OFFSET])
        finally:
            self.arm.speed = speed
        self.lab.wait(HOLD_S)
        self.lab.gripper(OPEN_M)
        here = self.lab.state()["hand_position"]
        self.to([here[0], here[1], z + CLEAR_Z + GC_OFFSET])

    def start(self, n: int) -> None:
        """Press P``n``'s START key."""
        x, y, top = self.layout[f"start_{n}"]
        self.above(x, y, KEYS_Z)
        self.press(x, y, top, KEY_PRESS_M, PRESS_CLEARANCE, ACROSS)
        self.to([x, y, KEYS_Z])

    def read_timers(self) -> tuple[str, list[float]]:
        """(observation id, the three timers' values) from one level close-up of the console."""
        x, y, z = self.layout["timer_2_lcd"]
        view = [x + VIEW_FROM[0], y + VIEW_FROM[1], z + VIEW_FROM[2] - WRIST_UP_M]
        self.above(view[0], view[1], KEYS_Z)
        self.arm.joints_to(self.ready)
        self.to([view[0], view[1], SAFE_Z - WRIST_UP_M], LOOK)
        self.to(view, LOOK)
        observation, image, camera = self.close_up()
        values = [
            float(self.read_window(image, camera, f"timer_{n}_lcd", CELLS))
            for n in range(1, len(LENGTHS) + 1)
        ]
        return observation, values


def gravity(times: list[float]) -> float:
    """g from each pendulum's timed ten periods (s)."""
    slope, _ = line([(length, (t / PERIODS) ** 2) for length, t in zip(LENGTHS, times, strict=True)])
    return 4 * math.pi**2 / slope


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure and submit; returns the submission's answer."""
    frame = PendulumOperator(lab)
    for n in range(1, len(LENGTHS) + 1):
        frame.release(n)
        frame.start(n)
    lab.wait(TIMING_S)
    observation, times = frame.read_timers()
    if not np.all(np.array(times) > 0):
        raise RuntimeError(f"a timer shows no timing: {times}")
    citations = [
        {"observation_id": observation, "instrument": f"timer_{n}", "value": value}
        for n, value in enumerate(times, 1)
    ]
    return lab.submit({"g": gravity(times)}, citations)
