"""The reference experimenter for the cantilever's EI and kθ, through the public client only.

It reads the indicator with the strip unloaded in every hole of the rail (eight readings of each state,
averaged: the LCD's last digit flickers), loads the strip (100 g on the farthest saddle, 100 g on the next,
50 g on the one before) and reads every hole again. At each
hole the loaded reading less the unloaded one is free of the indicator's offset, the rail's tilt and the
strip's bow; it is the strip's drop there, u / EI + v / kθ with u the loads' bending moments of the beam
formula and v the hole's distance times the loads' moment at the root. EI and kθ follow from a least-squares
fit of 1/EI and 1/kθ over the holes, whose different ratios of u to v separate the two. It then carries the
weights back (each saddle's drop is its hole's measured one), leaves the carriage in a hole and submits
with every reading it rests on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from actloop.suites.lab.reference.cantilever_bench import CantileverOperator
from actloop.suites.lab.reference.motion import Client

G = 9.81
SADDLES = (0.10, 0.20, 0.30, 0.40)
"""The saddles' printed distances from the clamp (m), saddle 1 first (the card's)."""
MASSES = (0.05, 0.10, 0.10)
"""The weights' printed masses (kg), weight 1 first (the card's)."""
HOLES = (0.05, 0.10, 0.15, 0.20, 0.25, 0.30, 0.35, 0.40)
"""The rail's holes, by their printed distances from the clamp (m)."""
LOADING = ((2, 4), (3, 3), (1, 2))
"""(weight, saddle) in the order they go on; they come off in the reverse order."""


def coefficients(loads: Sequence[tuple[float, float]], x: float) -> tuple[float, float]:
    """(u, v) of the strip's drop at ``x`` under ``loads`` ((N, m from the clamp) pairs), the drop being
    u / EI + v / kθ: a cantilever's bending and the clamp's turn under the root's moment."""
    u = 0.0
    for p, a in loads:
        near, far = min(x, a), max(x, a)
        u += p * near * near * (3.0 * far - near) / 6.0
    return u, x * sum(p * a for p, a in loads)


def fit_stiffnesses(points: Sequence[tuple[float, float, float]]) -> tuple[float, float]:
    """(EI, kθ) from (u, v, drop in m) triples by least squares of drop = u / EI + v / kθ."""
    suu = sum(u * u for u, _, _ in points)
    svv = sum(v * v for _, v, _ in points)
    suv = sum(u * v for u, v, _ in points)
    sud = sum(u * d for u, _, d in points)
    svd = sum(v * d for _, v, d in points)
    det = suu * svv - suv * suv
    if len(points) < 2 or det <= 1e-12 * suu * svv:
        raise ValueError("the readings do not separate EI from k_theta")
    inverse_ei = (sud * svv - svd * suv) / det
    inverse_k = (svd * suu - sud * suv) / det
    if inverse_ei <= 0 or inverse_k <= 0:
        raise ValueError(f"the fit gives no stiffness (1/EI = {inverse_ei:.4g}, 1/k = {inverse_k:.4g})")
    return 1.0 / inverse_ei, 1.0 / inverse_k


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    bench = CantileverOperator(lab)
    citations: list[dict[str, Any]] = []

    def mean_reading() -> float:
        readings = bench.settled_readings()
        citations.extend({"observation_id": o, "instrument": "indicator", "value": v} for o, v in readings)
        return sum(v for _, v in readings) / len(readings)

    unloaded: dict[float, float] = {}
    for hole in HOLES:  # along the rail and back: the carriage never doubles back
        bench.carriage_to(hole)
        unloaded[hole] = mean_reading()
    for weight, saddle in LOADING:
        bench.load(weight, saddle)
    loads = [(G * MASSES[w - 1], SADDLES[s - 1]) for w, s in LOADING]
    drops: dict[float, float] = {}
    for hole in reversed(HOLES):
        bench.carriage_to(hole)
        drops[hole] = (unloaded[hole] - mean_reading()) / 1000.0
    ei, k_theta = fit_stiffnesses([(*coefficients(loads, hole), drop) for hole, drop in drops.items()])
    if not (math.isfinite(ei) and math.isfinite(k_theta)):
        raise RuntimeError("the readings give no stiffness")
    for weight, saddle in reversed(LOADING):
        bench.unload(weight, saddle, drops[SADDLES[saddle - 1]])
    return lab.submit({"EI": ei, "k_theta": k_theta}, citations)
