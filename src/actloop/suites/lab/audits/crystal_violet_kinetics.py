"""The difficulty audit of #22, crystal-violet kinetics: one run's rate over its hydroxide, against the
difference of two runs at the strongest and the weakest base."""

from __future__ import annotations

import math

from actloop.suites.lab.audits import Design, Estimate, Plan, slope
from actloop.suites.lab.instance import Instance

RUN_S = 60.0
"""Each simulated run logs a minute, a row at every refresh (0.5 s), from 5 s after the pour."""


def plan() -> Plan:
    from actloop.suites.lab.experiments.crystal_violet_kinetics import (
        BASE_ML,
        BASES,
        DYE_ML,
        hydroxide_after_mixing,
    )
    from actloop.suites.lab.physics.spectra import Spectrophotometer
    from actloop.suites.lab.platforms.spectrophotometer import CELL_ABSORBANCE
    from actloop.suites.lab.platforms.spectrophotometer_kinetics import CRYSTAL_VIOLET_DYE

    def observed_rate(instance: Instance, vial: int, start_s: float) -> float:
        """k from the slope of ln A over one logged run with vial ``vial`` poured at ``start_s``."""
        spectro = Spectrophotometer("absorbance", instance.noise_key)
        spectro.set_wavelength(590.0)
        spectro.blank(start_s - 10.0, CELL_ABSORBANCE)
        c0 = instance.public["dye_concentration"] * DYE_ML / (DYE_ML + BASE_ML)
        k = instance.hidden["k0"] + instance.hidden["k2"] * hydroxide_after_mixing(vial)
        rows = []
        for i in range(round(RUN_S * 2)):
            t = 5.0 + i / 2
            true = CELL_ABSORBANCE + CRYSTAL_VIOLET_DYE.epsilon(590.0) * c0 * math.exp(-k * t)
            rows.append((t, math.log(spectro.read(start_s + t, true))))
        return -slope(rows)[0]

    def one_run(instance: Instance) -> Estimate:
        strongest = len(BASES)
        return {"k2": observed_rate(instance, strongest, 30.0) / hydroxide_after_mixing(strongest)}

    def two_runs(instance: Instance) -> Estimate:
        strongest = len(BASES)
        fast, slow = observed_rate(instance, strongest, 30.0), observed_rate(instance, 1, 200.0)
        return {"k2": (fast - slow) / (hydroxide_after_mixing(strongest) - hydroxide_after_mixing(1))}

    return Plan(
        lambda i: {"k2": i.hidden["k2"]},
        Design("one run", "the slope of ln A over a minute at the strongest base, over its [OH⁻]", one_run),
        Design(
            "two runs",
            "k at the strongest and the weakest base, each from a minute's slope of ln A; k2 = Δk / Δ[OH⁻]",
            two_runs,
        ),
        "the dye also fades without base (k0, 4-25 % of the fading at the strongest base), which one run "
        "counts into k2; two runs at different [OH⁻] cancel it",
    )
