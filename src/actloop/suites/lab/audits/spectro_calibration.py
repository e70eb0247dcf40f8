"""The difficulty audit of #18, the spectrophotometric calibration: a calibration at the dye's peak against
one at a wavelength chosen from what the unknown reads."""

from __future__ import annotations

from collections.abc import Callable

from actloop.suites.lab.audits import Design, Estimate, Plan, slope
from actloop.suites.lab.audits._spectro import blanked_reader
from actloop.suites.lab.instance import Instance

FLANK_A = 1.0
"""The standard design calibrates where the unknown reads this much or less, on the band's red flank."""


def plan() -> Plan:
    from actloop.suites.lab.experiments.spectro_calibration import (
        STANDARDS,
        dye,
        standard,
        unknown_concentration,
    )

    def calibrated(instance: Instance, choose: Callable[[Callable[[float], float]], int]) -> Estimate:
        """The unknown's concentration from a line over the blank and the standards at the wavelength
        ``choose`` picks, given ``reads(nm)``, the unknown's reading at ``nm``."""
        read, the_dye = blanked_reader(instance), dye(instance)
        unknown = ((the_dye, unknown_concentration(instance)),)
        nm = choose(lambda at: read(at, unknown))
        points = [(0.0, read(nm, ()))] + [
            (c, read(nm, ((the_dye, c),))) for c in (standard(instance, k) for k in range(1, STANDARDS + 1))
        ]
        b, a = slope(points)
        return {"c_unknown": (read(nm, unknown) - a) / b}

    def at_peak(instance: Instance) -> Estimate:
        return calibrated(instance, lambda _: round(dye(instance).lambda_max))

    def on_flank(instance: Instance) -> Estimate:
        def choose(reads: Callable[[float], float]) -> int:
            nm = round(dye(instance).lambda_max)
            while not reads(nm) <= FLANK_A:  # OL reads NaN: keep going
                nm += 1
            return nm

        return calibrated(instance, choose)

    return Plan(
        lambda i: {"c_unknown": unknown_concentration(i)},
        Design(
            "calibration at the peak",
            "a line over the blank and the five standards at λmax; the unknown read there",
            at_peak,
        ),
        Design(
            "calibration on the flank",
            f"the wavelength stepped to the red of λmax until the unknown reads {FLANK_A:g} A or less; a "
            "line over the blank and the five standards there; the unknown read there",
            on_flank,
        ),
        "at the peak the unknown absorbs 2.2-4.0 A, where stray light (0.1 % of the lamp) makes it read "
        "3-30 % low, while the standards (at most 1.35 A) stay nearly straight; on the flank at 1 A the "
        "unknown reads 0.4 % low",
    )
