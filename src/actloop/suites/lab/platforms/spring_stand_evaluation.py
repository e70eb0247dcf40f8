"""What every spring-stand experiment's evaluator watches: the weights the tray carries over time (directly or
stacked), whether the tray is at rest and untouched (and for how long while loaded), what the robot works
(a weight); L1-L3 and the stand's restore rules (every weight back in the rack, upright; the robot holding
nothing).

An experiment's evaluator subclasses :class:`StandEvaluator` and adds L4, its targets and its refit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import mujoco

from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Conditions, Verdict
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.spring_stand import RULER, TRAY_PLATE, SpringStand
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec
from actloop.suites.lab.watch import (
    ContactWatch,
    HeldFor,
    Timeline,
    back_in_place,
    carried_by,
    first_observation,
)

AT_REST = "tray at rest and untouched"
REST_SPEED_M_S = 2e-4
REST_HOLD_S = 0.5
"""The tray is at rest once it has moved slower than REST_SPEED_M_S for REST_HOLD_S."""
L2_HOLD_S = 1.2
RACK_TOLERANCE_M = 0.008
RACK_HEIGHT_TOLERANCE_M = 0.005
UPRIGHT_TOLERANCE_RAD = 0.17


def rest_rule() -> str:
    """The card's rule for readings on the stand."""
    return (
        f"A reading is the pointer's position on the ruler, taken with the tray at rest (moving slower than "
        f"{1000 * REST_SPEED_M_S:g} mm/s for at least {REST_HOLD_S:g} s) and neither it nor its load touched "
        f"by the robot."
    )


class StandEvaluator(BenchEvaluator[SpringStand]):
    """Watches the stand (see the module docstring)."""

    restored_text = "every weight is back in the rack"
    required_conditions: tuple[str, ...] = (AT_REST,)

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, stand: Platform) -> None:
        super().__init__(spec, record, instance, stand)
        self.loads = Timeline(self.record, "load", "weights_on_tray", 0)
        """The number of weights the tray carries."""
        self._rest = HeldFor(since=0.0)  # the empty tray starts at rest
        self._loaded_rest = HeldFor()
        self.loaded_rest_held = False
        """Whether the tray rested loaded and untouched for L2_HOLD_S."""
        self._plate = -1
        self._weights: frozenset[int] = frozenset()
        self.tray_free = True
        """Whether the robot touches neither the tray nor anything on it (this step)."""

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        """The weights (whose geoms it keeps, with the tray plate's, for :meth:`observe`)."""
        (self._plate,) = watch.geoms(TRAY_PLATE)
        self._weights = watch.geoms(*self.platform.weights)
        return self._weights

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        carried = carried_by(self._plate, self._weights, self.watch(data.model).links(data))
        self.loads.update(time_s, len(carried))
        slow = self.platform.tray_speed(data) < REST_SPEED_M_S
        untouched = touched.isdisjoint({self._plate, *carried})
        self.tray_free = untouched
        at_rest = self._rest.update(time_s, slow and untouched) >= REST_HOLD_S
        self.tracker.update(time_s, {AT_REST: at_rest})
        self.loaded_rest_held |= (
            self._loaded_rest.update(time_s, at_rest and self.loads.now >= 1) >= L2_HOLD_S
        )

    def reading_loads(self, valid: Sequence[Verdict]) -> list[tuple[int, float]]:
        """(weights on the tray, value) of every valid reading."""
        return [(self.loads.at(v.time_s), v.citation.value) for v in valid if v.time_s is not None]

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        if name != "load" or verdict.time_s is None:
            return super().property_of(name, verdict, log)
        return float(self.loads.at(verdict.time_s))

    def rest_milestones(self, log: InstrumentLog, conditions: Conditions) -> list[Check]:
        """L1-L3: the robot touched a weight; the loaded tray rested untouched for L2_HOLD_S; an observation
        shows the loaded tray at rest with the ruler readable."""
        first = first_observation(
            log, lambda t: conditions.held(AT_REST, t) and self.loads.at(t) >= 1, (RULER.name,)
        )
        return [
            Check(
                "L1",
                self.acted,
                "a weight was touched by the robot" if self.acted else "no weight was touched",
            ),
            Check(
                "L2",
                self.loaded_rest_held,
                f"the loaded tray rested untouched for {L2_HOLD_S} s"
                if self.loaded_rest_held
                else "the tray never rested loaded and untouched",
            ),
            Check(
                "L3",
                first is not None,
                f"observation {first.observation_id} shows the loaded tray at rest with the ruler readable"
                if first
                else "no observation shows the loaded tray at rest with the ruler readable",
            ),
        ]

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        places = {weight: self.platform.rack_position(i) for i, weight in enumerate(self.platform.weights, 1)}
        return weights_in_rack(data, places)


def weights_in_rack(data: mujoco.MjData, places: Mapping[str, Sequence[float]]) -> list[str]:
    """The restore rule for weights: each back upright on its place in the rack (its centre there)."""
    return [
        problem
        for weight, place in places.items()
        for problem in back_in_place(
            data,
            weight,
            place,
            "its place in the rack",
            RACK_TOLERANCE_M,
            RACK_HEIGHT_TOLERANCE_M,
            UPRIGHT_TOLERANCE_RAD,
        )
    ]
