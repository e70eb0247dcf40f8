"""The reference experimenter for the black-box resistor, through the public client only.

It carries the box from its pad into the board's socket, presses the supply's rocker on, and at several
settings (raised with the UP key) reads both meters from overhead close-ups of their LCDs, a few images per
setting. The slope of the current against the voltage gives the resistance in parallel with the voltmeter's
published input resistance (the meters' zero errors fall out of a slope), from which R follows. It then
switches the supply off, puts the box back on its pad and submits R with every reading it rests on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from actloop.suites.lab.reference.circuit_board import BoardOperator
from actloop.suites.lab.reference.motion import Client

CELLS = {"voltmeter": 6, "ammeter": 7}
"""Each meter's LCD character cells (a sign and its digits)."""
SETTINGS = (2, 4, 6, 8, 10)


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
    board = BoardOperator(lab, CELLS)
    board.carry_box("black_box_pad", "socket")
    board.rocker(on=True)
    citations, points = [], []
    for volts in SETTINGS:
        board.set_to(volts)
        for observation, values in board.read_meters():
            citations += [
                {"observation_id": observation, "instrument": name, "value": values[name]} for name in CELLS
            ]
            points.append((values["voltmeter"], values["ammeter"]))
    board.rocker(on=False)
    board.carry_box("socket", "black_box_pad")
    board.rise()
    ohms = fit_resistance(points, public["voltmeter_resistance"])
    if not math.isfinite(ohms) or ohms <= 0:
        raise RuntimeError("the readings give no resistance")
    return lab.submit({"R": ohms}, citations)
