"""#18 Spectrophotometric calibration: the concentration of a dye in an unknown solution, from standards.

The spectrophotometer bench of #30 with a rack of seven 1 cm cuvettes: the solvent, five standards of the
dye at printed concentrations (one to five steps of ``standard_step``) and the unknown. Hidden: the dye's
spectrum and absorptivity, and the unknown's concentration, drawn so that at the absorption peak the
unknown absorbs 2.2-4.0 A, where stray light bends the instrument's response (it reads 3-30 % low there),
while the standards stay on its straight part. A calibration at the peak therefore fails; the experimenter
must find a wavelength where the unknown reads on the straight part too (decision a, chosen from what the
unknown reads: b) and calibrate there, the blank and the standards read at that same wavelength.
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

STANDARDS = 5
"""Cuvettes 1..5 hold the standards, k × standard_step for cuvette k; cuvette 0 the solvent."""
UNKNOWN = STANDARDS + 1
"""The unknown's cuvette (the last in the rack)."""
LINE_POINTS = 2
"""L4: the unknown and two other cuvettes (standards or the blank) read at one wavelength: a line through
two known concentrations turns the unknown's reading into a concentration, whatever the blank."""

SPEC = specify(
    "spectro_calibration",
    question=(
        "Determine the molar concentration c_unknown (mol/L) of the dye in the unknown solution "
        f"(cuvette_{UNKNOWN}). The cuvettes have a 1 cm path."
    ),
    budget_s=900.0,
    parameters=(
        *dye_parameters(),
        Parameter(
            "unknown_peak_absorbance",
            "the unknown's true absorbance at the dye's peak (1 cm, above the cell's own)",
            "A",
            uniform(2.2, 4.0),
        ),
        Parameter(
            "standard_step",
            "the step between the standards' concentrations (cuvette_k holds k steps)",
            "mol/L",
            choice(2.0e-6, 2.5e-6, 3.0e-6),
            public=True,
        ),
    ),
    parts=(
        *instrument_parts(),
        rack_part(UNKNOWN + 1),
        Part("cuvette_0", "the solvent alone (a blank), in rack slot 0"),
        *(
            Part(f"cuvette_{k}", f"a standard of the dye, {k} × standard_step, in rack slot {k}")
            for k in range(1, STANDARDS + 1)
        ),
        Part(f"cuvette_{UNKNOWN}", f"the unknown: the same dye in the same solvent, in rack slot {UNKNOWN}"),
    ),
    rules=(
        SEATED_RULE,
        "The standards' concentrations are the printed ones.",
    ),
    minima=(
        ReadingsAt(("absorbance",), "unknown", 1, f"wavelengths with the unknown (cuvette_{UNKNOWN}) seated"),
    ),
)


def dye(instance: Instance) -> Dye:
    """The dye of ``instance`` (in the standards and in the unknown)."""
    return shouldered_dye(instance.hidden)


def standard(instance: Instance, k: int) -> float:
    """Standard ``k``'s printed concentration (mol/L)."""
    return k * instance.public["standard_step"]


def unknown_concentration(instance: Instance) -> float:
    """The unknown's concentration (mol/L): its peak absorbance over the dye's peak absorptivity."""
    return instance.hidden["unknown_peak_absorbance"] / instance.hidden["epsilon"]


def bench(instance: Instance) -> SpectrophotometerBench:
    """The bench of ``instance``: the blank, the standards, the unknown."""
    the_dye = dye(instance)
    cuvettes = [
        Cuvette("cuvette_0"),
        *(Cuvette(f"cuvette_{k}", ((the_dye, standard(instance, k)),)) for k in range(1, STANDARDS + 1)),
        Cuvette(f"cuvette_{UNKNOWN}", ((the_dye, unknown_concentration(instance)),)),
    ]
    return SpectrophotometerBench(cuvettes, instance.noise_key)


class SpectroCalibrationEvaluator(SpectroEvaluator):
    """Scores the unknown's concentration; L4 asks for the unknown and two other cuvettes read at one
    wavelength."""

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        lines = sorted(nm for nm, cuvettes in self.read_at(valid, log).items() if self._line(cuvettes))
        return [
            *self.holder_milestones(log),
            Check(
                "L4",
                bool(lines),
                f"the unknown and {LINE_POINTS} other cuvettes read at {lines[0]:g} nm"
                if lines
                else f"no wavelength with valid readings of the unknown and {LINE_POINTS} other cuvettes",
            ),
        ]

    @staticmethod
    def _line(cuvettes: set[int]) -> bool:
        return UNKNOWN in cuvettes and len(cuvettes - {UNKNOWN}) >= LINE_POINTS

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        if name != "unknown":
            return super().property_of(name, verdict, log)
        return self.seated_wavelength(UNKNOWN, verdict, log)

    @cached_property
    def dye(self) -> Dye:
        """The instance's dye."""
        return dye(self.instance)

    def targets(self) -> dict[str, float]:
        return {"c_unknown": unknown_concentration(self.instance)}


EXPERIMENT = Experiment(SPEC, bench, SpectroCalibrationEvaluator)
