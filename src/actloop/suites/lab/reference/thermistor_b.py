"""The reference experimenter for the thermistor's B constant: the fit of its readings.

B and R25 come from a least-squares line of ln R against 1/T (T in kelvin) through readings of the block's
temperature and the probe's resistance taken at several settled setpoints: the slope is B, and the line at
1/298.15 K gives ln R25.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

KELVIN = 273.15
T25 = 298.15


def fit_b_r25(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """(B in K, R25 in ohm) from (temperature in degC, resistance in ohm) pairs at two or more
    temperatures."""
    xs = [1.0 / (t + KELVIN) - 1.0 / T25 for t, _ in points]
    ys = [math.log(r) for _, r in points]
    if len(set(xs)) < 2:
        raise ValueError("readings at two or more temperatures are needed")
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mean_x) ** 2 for x in xs
    )
    return slope, math.exp(mean_y - slope * mean_x)
