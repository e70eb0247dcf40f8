"""Least-squares fits the reference experimenters share."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence


def line(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """(slope, intercept) of the least-squares line of y against x through (x, y) points."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / sum((x - mean_x) ** 2 for x, _ in points)
    return slope, mean_y - slope * mean_x


def golden_minimum(cost: Callable[[float], float], low: float, high: float, steps: int = 40) -> float:
    """Where ``cost`` is least between ``low`` and ``high`` (taken to have one minimum there), by
    ``steps`` golden-section steps."""
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(steps):
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        if cost(a) < cost(b):
            high = b
        else:
            low = a
    return (low + high) / 2
