"""The difficulty audit of #15, the cantilever: one zero and a loaded sweep against differences at each
hole."""

from __future__ import annotations

from collections.abc import Sequence

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan
from actloop.suites.lab.instance import Instance


def plan() -> Plan:
    from actloop.suites.lab.experiments.cantilever import bench
    from actloop.suites.lab.platforms.cantilever import INDICATOR, NODES
    from actloop.suites.lab.reference.cantilever import (
        HOLES,
        LOADING,
        MASSES,
        SADDLES,
        G,
        coefficients,
        fit_stiffnesses,
    )

    loads = [(G * MASSES[w - 1], SADDLES[s - 1]) for w, s in LOADING]

    def shown(instance: Instance, holes: Sequence[float], loaded: bool, reads: int) -> dict[float, float]:
        """The mean of ``reads`` settled indicator readings at each hole, the strip unloaded or carrying the
        reference's three weights: the strip's height over the tilted rail, its bow, the offset."""
        strip = bench(instance)
        if loaded:
            for p, a in loads:
                strip.node_loads[NODES.index(a)] += p
        meter = Meter(INDICATOR, instance.noise_key)
        out = {}
        for hole in holes:
            true = strip.zero_mm + strip.strip_height_mm(hole)
            out[hole] = sum(meter.read(true) for _ in range(reads)) / reads
        return out

    def naive(instance: Instance) -> Estimate:
        zero = shown(instance, (HOLES[0],), False, 1)[HOLES[0]]
        swept = shown(instance, (0.20, 0.40), True, 1)
        points = [(*coefficients(loads, h), (zero - r) / 1000.0) for h, r in swept.items()]
        ei, k_theta = fit_stiffnesses(points)
        return {"EI": ei, "k_theta": k_theta}

    def standard(instance: Instance) -> Estimate:
        empty, full = shown(instance, HOLES, False, 8), shown(instance, HOLES, True, 8)
        points = [(*coefficients(loads, h), (empty[h] - full[h]) / 1000.0) for h in HOLES]
        ei, k_theta = fit_stiffnesses(points)
        return {"EI": ei, "k_theta": k_theta}

    return Plan(
        lambda i: {"EI": i.hidden["EI"], "k_theta": i.hidden["k_theta"]},
        Design(
            "one zero, a loaded sweep",
            "the indicator zeroed once with the strip unloaded at the first hole; the loaded strip read at "
            "20 and 40 cm as drops from that zero; EI and k_theta from the two",
            naive,
        ),
        Design(
            "differences at every hole",
            "eight readings of the unloaded and of the loaded strip (100 g at 40 cm, 100 g at 30 cm, 50 g at "
            "20 cm) at each of the eight holes, averaged; the drop at each hole fitted by least squares to "
            "u / EI + v / k_theta",
            standard,
        ),
        "the rail's tilt and the strip's bow change the unloaded reading from hole to hole by up to 0.6 mm, "
        "as much as the clamp's share of the drop; only differences at a common hole are free of them, and "
        "EI and k_theta separate only through the drop's shape along the strip, which one reading per hole "
        "resolves too coarsely for half a percent",
    )
