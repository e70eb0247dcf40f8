"""The reference experimenter for Hooke's law, through the public client only.

It reads the pointer on the ruler with the tray empty and with one to five weights on it (taking each
reading from a close-up image once the tray has settled), fits the extension against the load over the
loads that opened the close-wound spring's coils (the tray left its unloaded reading; the empty tray hangs
on the shut coils, off the line), puts every weight back in the rack and submits k with the readings it
rests on.

What it knows besides the card is the bench's published layout (where the rack, the tray, the ruler stand),
as any experimenter at the bench would; every value comes from the images.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from actloop.suites.lab.reference.fits import line
from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.spring_stand import StandOperator

G = 9.81
OPEN_MM = 0.5
"""A load has opened the spring's coils when its reading lies at least this far below the unloaded one."""


def fit_k(readings: list[tuple[float, float]]) -> float:
    """k (N/m) from (load in kg, reading in mm) by least squares: the reading falls by g/k per kg."""
    slope, _ = line(readings)
    return 1000.0 * G / -slope


def coils_open(readings: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The (load, reading) pairs taken with weights on the tray whose reading lies OPEN_MM or more below
    the empty tray's (mean) reading: the loads that opened the close-wound spring's coils."""
    unloaded = [r for m, r in readings if m == 0]
    if not unloaded:
        raise ValueError("no reading of the empty tray")
    rest = sum(unloaded) / len(unloaded)
    return [(m, r) for m, r in readings if m > 0 and r <= rest - OPEN_MM]


def solve(lab: Client, public: Mapping[str, float], loads: int = 5) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    weight_mass = public["weight_mass"]
    stand = StandOperator(lab)
    cited: list[tuple[int, dict[str, Any]]] = []
    points = []
    for n in range(loads + 1):
        if n:
            stand.put_on_tray(n)
        stand.settle()
        for observation, value in stand.read_agreed():
            cited.append((n, {"observation_id": observation, "instrument": "ruler", "value": value}))
            points.append((n * weight_mass, value))
    for n in range(loads, 0, -1):
        stand.back_to_rack(n)
    stand.step_back()
    fitted = coils_open(points)
    if len({m for m, _ in fitted}) < 2:
        raise RuntimeError("fewer than two loads opened the spring's coils")
    k = fit_k(fitted)
    if not math.isfinite(k):
        raise RuntimeError("the readings give no stiffness")
    kept = {round(m / weight_mass) for m, _ in fitted} | {0}  # the fitted loads and the unloaded one
    return lab.submit({"k": k}, [c for n, c in cited if n in kept])
