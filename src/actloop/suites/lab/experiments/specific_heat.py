"""#24 Specific heat: the specific heat capacity of a metal sample by the method of mixtures.

The thermal bench set for calorimetry (:mod:`..platforms.calorimeter`): the sample is heated in the block's
well and carried into an insulated calorimeter of water at room temperature; thermometers show the block's
and the water's temperatures, and a logger records both. Hidden: c_s (scored), the calorimeter's insulation
(its loss to the room) and the room's temperature. The water is losing heat while the sample warms it, so
its peak falls short of the mixture's lossless temperature by 1-3 %: the loss must be identified from how
the mixture cools afterwards and corrected (c); when to move the sample (it lags the block by its own time
constant) and how long to record are the experimenter's (b). The sample also loses a little heat in the
air on its way, about a tenth of a percent for a quick carry.
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Citation, Conditions, Verdict, instrument_of
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.calorimeter import (
    HEATER_THERMOMETER,
    WATER_C,
    WATER_THERMOMETER,
    CalorimeterBench,
    bench_parts,
)
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, choice, uniform
from actloop.suites.lab.watch import (
    ContactWatch,
    HeldFor,
    Timeline,
    first_observation,
    switched_off,
    tilt_rad,
)

CUP_J_PER_K = 25.0
"""The calorimeter's cup and stirrer (public: printed on the cup)."""
IN_HEATED_BLOCK = "sample in the heated block"
SOAK_S = 60.0
"""L2: the sample stood in the heated block this long before it went into the water."""
AFTER_MIXING_S = 120.0
"""L4: water readings after mixing spanning this long, for the loss to be found from the cooling."""
UPRIGHT_TOLERANCE_RAD = 0.17
WORKED = ("sample", "rocker", "key_0", "key_1", "key_log")

SPEC = specify(
    "specific_heat",
    question=(
        "Determine the specific heat capacity c_s of the metal sample, in J/(kg K). Water's specific heat "
        f"is {WATER_C:g} J/(kg K); the water in the calorimeter starts at the room's temperature."
    ),
    budget_s=1500.0,
    parameters=(
        Parameter("c_s", "specific heat capacity of the sample", "J/(kg K)", uniform(380.0, 920.0)),
        Parameter("insulation", "the calorimeter's heat loss to the room", "W/K", uniform(0.06, 0.15)),
        Parameter("room", "temperature of the room", "degC", uniform(19.0, 23.0)),
        Parameter("sample_mass", "mass of the sample", "kg", choice(0.08, 0.10, 0.12), public=True),
        Parameter(
            "water_mass", "mass of the water in the calorimeter", "kg", choice(0.09, 0.10, 0.11), public=True
        ),
    ),
    parts=bench_parts(CUP_J_PER_K),
    rules=(
        "A reading of the block's temperature counts only with the sample standing in the block's well and "
        "the heater on.",
    ),
)


def bench(instance: Instance) -> CalorimeterBench:
    """The calorimetry bench of ``instance``."""
    h, p = instance.hidden, instance.public
    return CalorimeterBench(
        p["sample_mass"] * h["c_s"], p["water_mass"] * WATER_C + CUP_J_PER_K, h["insulation"], h["room"]
    )


class SpecificHeatEvaluator(BenchEvaluator[CalorimeterBench]):
    """Watches where the sample stands, how long it soaked in the heated block and when it went into the
    water; scores c_s."""

    restored_text = "heater off, the sample in its holder"

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, platform: Platform) -> None:
        super().__init__(spec, record, instance, platform)
        self.where: Timeline[str] = Timeline(record, "sample", "at", "holder")
        self.mixed_at: float | None = None
        """When the sample first stood in the calorimeter's water after soaking (s)."""
        self._soak = HeldFor()
        self._soaked_s = 0.0

    @staticmethod
    def required_conditions(citation: Citation) -> tuple[str, ...]:  # type: ignore[override]
        """The block's temperature counts as the sample's only with the sample in the heated block."""
        return (IN_HEATED_BLOCK,) if instrument_of(citation) == HEATER_THERMOMETER.name else ()

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return watch.geoms_of_bodies(*WORKED)

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        bench = self.platform
        at = next((w for w in ("block", "calorimeter", "holder") if bench.sample_in(data, w)), "air")
        self.where.update(time_s, at)
        heated = at == "block" and bench.heater_on(data)
        self.tracker.update(time_s, {IN_HEATED_BLOCK: heated})
        soaked = self._soak.update(time_s, heated)
        if heated:
            self._soaked_s = soaked
        if at == "calorimeter" and self.mixed_at is None and self._soaked_s >= SOAK_S:
            self.mixed_at = time_s

    @staticmethod
    def water_times(valid: Sequence[Verdict]) -> list[float]:
        """The times of the valid readings of the water thermometer."""
        return [
            v.time_s
            for v in valid
            if v.time_s is not None and instrument_of(v.citation) == WATER_THERMOMETER.name
        ]

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        mixed = self.mixed_at
        first = (
            None if mixed is None else first_observation(log, lambda t: t >= mixed, (WATER_THERMOMETER.name,))
        )
        rows = [] if mixed is None else [r for r in log.rows("logger") if r.time_s >= mixed]
        heater = [v for v in valid if instrument_of(v.citation) == HEATER_THERMOMETER.name]
        water = self.water_times(valid)
        before = [t for t in water if mixed is not None and t < mixed]
        after = [t for t in water if mixed is not None and t >= mixed]
        span = max(after) - min(after) if after else 0.0
        enough = bool(heater) and bool(before) and span >= AFTER_MIXING_S
        return [
            self.handled_check(),
            Check(
                "L2",
                mixed is not None,
                f"the sample soaked in the heated block for {SOAK_S:g} s and went into the water at "
                f"{mixed:.1f} s"
                if mixed is not None
                else f"the sample never went into the water after {SOAK_S:g} s in the heated block",
            ),
            Check(
                "L3",
                first is not None or bool(rows),
                "the water's temperature was seen or logged after mixing"
                if first is not None or rows
                else "no reading of the water's temperature after mixing",
            ),
            Check(
                "L4",
                enough,
                f"{len(heater)} valid readings of the heated block, {len(before)} of the water before mixing "
                f"and {len(after)} after it spanning {span:.0f} s (the block, the water before, and "
                f"{AFTER_MIXING_S:g} s after are needed)",
            ),
        ]

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        bench = self.platform
        problems = switched_off(bench.heater_on(data), "heater")
        if not bench.sample_in(data, "holder"):
            x, y, z = bench.sample_tip(data)
            problems.append(f"the sample is not in its holder (its bottom is at {x:.3f}, {y:.3f}, {z:.3f} m)")
        elif (tilt := tilt_rad(data, "sample")) > UPRIGHT_TOLERANCE_RAD:
            problems.append(f"the sample leans by {tilt:.2f} rad")
        return problems

    def targets(self) -> dict[str, float]:
        return {"c_s": self.instance.hidden["c_s"]}


EXPERIMENT = Experiment(SPEC, bench, SpecificHeatEvaluator)
