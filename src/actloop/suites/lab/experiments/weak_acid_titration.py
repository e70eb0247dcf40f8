"""#21 Weak-acid titration: the concentration and the pKa of a dilute weak acid, by titration with dilute
sodium hydroxide of printed concentration.

The titration bench (:mod:`..platforms.titration`): three beakers of the same weak acid (3-6 mmol/L, pKa
3.3-4.3), each of a printed volume, a 50 mL burette of 0.0100 mol/L sodium hydroxide dropping 0.050 mL
drops, and a freshly calibrated pH electrode. The concentration comes from the equivalence
point, found drop by drop where the pH leaps (b). The pKa comes from the buffer region, but at these
concentrations the acid's own dissociation is a large share of what the base has neutralised: the pH at
half neutralisation misses the pKa by up to 0.2, and only the acid's equilibrium with the charge balance
(``[A⁻] = [Na⁺] + [H⁺] − [OH⁻]``) gives it within its 0.03 (c).
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
    WEAK_ACID,
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
TITRANT_M = 0.0100
"""The sodium hydroxide in the burette (mol/L)."""
BUFFER_REGION = (0.2, 0.8)
"""L4: and a valid reading of it with this share of its acid neutralised."""

SPEC = specify(
    "weak_acid_titration",
    question=(
        "Determine the concentration (mol/L) of the weak acid in the beakers, and its pKa, by titration with "
        "the sodium hydroxide in the burette. The acid is monoprotic."
    ),
    budget_s=1200.0,
    parameters=(
        Parameter("c_HA", "the weak acid's concentration", "mol/L", uniform(0.003, 0.006)),
        Parameter("pKa", "the weak acid's pKa", "", uniform(3.3, 4.3)),
        SAMPLE_ML,
    ),
    parts=(
        *bench_parts(BEAKERS),
        *sample_parts(BEAKERS, "the weak acid"),
    ),
    rules=(
        READING_RULE,
        DROP_RULE,
        f"The burette holds sodium hydroxide of {TITRANT_M:.4f} mol/L; the volumes and the concentration are "
        "the printed ones; the bench stands at 25 °C, where water's ion product is 1.0e-14.",
        "The electrode was calibrated this morning: it reads the pH to its display's 0.01.",
    ),
    minima=(TITRANT_READINGS,),
)


def bench(instance: Instance) -> TitrationBench:
    """The bench of ``instance``: the beakers of acid, the burette, the calibrated electrode."""
    h, p = instance.hidden, instance.public
    sample = Portion.of(p["sample_ml"], {WEAK_ACID: h["c_HA"]})
    return TitrationBench([sample] * BEAKERS, TITRANT_M, Electrode(), {WEAK_ACID: h["pKa"]})


def equivalence_ml(instance: Instance) -> float:
    """The titrant (mL) that neutralises one beaker's acid."""
    return instance.hidden["c_HA"] * instance.public["sample_ml"] / TITRANT_M


class WeakAcidEvaluator(TitrationEvaluator):
    """L4: one sample read in its buffer region and close to its equivalence point on both sides."""

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        v_eq = equivalence_ml(self.instance)
        low, high = (share * v_eq for share in BUFFER_REGION)
        read = self.sample_readings(valid)
        samples = {
            beaker
            for beaker in self.bracketing(valid, v_eq, BRACKET_ML)
            if any(low <= ml <= high for ml, _ in read[beaker])
        }
        return [
            *self.sample_milestones(log),
            Check(
                "L4",
                bool(samples),
                (
                    "valid readings of a sample in its buffer region and within "
                    if samples
                    else "no sample read both in its buffer region and within "
                )
                + f"{BRACKET_ML:g} mL of its equivalence point on both sides ({BUFFER_REGION[0]:.0%}-"
                f"{BUFFER_REGION[1]:.0%} of its acid neutralised)",
            ),
        ]

    def targets(self) -> dict[str, float]:
        return {"c_HA": self.instance.hidden["c_HA"], "pKa": self.instance.hidden["pKa"]}


EXPERIMENT = Experiment(SPEC, bench, WeakAcidEvaluator)
