"""The difficulty audit of #19, strong-acid titration: settled readings every millilitre with the
equivalence point in the middle of the largest rise, against millilitres far from it and single drops
across it."""

from __future__ import annotations

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan
from actloop.suites.lab.instance import Instance

STEP_ML = 1.0
"""The fixed design's increment, and the sequential one's far from the equivalence point."""
NEAR_ML = 1.5
"""The sequential design turns to single drops this far before the equivalence point."""


def plan() -> Plan:
    from actloop.suites.lab.experiments.strong_acid_titration import TITRANT_M, bench, equivalence_ml
    from actloop.suites.lab.physics.acid_base import ph
    from actloop.suites.lab.physics.solutions import HYDROXIDE, Portion
    from actloop.suites.lab.platforms.titration import DROP_ML, PH_METER, solution_of

    def curve(instance: Instance, volumes: list[float]) -> list[float]:
        """The pH meter's settled readings of one sample after each volume of titrant (mL)."""
        titration = bench(instance)
        sample = titration.vessels.stored(0)
        meter = Meter(PH_METER, instance.noise_key)
        return [
            meter.read(
                titration.electrode.reads(
                    ph(solution_of(sample.plus(Portion.of(ml, {HYDROXIDE: TITRANT_M})), {}))
                )
            )
            for ml in volumes
        ]

    def steepest(volumes: list[float], readings: list[float]) -> float:
        """The middle of the largest rise between successive readings (mL)."""
        rises = [(readings[i + 1] - readings[i], i) for i in range(len(readings) - 1)]
        i = max(rises)[1]
        return (volumes[i] + volumes[i + 1]) / 2

    def concentration(instance: Instance, v_eq: float) -> Estimate:
        return {"c_HCl": TITRANT_M * v_eq / instance.public["sample_ml"]}

    def fixed(instance: Instance) -> Estimate:
        volumes = [STEP_ML * k for k in range(31)]
        return concentration(instance, steepest(volumes, curve(instance, volumes)))

    def sequential(instance: Instance) -> Estimate:
        start = max(0.0, STEP_ML * int((equivalence_ml(instance) - NEAR_ML) / STEP_ML))
        drops = round(2 * NEAR_ML / DROP_ML)
        volumes = [start + DROP_ML * n for n in range(drops + 1)]
        return concentration(instance, steepest(volumes, curve(instance, volumes)))

    return Plan(
        lambda i: {"c_HCl": i.hidden["c_HCl"]},
        Design(
            "every millilitre",
            "a settled reading after every 1 mL to 30 mL; the equivalence point in the middle of the largest "
            "rise",
            fixed,
        ),
        Design(
            "millilitres, then drops",
            "1 mL at a time while the pH stays low, then single drops from about 1.5 mL before the "
            "equivalence point to as far past it, each read settled; the equivalence point in the middle of "
            "the drop that raises the pH most",
            sequential,
        ),
        "a 1 mL step brackets the equivalence point only to ±0.5 mL (2-4 % of the titrant), and the "
        "electrode's hidden offset (±0.15 pH) and slope (96-100 %) put any estimate from pH values "
        "alone (the sample's own pH gives [H⁺]) several per cent off; only the leap across single drops "
        "is free of both",
    )
