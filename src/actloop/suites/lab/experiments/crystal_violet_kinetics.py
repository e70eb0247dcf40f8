"""#22 Crystal-violet kinetics: the second-order rate constant k2 of crystal violet's fading in base.

The spectrophotometer bench with its logger (:mod:`..platforms.spectrophotometer_kinetics`): a blank and
three cuvettes each holding 2.00 mL of crystal violet, and four vials each holding 1.00 mL of sodium
hydroxide at a printed concentration. Poured into a cuvette, a vial's base fades the dye at
``k0 + k2 [OH⁻]`` per second, hydroxide in a thousand-fold excess (pseudo-first order). Hidden: k2 (scored)
and k0, the dye's slow fading without base, 4-25 % of the fading at the strongest base. One run gives
``k0 + k2 [OH⁻]``, not k2: the experimenter chooses the hydroxide concentrations (a) and separates k2
from k0 by runs at two or more of them (c).
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, Verdict, distinct, instrument_of
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.solutions import CRYSTAL_VIOLET, HYDROXIDE, Portion
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.spectrophotometer import (
    ABSORBANCE,
    SEATED_RULE,
    Cuvette,
    instrument_parts,
    rack_part,
)
from actloop.suites.lab.platforms.spectrophotometer_evaluation import (
    L2_HOLD_S,
    RACK_HEIGHT_TOLERANCE_M,
    RACK_TOLERANCE_M,
    UPRIGHT_TOLERANCE_RAD,
    SpectroEvaluator,
)
from actloop.suites.lab.platforms.spectrophotometer_kinetics import (
    CRYSTAL_VIOLET_DYE,
    KineticsBench,
    log_key_part,
    vial_rack_part,
    vial_slot,
)
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, ReadingsAt, choice, uniform
from actloop.suites.lab.watch import ContactWatch, HeldFor, Timeline, back_in_place, first_observation

DYE_CUVETTES = (1, 2, 3)
DYE_ML, BASE_ML = 2.00, 1.00
BASES = (0.030, 0.060, 0.090, 0.120)
"""The vials' sodium hydroxide (mol/L), vial_1 to vial_4: 0.01-0.04 mol/L once mixed with a cuvette's dye."""
RUN_S = 30.0
RUN_READINGS = 10
"""L4: a kinetic run is valid readings of one mixed cuvette spanning RUN_S or more, RUN_READINGS or more."""
DISTINCT_OH = 0.002
"""Hydroxide concentrations closer than this (mol/L) count as one."""

SPEC = specify(
    "crystal_violet_kinetics",
    question=(
        "Determine the second-order rate constant k2 (L mol⁻¹ s⁻¹) of crystal violet's fading in base, "
        "CV⁺ + OH⁻ → CVOH (colourless), whose rate is k2 [OH⁻][CV⁺]. The cuvettes have a 1 cm path."
    ),
    budget_s=1500.0,
    parameters=(
        Parameter("k2", "the second-order rate constant", "L/(mol s)", uniform(0.15, 0.35)),
        Parameter("k0", "the dye's fading without base (first order)", "1/s", uniform(5e-4, 1.5e-3)),
        Parameter(
            "dye_concentration",
            "crystal violet's concentration in cuvette_1 to cuvette_3 before mixing",
            "mol/L",
            choice(1.0e-5, 1.2e-5),
            public=True,
        ),
    ),
    parts=(
        *instrument_parts(),
        log_key_part(),
        rack_part(len(DYE_CUVETTES) + 1),
        Part("cuvette_0", "3.00 mL of water (a blank), in rack slot 0"),
        *(
            Part(
                f"cuvette_{i}",
                f"{DYE_ML:.2f} mL of crystal violet (dye_concentration) in water, in rack slot {i}",
            )
            for i in DYE_CUVETTES
        ),
        vial_rack_part(len(BASES)),
        *(
            Part(f"vial_{k}", f"{BASE_ML:.2f} mL of sodium hydroxide, {c:.3f} mol/L, in vial rack slot {k}")
            for k, c in enumerate(BASES, 1)
        ),
    ),
    rules=(
        SEATED_RULE,
        "A vessel pours once it leans far enough for its liquid to reach the rim, from the lowest point of "
        "the rim; what it pours falls straight down into the cuvette or vial whose mouth lies below, or "
        "onto the bench: a spill, which leaves the bench unrestored. Volumes add on mixing.",
        "The concentrations are the printed ones.",
    ),
    minima=(
        ReadingsAt(
            ("absorbance",),
            "hydroxide",
            2,
            "hydroxide concentrations (mixed cuvettes of dye and base)",
            gap=DISTINCT_OH,
            unit="mol/L",
        ),
    ),
)


def hydroxide_after_mixing(k: int) -> float:
    """The hydroxide concentration (mol/L) vial ``k`` gives a cuvette of dye it is poured into."""
    return BASES[k - 1] * BASE_ML / (DYE_ML + BASE_ML)


def bench(instance: Instance) -> KineticsBench:
    """The bench of ``instance``: the blank, the cuvettes of dye, the vials of base."""
    c0 = instance.public["dye_concentration"]
    dye = Portion.of(DYE_ML, {CRYSTAL_VIOLET: c0})
    cuvettes = [Cuvette("cuvette_0")] + [
        Cuvette(f"cuvette_{i}", ((CRYSTAL_VIOLET_DYE, c0),)) for i in DYE_CUVETTES
    ]
    return KineticsBench(
        cuvettes,
        [Portion(DYE_ML + BASE_ML)] + [dye] * len(DYE_CUVETTES),
        [Portion.of(BASE_ML, {HYDROXIDE: c}) for c in BASES],
        instance.hidden["k0"],
        instance.hidden["k2"],
        instance.noise_key,
    )


class CrystalVioletEvaluator(SpectroEvaluator):
    """Watches the hydroxide in the seated cuvette; L2-L4 and the evidence need mixed cuvettes; the bench
    is restored with every vial back in its slot and nothing spilled."""

    restored_text = "every cuvette and vial is back in its rack and nothing is spilled"

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, bench: Platform) -> None:
        super().__init__(spec, record, instance, bench)
        self.hydroxide: Timeline[float | None] = Timeline(record, "hydroxide", "mol_l", None)
        """The hydroxide concentration in the cuvette seated untouched (None: none seated; 0: unmixed)."""
        self._mixed_blanked = HeldFor()
        self.mixed_hold = False

    @property
    def kinetics(self) -> KineticsBench:
        """The bench watched, with its vials and vessels."""
        assert isinstance(self.platform, KineticsBench)
        return self.platform

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return super().handled(watch) | watch.geoms(*self.kinetics.vials)

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        super().observe(time_s, data, touched)
        seated = self.holder.now
        oh = None if seated is None else self.kinetics.vessels.stored(seated).concentration(HYDROXIDE)
        self.hydroxide.update(time_s, oh)
        mixed = bool(oh) and bool(self.kinetics.blanks)
        self.mixed_hold |= self._mixed_blanked.update(time_s, mixed) >= L2_HOLD_S

    def _mixed_at(self, time_s: float) -> bool:
        return bool(self.hydroxide.at(time_s))

    def runs(self, valid: Sequence[Verdict]) -> dict[tuple[int, float], list[float]]:
        """The times of valid absorbance readings (images or logger rows) by (cuvette, hydroxide)."""
        found: dict[tuple[int, float], list[float]] = {}
        for v in valid:
            if v.time_s is None or instrument_of(v.citation) != ABSORBANCE.name:
                continue
            cuvette, oh = self.holder.at(v.time_s), self.hydroxide.at(v.time_s)
            if cuvette is not None and oh:
                found.setdefault((cuvette, oh), []).append(v.time_s)
        return found

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        runs = self.runs(valid)
        first = first_observation(log, self._mixed_at, [ABSORBANCE.name])
        full = distinct(
            (oh for (_, oh), t in runs.items() if len(t) >= RUN_READINGS and max(t) - min(t) >= RUN_S),
            DISTINCT_OH,
        )
        return [
            Check(
                "L1",
                self.acted,
                "the robot touched a cuvette, a vial or a key" if self.acted else "nothing touched",
            ),
            Check(
                "L2",
                self.mixed_hold,
                f"a mixed cuvette stood seated and untouched for {L2_HOLD_S} s after a blank"
                if self.mixed_hold
                else "no mixed cuvette stood seated and untouched after a blank",
            ),
            Check(
                "L3",
                first is not None or bool(runs),
                "a first valid reading with a mixed cuvette seated"
                if first is not None or runs
                else "no observation or logged row shows the absorbance of a mixed cuvette",
            ),
            Check(
                "L4",
                len(full) >= 2,
                f"kinetic runs ({RUN_READINGS} or more readings over {RUN_S:g} s or more) at {len(full)} "
                f"hydroxide concentrations {[round(oh, 4) for oh in full]} (needed 2)",
            ),
        ]

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        if name != "hydroxide":
            return super().property_of(name, verdict, log)
        if verdict.time_s is None or self.holder.at(verdict.time_s) is None:
            return None
        return self.hydroxide.at(verdict.time_s) or None

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        vials = [
            problem
            for k, vial in enumerate(self.kinetics.vials, 1)
            for problem in back_in_place(
                data,
                vial,
                vial_slot(k),
                "its slot in the vial rack",
                RACK_TOLERANCE_M,
                RACK_HEIGHT_TOLERANCE_M,
                UPRIGHT_TOLERANCE_RAD,
            )
        ]
        spilled = [
            f"{vessel} spilled {volume:.2f} mL onto the bench"
            for vessel, volume in self.kinetics.vessels.spilled_ml().items()
        ]
        return [*super().restore_problems(data), *vials, *spilled]

    def targets(self) -> dict[str, float]:
        return {"k2": self.instance.hidden["k2"]}


EXPERIMENT = Experiment(SPEC, bench, CrystalVioletEvaluator)
