"""The difficulty audit of #2, pendulum g: one pendulum's period with its printed length against the slope of
T² over the three printed lengths."""

from __future__ import annotations

import math

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan, slope
from actloop.suites.lab.instance import Instance

AMPLITUDE_RAD = math.radians(3.0)
"""The standard design lets each bob go from 3 degrees (the shortcut from the same)."""


def plan() -> Plan:
    from actloop.suites.lab.experiments.pendulum_g import bench
    from actloop.suites.lab.physics.pendulum import period
    from actloop.suites.lab.platforms.pendulum import LENGTHS, PERIODS, TIMERS

    def timed(instance: Instance, i: int) -> float:
        """Pendulum ``i``'s (0-based) ten periods as its timer shows them, at the release amplitude (the
        air's damping shrinks the swing by under 5 % over them: its effect on the period is negligible)."""
        pendulum = bench(instance).pendulums[i]
        return Meter(TIMERS[i], instance.noise_key).read(PERIODS * period(pendulum.omega0, AMPLITUDE_RAD))

    def naive(instance: Instance) -> Estimate:
        t = timed(instance, 1) / PERIODS
        return {"g": 4 * math.pi**2 * LENGTHS[1] / t**2}

    def standard(instance: Instance) -> Estimate:
        b, _ = slope([(length, (timed(instance, i) / PERIODS) ** 2) for i, length in enumerate(LENGTHS)])
        return {"g": 4 * math.pi**2 / b}

    return Plan(
        lambda i: {"g": i.hidden["g"]},
        Design(
            "one pendulum's period",
            "g = 4π² ℓ / T² for P2, ℓ its printed length and T its timed ten periods over ten",
            naive,
        ),
        Design(
            "T² against the printed length",
            "each pendulum let go from 3 degrees and timed over ten periods; g = 4π² / the least-squares "
            "slope of T² against the printed lengths",
            standard,
        ),
        "each bob's centre hangs 20-30 mm below its printed length (the string's turn in the clamp, the "
        "bob's radius), so one pendulum's period with its printed length gives g 4-7 % high; the slope of "
        "T² over the three lengths is 4π²/g whatever the common offset",
    )
