"""The reference experimenter for the thermistor's B constant, through the public client only.

It carries the probe by its handle from the holder into the block's well, switches the heater on with the
rocker, and for each setpoint from 30 to 80 degC in steps of 10 (raised with the up key) waits in front of
the meter panel until both LCDs hold steady, then reads the block's temperature and the resistance across
the probe's lead from a wrist close-up. The probe is a two-wire one, so the reading is the thermistor's and
its leads' in series: B, R25 and the leads' r come from a least-squares fit of R = r + R25 exp(B (1/T -
1/298.15 K)) over the six readings (T in kelvin), the leads weighing most in the hottest, smallest ones. It
then switches the heater off, puts the probe back in its holder and submits with every reading it rests
on.

Besides the card it knows the bench's published layout (where the holder, the well, the rocker, the keys and
the LCD windows are, and the windows' size), through the bench's operator.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.thermal_bench import BLOCK, HOLDER, ThermalOperator

KELVIN = 273.15
T25 = 298.15
SETPOINTS = (30, 40, 50, 60, 70, 80)
METERS = ("thermometer", "ohmmeter")


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


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    bench = ThermalOperator(lab)
    bench.face_panel()  # first from the start
    bench.carry(HOLDER, BLOCK)
    bench.heater(on=True)
    citations, points = [], []
    for celsius in SETPOINTS:
        bench.set_to(celsius)
        bench.face_panel()
        observation, shown = bench.settled_reading(METERS)
        citations += [{"observation_id": observation, "instrument": m, "value": shown[m]} for m in METERS]
        points.append((shown["thermometer"], 1000.0 * shown["ohmmeter"]))
    bench.heater(on=False)
    bench.carry(BLOCK, HOLDER)
    b, r25, _ = fit_thermistor(points)
    return lab.submit({"B": b, "R25": r25}, citations)
