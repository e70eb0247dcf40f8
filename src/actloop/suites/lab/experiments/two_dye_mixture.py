"""#20 Two-dye mixture: the concentrations of two dyes in one solution whose absorption bands overlap.

The spectrophotometer bench of #30 with a rack of four 1 cm cuvettes: the solvent, a standard of each dye at
the printed ``standard_concentration``, and the mixture. Hidden: both dyes' spectra (each a main band with a
shoulder on its blue side), dye 2's band 35-70 nm to the red of dye 1's, so that at dye 1's peak dye 2
absorbs up to 68 % as much as at its own (a fifth in the median), and dye 1 at dye 2's peak up to 56 % (an
eighth); both absorptivities; and the mixture's concentrations. Reading the mixture at each peak and
ignoring the other dye fails; the experimenter chooses wavelengths (a), identifies each dye's absorptivity
at each of them from its standard (c), then solves Beer-Lambert's sum for both concentrations.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

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
from actloop.suites.lab.spec import Parameter, Part, ReadingsAt, choice, uniform

BLANK, DYE_1, DYE_2, MIXTURE = 0, 1, 2, 3
"""The rack's cuvettes: the solvent, the standards of dye 1 and dye 2, the mixture."""
TWO_WAVELENGTHS = 2
"""L4: the mixture and both standards read at two wavelengths: the four absorptivities and the two
readings of the mixture that Beer-Lambert's sum needs for both concentrations, whatever the method."""

SPEC = specify(
    "two_dye_mixture",
    question=(
        f"Determine the molar concentrations c_1 of dye 1 and c_2 of dye 2 (mol/L) in the mixture "
        f"(cuvette_{MIXTURE}). The cuvettes have a 1 cm path."
    ),
    budget_s=900.0,
    parameters=(
        *dye_parameters("dye1_", "dye 1's", centre=(440.0, 520.0)),
        *dye_parameters("dye2_", "dye 2's", centre=None),
        Parameter(
            "band_separation",
            "how far dye 2's main band lies to the red of dye 1's",
            "nm",
            uniform(35.0, 70.0),
        ),
        *(
            Parameter(
                f"dye{n}_in_mixture",
                f"the absorbance dye {n} gives the mixture at dye {n}'s peak (1 cm)",
                "A",
                uniform(0.3, 0.8),
            )
            for n in (1, 2)
        ),
        Parameter(
            "standard_concentration",
            "each dye's concentration in its standard",
            "mol/L",
            choice(1.0e-5, 1.25e-5),
            public=True,
        ),
    ),
    parts=(
        *instrument_parts(),
        rack_part(MIXTURE + 1),
        Part(f"cuvette_{BLANK}", f"the solvent alone (a blank), in rack slot {BLANK}"),
        *(
            Part(f"cuvette_{n}", f"a standard of dye {n} alone (standard_concentration), in rack slot {n}")
            for n in (DYE_1, DYE_2)
        ),
        Part(f"cuvette_{MIXTURE}", f"the mixture of dye 1 and dye 2 in the solvent, in rack slot {MIXTURE}"),
    ),
    rules=(
        SEATED_RULE,
        "The standards' concentrations are the printed ones.",
    ),
    minima=(
        ReadingsAt(("absorbance",), "mixture", 1, f"wavelengths with the mixture (cuvette_{MIXTURE}) seated"),
    ),
)


def dyes(instance: Instance) -> tuple[Dye, Dye]:
    """Dye 1 and dye 2 of ``instance``."""
    h = instance.hidden
    first = shouldered_dye(h, "dye1_", "dye 1")
    return first, shouldered_dye(h, "dye2_", "dye 2", h["dye1_band_center"] + h["band_separation"])


def mixture(instance: Instance) -> tuple[float, float]:
    """The mixture's concentrations of dye 1 and dye 2 (mol/L)."""
    h = instance.hidden
    return h["dye1_in_mixture"] / h["dye1_epsilon"], h["dye2_in_mixture"] / h["dye2_epsilon"]


def bench(instance: Instance) -> SpectrophotometerBench:
    """The bench of ``instance``: the blank, each dye's standard, the mixture."""
    first, second = dyes(instance)
    c_std = instance.public["standard_concentration"]
    c_1, c_2 = mixture(instance)
    cuvettes = [
        Cuvette(f"cuvette_{BLANK}"),
        Cuvette(f"cuvette_{DYE_1}", ((first, c_std),)),
        Cuvette(f"cuvette_{DYE_2}", ((second, c_std),)),
        Cuvette(f"cuvette_{MIXTURE}", ((first, c_1), (second, c_2))),
    ]
    return SpectrophotometerBench(cuvettes, instance.noise_key)


class TwoDyeMixtureEvaluator(SpectroEvaluator):
    """Scores both concentrations; L4 asks for the mixture and both standards read at two wavelengths."""

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        needed = {DYE_1, DYE_2, MIXTURE}
        full = sorted(nm for nm, cuvettes in self.read_at(valid, log).items() if needed <= cuvettes)
        return [
            *self.holder_milestones(log),
            Check(
                "L4",
                len(full) >= TWO_WAVELENGTHS,
                f"the mixture and both standards read at {len(full)} wavelengths "
                f"({', '.join(f'{nm:g} nm' for nm in full) or 'none'}; needed {TWO_WAVELENGTHS})",
            ),
        ]

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        if name != "mixture":
            return super().property_of(name, verdict, log)
        return self.seated_wavelength(MIXTURE, verdict, log)

    @cached_property
    def dyes(self) -> tuple[Dye, Dye]:
        """The instance's dye 1 and dye 2."""
        return dyes(self.instance)

    def targets(self) -> dict[str, float]:
        c_1, c_2 = mixture(self.instance)
        return {"c_1": c_1, "c_2": c_2}


EXPERIMENT = Experiment(SPEC, bench, TwoDyeMixtureEvaluator)
