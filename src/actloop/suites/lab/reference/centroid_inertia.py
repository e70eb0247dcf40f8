"""The reference experimenter for the bar's centre of mass and moment of inertia, through the public client
only.

It starts the logger and times the turntable empty and with the disc, as the torsion pendulum's reference
does (:mod:`.torsion_pendulum`); then with the bar on the centring pin through the holes either side of its
middle in turn: it takes the bar by its knob, carries it over the turntable with the hole over the pin, lets
it go just above the pin's top (the round, slippery pin slides it into place) and twists the turntable as
before; from one hole to the next it carries the bar straight across, keeping the turn the pin gave it.
From the log: κ = 4π² I_disc / (T_disc² − T_empty²) and I_table = κ T_empty² / 4π²; on each hole the
bar adds I_h = κ T_h² / 4π² − I_table = I_com + m (x_h − x_com)², so two holes give
x_com = (x_1 + x_2) / 2 − (I_1 − I_2) / (2 m (x_1 − x_2)) and I_com = I_1 − m (x_1 − x_com)². It carries the
bar back and submits with the rows of the periods it averaged.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

from actloop.suites.lab.reference.motion import GC_OFFSET, Client
from actloop.suites.lab.reference.torsion_pendulum import (
    DISC_KG,
    DISC_RADIUS,
    KNOB_GRIP_BELOW_TOP,
    KNOB_OPEN_M,
    SAFE_Z,
    SLOW,
    TurntableOperator,
)

BAR_KG = 0.3
BAR_LENGTH = 0.24
"""The bar's printed mass and length (the card's)."""
HOLES = (0.075, 0.165)
"""The holes it is mounted by (m from its left end, the card's): either side of the middle, so the bar's
m d² (which a hole's play on the pin shifts by 2 m d δ) stays small beside I_com."""
DROP_ABOVE_PIN_M = 0.002
"""The bar is let go with its underside this far above the pin's top."""
SETTLE_S = 6.0
"""The periods shown from this long after letting go were timed free (5/4 of the longest period, 4.3 s,
from the third crossing on)."""


class BarOperator(TurntableOperator):
    """The turntable's operator, also carrying the bar on and off the centring pin."""

    def move_bar(self, start: float | None, end: float | None) -> None:
        """Carry the bar by its knob from the pin through hole ``start`` (or from its place, None) to the pin
        through hole ``end`` (or back to its place): hole to hole it keeps the turn it took on the pin."""
        (knob_top,) = self.layout["bar_grip_top"]
        (knob,) = self.layout["bar_knob"]
        pads = knob_top - KNOB_GRIP_BELOW_TOP
        (x0, y0, z0), (x1, y1, z1) = self._knob_at(start, knob), self._knob_at(end, knob)
        self.lab.gripper(KNOB_OPEN_M)
        self.above(x0, y0)
        self.to([x0, y0, z0 + pads + GC_OFFSET])
        self.lab.gripper(0.0)
        speed = self.arm.speed
        self.arm.speed = speed * SLOW
        try:
            self.to([x0, y0, SAFE_Z])
            self.to([x1, y1, SAFE_Z])
            self.to([x1, y1, z1 + pads + GC_OFFSET])
        finally:
            self.arm.speed = speed
        self.lab.gripper(KNOB_OPEN_M)
        self.lab.wait(0.5)
        self.to([x1, y1, SAFE_Z])

    def _knob_at(self, hole: float | None, knob: float) -> tuple[float, float, float]:
        """Where the knob's foot is with the bar on the pin through ``hole`` (let go just above the pin's top)
        or in its place (None)."""
        if hole is None:
            x, y, z = self.layout["bar_place"]
            return x + knob - BAR_LENGTH / 2, y, z
        cx, cy, _ = self.layout["turntable"]
        (pin_top,) = self.layout["pin_top"]
        return cx + knob - hole, cy, pin_top + DROP_ABOVE_PIN_M


def centroid(periods: list[float]) -> tuple[float, float]:
    """(x_com in mm, I_com) from the periods empty, with the disc and with the bar on each hole (s)."""
    empty, disc, *on_holes = (t * t for t in periods)
    disc_inertia = DISC_KG * DISC_RADIUS**2 / 2
    kappa = 4 * math.pi**2 * disc_inertia / (disc - empty)
    table = kappa * empty / (4 * math.pi**2)
    (x1, i1), (x2, i2) = (
        (x, kappa * t / (4 * math.pi**2) - table) for x, t in zip(HOLES, on_holes, strict=True)
    )
    x_com = (x1 + x2) / 2 - (i1 - i2) / (2 * BAR_KG * (x1 - x2))
    return 1000 * x_com, i1 - BAR_KG * (x1 - x_com) ** 2


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    table = BarOperator(lab)
    table.press_key("log_key")
    table.record(SETTLE_S)
    table.press_key("brake_key")
    table.carry("disc", to_turntable=True)
    table.press_key("brake_key")
    table.record(SETTLE_S)
    table.press_key("brake_key")
    table.carry("disc", to_turntable=False)
    table.move_bar(None, HOLES[0])
    table.press_key("brake_key")
    table.record(SETTLE_S)
    for last, hole in itertools.pairwise(HOLES):
        table.press_key("brake_key")
        table.move_bar(last, hole)
        table.press_key("brake_key")
        table.record(SETTLE_S)
    table.press_key("brake_key")
    table.move_bar(HOLES[-1], None)
    table.press_key("brake_key")
    table.to_ready(SAFE_Z)
    means, citations = table.logged_periods()
    x_com, i_com = centroid(means)
    return lab.submit({"x_com": x_com, "I_com": i_com}, citations)
