"""The difficulty audit of #1, Hooke's law: the unloaded reading and one weight against a slope of loads."""

from __future__ import annotations

from collections.abc import Sequence

from actloop.suites.lab.audits import Design, Estimate, Plan, read_scale, slope
from actloop.suites.lab.instance import Instance


def plan() -> Plan:
    from actloop.suites.lab.experiments.hookes_law import bench
    from actloop.suites.lab.platforms.spring_stand import RULER, G

    def readings(instance: Instance, loads: Sequence[int]) -> list[tuple[float, float]]:
        """(load in kg, ruler reading in mm) at rest with ``n`` weights on the tray: the close-wound spring
        stays shut at its unloaded length until the load exceeds its initial tension, then the pointer
        falls by (load - F0) / k; the ruler's offset shifts every reading alike."""
        stand, m = bench(instance), instance.public["weight_mass"]
        return [(n * m, read_scale(stand.resting_reading_mm(n), RULER.resolution)) for n in loads]

    def naive(instance: Instance) -> Estimate:
        (m0, r0), (m1, r1) = readings(instance, (0, 1))
        return {"k": G * (m1 - m0) / ((r0 - r1) / 1000.0)}

    def standard(instance: Instance) -> Estimate:
        b, _ = slope(readings(instance, (1, 2, 3, 4, 5)))
        return {"k": -G / (b / 1000.0)}

    return Plan(
        lambda i: {"k": i.hidden["k"]},
        Design(
            "unloaded and one weight",
            "k = m g / (difference of the ruler readings with the empty tray and with one weight)",
            naive,
        ),
        Design(
            "slope of five loads",
            "ruler readings at 1 to 5 weights; k = g / (least-squares slope of the reading against the load)",
            standard,
        ),
        "the ruler's offset, the spring's unloaded length and the tray's mass drop out of differences, but "
        "the close-wound spring's initial tension F0 does not: the empty tray hangs on the shut coils, so "
        "the first weight extends the spring by ((tray + weight) g - F0) / k, 12-83 % less than m g / k, "
        "while every weight opens the coils, so readings at 1 to 5 weights lie on the line",
    )
