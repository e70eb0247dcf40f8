"""The difficulty audit of #21, weak-acid titration: the equivalence point drop by drop and the pKa as the
pH at half neutralisation, against the same equivalence point and the pKa from the acid's equilibrium,
with the charge balance, at three points of the buffer region."""

from __future__ import annotations

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan
from actloop.suites.lab.instance import Instance

STEP_ML = 1.0
NEAR_ML = 1.5
"""Single drops from this far before the equivalence point to as far past it."""
SHARES = (0.3, 0.5, 0.7)
"""The buffer region's readings, as shares of the acid neutralised."""


def plan() -> Plan:
    from actloop.suites.lab.experiments.weak_acid_titration import TITRANT_M, bench, equivalence_ml
    from actloop.suites.lab.physics.acid_base import KW, ph
    from actloop.suites.lab.physics.linear import LN10, exp, log
    from actloop.suites.lab.physics.solutions import HYDROXIDE, Portion
    from actloop.suites.lab.platforms.titration import DROP_ML, PH_METER, TitrationBench, solution_of

    def shown(meter: Meter, titration: TitrationBench, ml: float) -> float:
        """The settled reading of a sample after ``ml`` of titrant."""
        sample = titration.vessels.stored(0).plus(Portion.of(ml, {HYDROXIDE: TITRANT_M}))
        return meter.read(titration.electrode.reads(ph(solution_of(sample, titration.pkas))))

    def equivalence(instance: Instance, meter: Meter, titration: TitrationBench) -> float:
        """The middle of the drop that raises the settled pH most, dripping across the equivalence point."""
        start = max(0.0, STEP_ML * int((equivalence_ml(instance) - NEAR_ML) / STEP_ML))
        volumes = [start + DROP_ML * n for n in range(round(2 * NEAR_ML / DROP_ML) + 1)]
        readings = [shown(meter, titration, ml) for ml in volumes]
        i = max((readings[i + 1] - readings[i], i) for i in range(len(readings) - 1))[1]
        return (volumes[i] + volumes[i + 1]) / 2

    def pka_at(sample_ml: float, c: float, ml: float, ph_value: float) -> float:
        """The pKa a pH after ``ml`` of titrant implies, from the charge balance."""
        h = exp(-LN10 * ph_value)
        total = c * sample_ml / (sample_ml + ml)
        base = TITRANT_M * ml / (sample_ml + ml) + h - KW / h  # [A⁻]
        return -log(h * base / (total - base)) / LN10

    def design(instance: Instance, equilibrium: bool) -> Estimate:
        titration = bench(instance)
        meter = Meter(PH_METER, instance.noise_key)
        v_eq = equivalence(instance, meter, titration)
        sample_ml = instance.public["sample_ml"]
        c = TITRANT_M * v_eq / sample_ml
        if not equilibrium:
            return {"c_HA": c, "pKa": shown(meter, titration, DROP_ML * round(v_eq / 2 / DROP_ML))}
        pkas = []
        for share in SHARES:
            ml = DROP_ML * round(share * v_eq / DROP_ML)
            pkas.append(pka_at(sample_ml, c, ml, shown(meter, titration, ml)))
        return {"c_HA": c, "pKa": sum(pkas) / len(pkas)}

    return Plan(
        lambda i: {"c_HA": i.hidden["c_HA"], "pKa": i.hidden["pKa"]},
        Design(
            "the half-neutralised pH",
            "single drops across the equivalence point for c; the pKa the pH at half the equivalence volume",
            lambda i: design(i, equilibrium=False),
        ),
        Design(
            "the acid's equilibrium",
            "single drops across the equivalence point for c; the pKa from the pH at 30, 50 and 70 % "
            "neutralised, each through the charge balance with that c, averaged",
            lambda i: design(i, equilibrium=True),
        ),
        "at 3-6 mmol/L the acid's own dissociation ([H⁺] up to a fifth of what the base has neutralised) "
        "puts the pH at half neutralisation up to 0.2 above the pKa; the charge balance accounts for it",
    )
