"""Least-squares fits the reference experimenters share."""

from __future__ import annotations

from collections.abc import Sequence


def line(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """(slope, intercept) of the least-squares line of y against x through (x, y) points."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / sum((x - mean_x) ** 2 for x, _ in points)
    return slope, mean_y - slope * mean_x
