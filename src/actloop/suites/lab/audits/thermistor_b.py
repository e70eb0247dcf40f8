"""The difficulty audit of #28, the thermistor's B: two temperatures against a fit with the leads."""

from __future__ import annotations

from collections.abc import Sequence

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan
from actloop.suites.lab.instance import Instance


def plan() -> Plan:
    from actloop.suites.lab.physics.heat import Thermistor
    from actloop.suites.lab.platforms.thermal_bench import (
        OHMMETER,
        TEST_CURRENT,
        THERMOMETER,
        WELL_CONDUCTANCE,
    )
    from actloop.suites.lab.reference.thermistor_b import fit_b_r25, fit_thermistor

    def points(instance: Instance, celsius: Sequence[float]) -> list[tuple[float, float]]:
        """(thermometer °C, ohmmeter Ω) with the probe settled in the block's well at each block
        temperature: the bead runs warmer than the block by its Joule heat over the well's conductance, and
        the two-wire ohmmeter reads the leads in series with it."""
        h = instance.hidden
        probe = Thermistor(h["R25"], h["B"], h["leads"], TEST_CURRENT)
        thermometer, ohmmeter = Meter(THERMOMETER, instance.noise_key), Meter(OHMMETER, instance.noise_key)
        out = []
        for t in celsius:
            block = t + 273.15
            bead = block
            for _ in range(20):  # the steady state of the bead's heat balance
                bead = block + probe.joule_heat(bead) / WELL_CONDUCTANCE
            out.append((thermometer.read(t), 1000.0 * ohmmeter.read(probe.two_wire(bead) / 1000.0)))
        return out

    def naive(instance: Instance) -> Estimate:
        b, r25 = fit_b_r25(points(instance, (30.0, 40.0)))
        return {"B": b, "R25": r25}

    def standard(instance: Instance) -> Estimate:
        b, r25, _ = fit_thermistor(points(instance, (30.0, 40.0, 50.0, 60.0, 70.0, 80.0)))
        return {"B": b, "R25": r25}

    return Plan(
        lambda i: {"B": i.hidden["B"], "R25": i.hidden["R25"]},
        Design("two temperatures", "B and R25 from one reading each at 30 and 40 degC", naive),
        Design(
            "six temperatures, leads fitted",
            "readings at 30, 40, 50, 60, 70 and 80 degC; a least-squares fit of R = r + R25 exp(B (1/T - "
            "1/T25)) with the series resistance r as a third parameter",
            standard,
        ),
        "the two-wire probe's leads (20-60 ohm, in series) add to every reading; two points fitted by the B "
        "law alone take them for the thermistor and miss B by 0.16-1.7 % (R25 by 0.1-1.1 %), past 0.3 % on "
        "most instances; a fit over 30-80 degC, where the leads are 0.6-8 % of the hottest reading, "
        "separates them",
    )
