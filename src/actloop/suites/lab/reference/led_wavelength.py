"""The reference experimenter for the LED wavelength, through the public client only.

It switches the supply on and raises it to one setting (5 V) with the socket empty, then seats each LED box
in turn (the four known ones, then the unknown), waits out the card's settling time at that unchanged
setting, reads both meters from overhead close-ups of their LCDs (three images) and carries the box back to
its pad. A straight line through the known LEDs' mean voltages against 1/λ (their printed wavelengths)
calibrates the family: the offset, the share of V that the current adds and the meters' zero errors only
move the line, so the unknown's wavelength is read off it from its mean voltage. It then switches the supply
off and submits with every reading it rests on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from actloop.suites.lab.reference.circuit_board import BoardOperator
from actloop.suites.lab.reference.motion import Client

CELLS = {"voltmeter": 6, "ammeter": 7}
"""Each meter's LCD character cells (a sign and its digits)."""
KNOWN = ("blue", "green", "amber", "red")
UNKNOWN = "led_unknown"
SETTING = 5
"""The supply's setting for every LED: every LED of the card's range conducts several mA there."""
SETTLING_S = 20.0
"""The card's settling time."""
MARGIN_S = 1.0


def wavelength(known: Sequence[tuple[float, float]], volts: float) -> float:
    """λ (nm) of an LED of forward voltage ``volts`` from the least-squares line of V against 1/λ through the
    known LEDs' (λ nm, V) points."""
    xs = [1.0 / nm for nm, _ in known]
    ys = [v for _, v in known]
    n = len(known)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mean_x) ** 2 for x in xs
    )
    return slope / (volts - mean_y + slope * mean_x)


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    board = BoardOperator(lab, CELLS)
    board.rocker(on=True)
    board.set_to(SETTING)
    citations: list[dict[str, Any]] = []
    volts: dict[str, float] = {}
    for box in (*(f"led_{c}" for c in KNOWN), UNKNOWN):
        board.carry_box(f"{box}_pad", "socket")
        lab.wait(SETTLING_S + MARGIN_S)
        readings = board.read_meters()
        for observation, values in readings:
            citations += [
                {"observation_id": observation, "instrument": name, "value": values[name]} for name in CELLS
            ]
        volts[box] = sum(values["voltmeter"] for _, values in readings) / len(readings)
        board.carry_box("socket", f"{box}_pad")
    board.rocker(on=False)
    board.rise()
    known = [(public[f"lambda_{c}"], volts[f"led_{c}"]) for c in KNOWN]
    nm = wavelength(known, volts[UNKNOWN])
    if not math.isfinite(nm) or nm <= 0:
        raise RuntimeError("the readings give no wavelength")
    return lab.submit({"lambda_peak": nm}, citations)
