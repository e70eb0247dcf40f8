"""#29 Thermal expansion: the linear expansion coefficient α of a metal rod from its growth on a dial
indicator against the temperature of the water jacket around it.

The expansion rig (:mod:`..platforms.expansion_rig`): the rod lies in a water jacket warmed by the heater
controller; its growth pushes a dial indicator's spindle (graduations of 0.002 mm, read from images with a
turn counter); an LCD shows the water's temperature. The spindle starts lifted off the rod by the lever on
the dial's top. Hidden: α (scored), the rod's lag behind the water (its time constant, 20-40 s), the
spindle's preload and the room's temperature. The thermometer reads the water, not the rod: a reading taken
as soon as the water holds steady catches the rod still growing, so α comes out 1-4 % low; the dial must be
left to settle first (basic: the standard design waits).
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Citation, Conditions, Verdict, distinct, instrument_of
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.expansion_rig import DIAL, ExpansionRig, bench_parts
from actloop.suites.lab.platforms.thermal_bench import THERMOMETER
from actloop.suites.lab.platforms.thermal_bench_evaluation import readings_of, thermometer_at
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, ReadingsAt, uniform
from actloop.suites.lab.watch import ContactWatch, HeldFor, first_observation, switched_off

ON_ROD = "spindle on the rod"
SPAN_C = 20.0
"""L4 and the evidence minimum: readings at two temperatures of the water at least this far apart."""
RAISED_C = 10.0
SETTLED_C = 0.1
L2_HOLD_S = 5.0
"""L2: the spindle on the rod with the rod settled (within SETTLED_C of the water) RAISED_C or more above the
room, for L2_HOLD_S."""
WORKED = ("rocker", "key_0", "key_1", "lift_lever")

SPEC = specify(
    "thermal_expansion",
    question=(
        "Determine the linear expansion coefficient α of the rod's metal (1/K): its length grows by "
        "α L ΔT for a rise ΔT, where L is its length at 20 degC."
    ),
    budget_s=1500.0,
    parameters=(
        Parameter("alpha", "linear expansion coefficient of the rod", "1/K", uniform(9e-6, 24e-6)),
        Parameter(
            "rod_lag", "time constant of the rod's temperature behind the water's", "s", uniform(20.0, 40.0)
        ),
        Parameter(
            "preload", "how far the rod's end pushes the spindle in at 20 degC", "mm", uniform(0.3, 0.6)
        ),
        Parameter("room", "temperature of the room", "degC", uniform(19.0, 23.0)),
    ),
    parts=bench_parts(),
    rules=("A dial reading counts only with the spindle lowered onto the rod.",),
    minima=(
        ReadingsAt(
            (THERMOMETER.name, DIAL.name),
            "temperature",
            2,
            "temperatures of the water",
            SPAN_C,
            "degC",
        ),
    ),
)


def bench(instance: Instance) -> ExpansionRig:
    """The expansion rig of ``instance``."""
    h = instance.hidden
    return ExpansionRig(h["alpha"], h["rod_lag"], h["preload"], h["room"])


class ThermalExpansionEvaluator(BenchEvaluator[ExpansionRig]):
    """Watches the lift lever and the rod's temperature; scores α."""

    restored_text = "heater off, the spindle lifted"

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, platform: Platform) -> None:
        super().__init__(spec, record, instance, platform)
        self._raised = HeldFor()
        self.raised_at: float | None = None
        """When the spindle had stood on the settled, raised rod for L2_HOLD_S (s)."""

    @staticmethod
    def required_conditions(citation: Citation) -> tuple[str, ...]:  # type: ignore[override]
        """A dial reading counts with the spindle on the rod."""
        return (ON_ROD,) if instrument_of(citation) == DIAL.name else ()

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return watch.geoms_of_bodies(*WORKED)

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        rig = self.platform
        on_rod = not rig.lifted
        self.tracker.update(time_s, {ON_ROD: on_rod})
        rod = rig.rod_c()
        raised = on_rod and rod >= rig.room_c + RAISED_C and abs(rod - rig.jacket_c()) <= SETTLED_C
        if self._raised.update(time_s, raised) >= L2_HOLD_S and self.raised_at is None:
            self.raised_at = time_s

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        raised = self.raised_at
        first = (
            None
            if raised is None
            else first_observation(
                log, lambda t: t >= raised and conditions.held(ON_ROD, t), (DIAL.name, THERMOMETER.name)
            )
        )
        temperatures = distinct(readings_of(valid, THERMOMETER.name), SPAN_C)
        at_dial = distinct(
            [
                t
                for v in valid
                if instrument_of(v.citation) == DIAL.name
                if (t := thermometer_at(v, log)) is not None
            ],
            SPAN_C,
        )
        return [
            self.handled_check(),
            Check(
                "L2",
                raised is not None,
                f"the spindle stood on the settled rod {RAISED_C:g} degC above the room at {raised:.1f} s"
                if raised is not None
                else f"the spindle never stood on the rod settled {RAISED_C:g} degC or more above the room",
            ),
            Check(
                "L3",
                first is not None,
                f"observation {first.observation_id} shows the dial and the thermometer readable"
                if first
                else "no observation shows the dial and the thermometer readable on the warm rod",
            ),
            Check(
                "L4",
                len(temperatures) >= 2 and len(at_dial) >= 2,
                f"valid thermometer readings at {len(temperatures)} and dial readings at {len(at_dial)} "
                f"temperatures {SPAN_C:g} degC apart (two of each are needed)",
            ),
        ]

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        """``temperature``: the water's temperature the thermometer showed at the reading."""
        if name != "temperature":
            return super().property_of(name, verdict, log)
        return thermometer_at(verdict, log)

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        rig = self.platform
        problems = switched_off(rig.heater_on(data), "heater")
        if not rig.lifted:
            problems.append("the spindle is down on the rod (lift it with the lever's back half)")
        return problems

    def targets(self) -> dict[str, float]:
        return {"alpha": self.instance.hidden["alpha"]}


EXPERIMENT = Experiment(SPEC, bench, ThermalExpansionEvaluator)
