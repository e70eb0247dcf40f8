"""#19 Strong-acid titration: the concentration of a hydrochloric acid sample, by titration with sodium
hydroxide of printed concentration.

The titration bench (:mod:`..platforms.titration`): three beakers of the same acid, each of a printed volume,
a 50 mL burette of 0.2000 mol/L sodium hydroxide dropping 0.050 mL drops, and a pH electrode whose
calibration is off by a hidden offset (±0.15) and slope (96-100 %). The electrode's error makes every pH
value a few per cent off in [H⁺], so only the equivalence point, where the pH leaps by several units
within a drop or two, gives the acid to 0.5 %: a drop is 0.2-0.35 % of the titrant it takes, and the
electrode settles over seconds after each addition, so the experimenter must add the titrant quickly far
from the equivalence point and drop by drop near it, reading where it is from the pH so far (b).
"""

from __future__ import annotations

from collections.abc import Sequence

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.solutions import Portion
from actloop.suites.lab.platforms.titration import (
    HYDROCHLORIC_ACID,
    Electrode,
    TitrationBench,
    bench_parts,
)
from actloop.suites.lab.platforms.titration_evaluation import (
    BRACKET_ML,
    DROP_RULE,
    READING_RULE,
    SAMPLE_ML,
    TITRANT_READINGS,
    TitrationEvaluator,
    sample_parts,
)
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import Parameter, uniform

BEAKERS = 3
TITRANT_M = 0.2000
"""The sodium hydroxide in the burette (mol/L)."""

SPEC = specify(
    "strong_acid_titration",
    question=(
        "Determine the concentration (mol/L) of the hydrochloric acid in the beakers, by titration with the "
        "sodium hydroxide in the burette."
    ),
    budget_s=900.0,
    parameters=(
        Parameter("c_HCl", "the hydrochloric acid's concentration", "mol/L", uniform(0.07, 0.11)),
        Parameter("electrode_offset", "the electrode's reading error at pH 7", "pH", uniform(-0.15, 0.15)),
        Parameter(
            "electrode_slope", "the electrode's response relative to the ideal", "", uniform(0.96, 1.0)
        ),
        SAMPLE_ML,
    ),
    parts=(
        *bench_parts(BEAKERS),
        *sample_parts(BEAKERS, "the hydrochloric acid"),
    ),
    rules=(
        READING_RULE,
        DROP_RULE,
        f"The burette holds sodium hydroxide of {TITRANT_M:.4f} mol/L; the volumes and the concentration are "
        "the printed ones.",
        "The electrode was calibrated some time ago: its readings may be off by up to 0.15 pH, and its "
        "response by a few per cent.",
    ),
    minima=(TITRANT_READINGS,),
)


def bench(instance: Instance) -> TitrationBench:
    """The bench of ``instance``: the beakers of acid, the burette, the electrode with its error."""
    h, p = instance.hidden, instance.public
    sample = Portion.of(p["sample_ml"], {HYDROCHLORIC_ACID: h["c_HCl"]})
    electrode = Electrode(h["electrode_slope"], h["electrode_offset"])
    return TitrationBench([sample] * BEAKERS, TITRANT_M, electrode)


def equivalence_ml(instance: Instance) -> float:
    """The titrant (mL) that neutralises one beaker's acid."""
    return instance.hidden["c_HCl"] * instance.public["sample_ml"] / TITRANT_M


class StrongAcidEvaluator(TitrationEvaluator):
    """L4: readings of one sample close to its equivalence point on both sides."""

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        bracketed = self.bracketing(valid, equivalence_ml(self.instance), BRACKET_ML)
        return [
            *self.sample_milestones(log),
            Check(
                "L4",
                bool(bracketed),
                f"valid readings of a sample within {BRACKET_ML:g} mL of its equivalence point on both sides"
                if bracketed
                else f"no sample read within {BRACKET_ML:g} mL of its equivalence point on both sides",
            ),
        ]

    def targets(self) -> dict[str, float]:
        return {"c_HCl": self.instance.hidden["c_HCl"]}


EXPERIMENT = Experiment(SPEC, bench, StrongAcidEvaluator)
