"""What every optical-rail experiment's evaluator watches: whether a lens is seated in a carriage's holder
with the image on the screen in focus (and for how long), what the robot works (a lens, a carriage); L1-L3
and the rail's restore rules (every item upright in its stand and none off the bench; the robot holding
nothing).

An experiment's evaluator subclasses :class:`RailEvaluator` (readings in focus) or
:class:`DiffractionEvaluator` (readings with a grating or slit seated) and adds L4 and its targets.
"""

from __future__ import annotations

import math
from typing import ClassVar

import mujoco

from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Conditions
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.optical_rail import FOCUS_BLUR_M, OpticalRail
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec
from actloop.suites.lab.watch import ContactWatch, HeldFor, on_the_bench

FOCUSED = "lens seated and image in focus"
SEATED = "slide seated"
L2_HOLD_S = 1.0
CARRIAGE_INDEXES = ("lens_index", "screen_index")


class RailEvaluator(BenchEvaluator[OpticalRail]):
    """Watches the rail (see the module docstring)."""

    condition: ClassVar[str] = FOCUSED
    """The state readings count in, tracked every step and held for L2."""
    required_conditions: tuple[str, ...] = (FOCUSED,)
    restored_text = "the lens is back in its stand"
    readable_at_l3: ClassVar[tuple[str, ...]] = CARRIAGE_INDEXES
    """L3: an observation in :attr:`condition` with one of these instruments readable."""

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, rail: Platform) -> None:
        super().__init__(spec, record, instance, rail)
        self._held = HeldFor()
        self.held = False
        """Whether :attr:`condition` held for L2_HOLD_S."""

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        items = (item.name for item in self.platform.items)
        carriages = (f"{c.name}_carriage" for c in self.platform.sliders)
        return watch.geoms_of_bodies(*items, *carriages)

    def holds(self) -> bool:
        """Whether :attr:`condition` holds now: by default a lens is seated and the image on the screen in
        focus."""
        seated = any(seat is not None for seat in self.platform.seats.values())
        return seated and self.platform.blur_diameter() <= FOCUS_BLUR_M

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        holds = self.holds()
        self.tracker.update(time_s, {self.condition: holds})
        self.held |= self._held.update(time_s, holds) >= L2_HOLD_S

    def rail_milestones(self, log: InstrumentLog, conditions: Conditions) -> list[Check]:
        """L1-L3: the robot handled an item or a carriage; :attr:`condition` held; an observation in it
        shows one of :attr:`readable_at_l3` readable."""
        names = " or ".join(self.readable_at_l3)
        first = next(
            (o for o in log.observations.values()
             if conditions.held(self.condition, o.time_s)
             and any(v.readable for name in self.readable_at_l3 for v in o.views_of(name))),
            None,
        )  # fmt: skip
        return [
            Check("L1", self.acted, "the robot handled an item or a carriage" if self.acted
                  else "the robot touched no item and no carriage"),
            Check("L2", self.held, f"{self.condition} for {L2_HOLD_S} s" if self.held
                  else f"never {self.condition} for {L2_HOLD_S} s"),
            Check("L3", first is not None,
                  f"observation {first.observation_id} shows {names} readable with {self.condition}" if first
                  else f"no observation shows {names} readable with {self.condition}"),
        ]  # fmt: skip

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        problems = []
        rail = self.platform
        for item in rail.items:
            centre, tilt = rail.item_pose(data, item.name)
            if off := on_the_bench(data, item.name):
                problems += off
            elif not rail.in_stand(data, item):
                drift = math.dist((float(centre[0]), float(centre[1])), rail.stand_seat(item)[:2])
                problems.append(
                    f"{item.name} is not in its stand ({1000 * drift:.0f} mm from it, tilted "
                    f"{math.degrees(tilt):.0f} degrees)"
                )
        return problems


class DiffractionEvaluator(RailEvaluator):
    """Watches a laser rail: readings count while a diffracting slide is seated in a holder."""

    condition: ClassVar[str] = SEATED
    required_conditions: tuple[str, ...] = (SEATED,)
    restored_text = "the slide is back in its stand"

    def holds(self) -> bool:
        return bool(self.platform.diffracting)
