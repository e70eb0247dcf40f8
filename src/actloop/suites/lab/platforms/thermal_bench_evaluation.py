"""What every thermal-bench experiment's evaluator watches: whether the probe's stem is in the block's well,
whether the block's and the probe's temperatures have settled, how long the probe has sat in the heated
block, what the robot works (the probe, the rocker, a key); L1-L3 and the bench's restore rules (heater off,
probe upright in its holder, the robot holding nothing).

An experiment's evaluator subclasses :class:`ThermalEvaluator` and adds L4 and its targets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import mujoco

from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Conditions, ReadingCitation, Verdict
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.thermal_bench import OHMMETER, THERMOMETER, ThermalBench
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec
from actloop.suites.lab.watch import ContactWatch, HeldFor, Settled, first_observation, switched_off, tilt_rad

IN_WELL = "probe in the block's well"
SETTLED = "temperature settled"
SETTLE_C = 0.05
SETTLE_S = 10.0
"""Settled: the block's and the probe's temperatures each within SETTLE_C over the last SETTLE_S (stated on
the card in these numbers)."""
SETTLE_SAMPLE_S = 0.25
L2_HOLD_S = 5.0
UPRIGHT_TOLERANCE_RAD = 0.17
WORKED = ("probe", "rocker", "key_0", "key_1")
"""The bodies whose touch by the robot counts as acting on the bench."""
METERS = (THERMOMETER.name, OHMMETER.name)


def settled_rule() -> str:
    """The card's rule for readings on the bench."""
    return (
        "A reading counts only with the probe's stem in the block's well and the temperature settled: the "
        f"block's temperature and the probe's have each changed by less than {SETTLE_C:g} degC over the "
        f"{SETTLE_S:g} s before it."
    )


def readings_of(valid: Sequence[Verdict], instrument: str) -> list[float]:
    """The values of the valid readings of ``instrument``."""
    return [
        v.citation.value
        for v in valid
        if isinstance(v.citation, ReadingCitation) and v.citation.instrument == instrument
    ]


def thermometer_at(verdict: Verdict, log: InstrumentLog) -> float | None:
    """The temperature the thermometer showed when a reading was taken (None without one)."""
    if verdict.time_s is None:
        return None
    shown = log.shown_at(THERMOMETER.name, verdict.time_s)
    return float(shown) if isinstance(shown, int | float) else None


class ThermalEvaluator(BenchEvaluator[ThermalBench]):
    """Watches the thermal bench (see the module docstring)."""

    restored_text = "heater off, probe in its holder"
    required_conditions: tuple[str, ...] = (IN_WELL, SETTLED)

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, bench: Platform) -> None:
        super().__init__(spec, record, instance, bench)
        self.settled = Settled(SETTLE_S, SETTLE_C, SETTLE_SAMPLE_S)
        """The block's and the probe's temperatures (K), sampled every SETTLE_SAMPLE_S."""
        self._heated_in_well = HeldFor()
        self.heated_in_well = False
        """Whether the probe sat in the block's well with the heater on for L2_HOLD_S."""

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return watch.geoms_of_bodies(*WORKED)

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        bench = self.platform
        in_well = bench.probe_in_well(data)
        if self.settled.due(time_s):
            self.settled.sample(time_s, bench.temperatures_k())
        self.tracker.update(time_s, {IN_WELL: in_well, SETTLED: self.settled.settled})
        heated = self._heated_in_well.update(time_s, in_well and bench.heater_on(data))
        self.heated_in_well |= heated >= L2_HOLD_S

    def bench_milestones(self, log: InstrumentLog, conditions: Conditions) -> list[Check]:
        """L1-L3: the robot worked the bench; the probe sat in the heated block for L2_HOLD_S; an observation
        shows both meters readable with the probe in the well."""
        first = first_observation(log, lambda t: conditions.held(IN_WELL, t), METERS)
        return [
            self.handled_check(),
            Check(
                "L2",
                self.heated_in_well,
                f"the probe sat in the heated block for {L2_HOLD_S} s"
                if self.heated_in_well
                else "the probe never sat in the block with the heater on",
            ),
            Check(
                "L3",
                first is not None,
                f"observation {first.observation_id} shows both meters readable with the probe in the well"
                if first
                else "no observation shows both meters readable with the probe in the well",
            ),
        ]

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        """``temperature``: the block's temperature the thermometer showed at the reading."""
        if name != "temperature":
            return super().property_of(name, verdict, log)
        return thermometer_at(verdict, log)

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        bench = self.platform
        problems = switched_off(bench.heater_on(data), "heater")
        if not bench.probe_in_holder(data):
            x, y, z = bench.probe_tip(data)
            problems.append(f"the probe is not in its holder (its tip is at {x:.3f}, {y:.3f}, {z:.3f} m)")
        elif (tilt := tilt_rad(data, "probe")) > UPRIGHT_TOLERANCE_RAD:
            problems.append(f"the probe leans by {math.degrees(tilt):.0f} degrees")
        return problems
