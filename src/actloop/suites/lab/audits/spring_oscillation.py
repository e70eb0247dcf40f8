"""The difficulty audit of #4, spring oscillation: one load's period with the printed masses against the
slope of 1/ω² over four loads."""

from __future__ import annotations

import math

from actloop.suites.lab.audits import Design, Estimate, Plan, slope
from actloop.suites.lab.instance import Instance


def plan() -> Plan:
    from actloop.suites.lab.experiments.spring_oscillation import TRAY_KG, bench

    def omega_squared(instance: Instance, weights: int) -> float:
        """The damped oscillation's ω² with ``weights`` on the tray, as a fit of the logged swing gives it
        (the damping's decay rate fitted too, so ω0² = ω² + γ²)."""
        stand = bench(instance)
        assert stand.motion is not None
        return stand.k / stand.motion.moving_mass(TRAY_KG + weights * stand.weight_mass)

    def naive(instance: Instance) -> Estimate:
        stand = bench(instance)
        assert stand.motion is not None
        moving = stand.motion.moving_mass(TRAY_KG + stand.weight_mass)
        damping = stand.motion.damping / (2 * moving)
        period = 2 * math.pi / math.sqrt(omega_squared(instance, 1) - damping * damping)
        return {"k": 4 * math.pi**2 * (TRAY_KG + stand.weight_mass) / period**2}

    def standard(instance: Instance) -> Estimate:
        m = instance.public["weight_mass"]
        b, _ = slope([(n * m, 1.0 / omega_squared(instance, n)) for n in range(1, 5)])
        return {"k": 1.0 / b}

    return Plan(
        lambda i: {"k": i.hidden["k"]},
        Design(
            "one load's period",
            "k = 4π² (tray + one weight) / T², T the swing's period with one weight on the tray",
            naive,
        ),
        Design(
            "1/ω0² against the load",
            "the logged swing at one to four weights fitted as a damped oscillation (ω0² = ω² + γ²); "
            "k = 1 / the least-squares slope of 1/ω0² against the weights' mass",
            standard,
        ),
        "a third of the spring's own mass (15-40 g) swings with the tray and one weight (80-100 g), so "
        "that load's period with the printed masses alone gives k 5-16 % low (the damping lengthens the "
        "period a little more); the slope of 1/ω0² against the load is 1/k whatever mass rides along",
    )
