"""#30 Dye absorptivity: the absorption peak λmax of a dye and its molar absorptivity ε there.

A single-beam spectrophotometer stands on the bench with a rack of seven 1 cm cuvettes: the solvent and
the dye's stock with five two-fold dilutions, each of printed concentration. Hidden: the dye's spectrum (a
main Gaussian band with a weaker shoulder on its blue side) and its ε at the peak. The instrument has stray
light (high absorbances read low), a drifting lamp, absorbance-dependent noise and a lamp whose brightness
changes with wavelength, so a reading means something only against a blank taken at the same wavelength.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.spectra import Dye
from actloop.suites.lab.platforms.spectrophotometer import (
    SEATED_RULE,
    Cuvette,
    SpectrophotometerBench,
    dye_parameters,
    instrument_parts,
    rack_part,
    shouldered_dye,
)
from actloop.suites.lab.platforms.spectrophotometer_evaluation import SpectroEvaluator
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import Parameter, Part, ReadingsAt, choice

DILUTIONS = 6
"""Cuvettes 1..6 hold the stock diluted 1, 2, 4, 8, 16 and 32 times; cuvette 0 the solvent."""


def dilution(i: int) -> int:
    """The dilution factor of the dye in cuvette ``i`` (1 ≤ i ≤ DILUTIONS)."""
    return 2 ** (i - 1)


SPEC = specify(
    "dye_absorptivity",
    question=(
        "Determine the wavelength λmax (nm) at which the dye absorbs most strongly and its molar "
        "absorptivity ε at λmax (L mol⁻¹ cm⁻¹). The cuvettes have a 1 cm path."
    ),
    budget_s=900.0,
    parameters=(
        *dye_parameters(),
        Parameter(
            "stock_concentration",
            "the dye's concentration in the stock (cuvette_1)",
            "mol/L",
            choice(1.0e-4, 1.25e-4, 1.6e-4),
            public=True,
        ),
    ),
    parts=(
        *instrument_parts(),
        rack_part(DILUTIONS + 1),
        Part("cuvette_0", "the solvent alone (a blank), in rack slot 0"),
        *(
            Part(
                f"cuvette_{i}",
                f"the dye stock diluted {dilution(i)} times (stock_concentration / {dilution(i)}), "
                f"in rack slot {i}"
                if i > 1
                else "the dye stock (stock_concentration), in rack slot 1",
            )
            for i in range(1, DILUTIONS + 1)
        ),
    ),
    rules=(
        SEATED_RULE,
        "The concentrations are the printed ones.",
    ),
    minima=(ReadingsAt(("absorbance",), "cuvette", 1, "dye cuvettes (cuvette_1 to cuvette_6)"),),
)


def dye(instance: Instance) -> Dye:
    """The dye of ``instance``: its main band and the shoulder on its blue side."""
    return shouldered_dye(instance.hidden)


def bench(instance: Instance) -> SpectrophotometerBench:
    """The spectrophotometer bench of ``instance``: the blank, then the stock and its dilutions."""
    stock, the_dye = instance.public["stock_concentration"], dye(instance)
    cuvettes = [Cuvette("cuvette_0")] + [
        Cuvette(f"cuvette_{i}", ((the_dye, stock / dilution(i)),)) for i in range(1, DILUTIONS + 1)
    ]
    return SpectrophotometerBench(cuvettes, instance.noise_key)


MIN_WAVELENGTHS = 3
"""L4: one dye cuvette read at three wavelengths locates λmax, and a reading of it gives ε (A = ε c l):
readings that suffice for both, whatever the method."""


class DyeAbsorptivityEvaluator(SpectroEvaluator):
    """Scores λmax and ε against the hidden dye, from absorbance readings of one dye cuvette at several
    wavelengths."""

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        by_cuvette: dict[int, set[Any]] = {}
        for cuvette, nm in self.absorbance_readings(valid, log):
            if cuvette is not None and self.is_sample(cuvette):
                by_cuvette.setdefault(cuvette, set()).add(nm)
        wavelengths = max((len(s) for s in by_cuvette.values()), default=0)
        return [
            *self.holder_milestones(log),
            Check(
                "L4",
                wavelengths >= MIN_WAVELENGTHS,
                f"valid absorbance readings of one dye cuvette at up to {wavelengths} wavelengths (needed "
                f"{MIN_WAVELENGTHS})",
            ),
        ]

    @cached_property
    def dye(self) -> Dye:
        """The instance's dye."""
        return dye(self.instance)

    def targets(self) -> dict[str, float]:
        return {"lambda_max": self.dye.lambda_max, "epsilon": self.dye.epsilon_max}


EXPERIMENT = Experiment(SPEC, bench, DyeAbsorptivityEvaluator)
