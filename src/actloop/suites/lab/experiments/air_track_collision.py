"""#6 Air-track collision: the mass of the unknown cart from one collision with the cart of printed mass.

The collision's air track (:mod:`..platforms.collision_track`): the plunger launches cart_a (printed mass)
through gate 1 into cart_b at rest; cart_b runs on through gate 2 and cart_a, the lighter, comes back through
gate 1. Hidden: cart_b's mass (scored), the bumpers' restitution and the plunger's speed. Each gate's LCDs
hold how long each passage blocked its beam, so each velocity is the flag's length over a time and the
flag's length cancels from the momentum balance: m_b = m_a t_b (1/t_in + 1/t_back). The collision is not
elastic: cart_b's velocity alone (an elastic collision's m_b = m_a (2 v_in / v_b − 1)) or cart_a's rebound
left out (m_b = m_a v_in / v_b) misses by 6–32 %.

A timing counts when it is clean (:mod:`..platforms.collision_timer`): cart_b at rest when hit, no outside
force on either cart, the passages in order. The evidence is one clean timing's three LCDs cited; ∗ the
result must agree with the refit of the cited times.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Citation, Conditions, Verdict, instrument_of
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.collision import Carts
from actloop.suites.lab.platforms.air_track import LOGGER
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.collision_timer import CARTS
from actloop.suites.lab.platforms.collision_track import (
    CART_A_KG,
    CART_LENGTH,
    FLAG_M,
    GATE_X,
    TIMES,
    TRAVEL,
    CollisionTrack,
    collision_parts,
)
from actloop.suites.lab.record import Record
from actloop.suites.lab.reference.air_track_collision import unknown_mass
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, ReadingsAt, uniform
from actloop.suites.lab.watch import ContactWatch, Timeline, first_observation

CLEAN = "the timer shows a clean collision"
TIMING = "timing"
"""The property a time reading carries: the arming number of the clean timing it shows."""
NOT_CLEAN = -1
USED = ("gate1_first", "gate1_second", "gate2_first")
"""The LCDs a clean timing fills: cart_a in through gate 1, back through gate 1, cart_b out through gate 2."""

SPEC = specify(
    "air_track_collision",
    question="Determine the mass of cart_b, the unknown cart (kg).",
    budget_s=200.0,
    parameters=(
        Parameter("m_unknown", "cart_b's mass", "kg", uniform(0.3, 0.5)),
        Parameter("restitution", "the carts' coefficient of restitution", "", uniform(0.6, 0.9)),
        Parameter("launch_speed", "the speed the plunger gives cart_a", "m/s", uniform(0.25, 0.35)),
    ),
    parts=collision_parts(),
    rules=(
        "A time reading counts only while the timer shows a clean collision. Since ARM, in this order: "
        "cart_a passed gate 1 to the right; it hit cart_b at rest (under 0.1 mm/s) before any other passage "
        "began; "
        "after the collision, cart_b passed gate 2 to the right and cart_a came back through gate 1. No "
        "outside force may act on either cart from cart_a entering gate 1 until both are timed: the robot "
        "touches neither, the air stays on, and neither runs into a buffer before its own passage after the "
        "collision has ended.",
        "The readings must hold one clean collision's three times: those of gate1_first and gate1_second and "
        "gate2_first.",
    ),
    minima=(ReadingsAt(USED, TIMING, 1, "clean collisions", shared=True),),
)


def bench(instance: Instance) -> CollisionTrack:
    """The collision's air track of ``instance``."""
    h = instance.hidden
    carts = Carts((CART_A_KG, h["m_unknown"]), h["restitution"], CART_LENGTH, TRAVEL, GATE_X, FLAG_M)
    return CollisionTrack(carts, h["launch_speed"])


class CollisionEvaluator(BenchEvaluator[CollisionTrack]):
    """Watches the timer's timings (clean or not); scores cart_b's mass, refitting the cited times."""

    restored_text = "the robot holds nothing (the carts may be anywhere)"

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, platform: Platform) -> None:
        super().__init__(spec, record, instance, platform)
        self.shown = Timeline(record, "clean_timing", TIMING, NOT_CLEAN)
        """The arming number of the clean timing the timer shows (NOT_CLEAN when it shows none)."""
        self.spoiled = Timeline(record, "spoiled_timing", "problem", "")
        """Why the timing the timer shows was spoiled ("" when it was not)."""

    @staticmethod
    def required_conditions(citation: Citation) -> tuple[str, ...]:  # type: ignore[override]
        """A time reading counts while the timer shows a clean collision."""
        return (CLEAN,) if instrument_of(citation) in {t.name for t in TIMES} else ()

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return watch.geoms_of_bodies("key_log", "key_arm", "key_launch", "key_air", *CARTS)

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        timing = self.platform.timing
        self.tracker.update(time_s, {CLEAN: timing.clean})
        self.shown.update(time_s, timing.index if timing.clean else NOT_CLEAN)
        self.spoiled.update(time_s, timing.problem)

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        """``timing``: the arming number of the clean timing a time reading shows."""
        if name != TIMING:
            return super().property_of(name, verdict, log)
        if verdict.time_s is None:
            return None
        index = self.shown.at(verdict.time_s)
        return None if index == NOT_CLEAN else float(index)

    def cited_timings(self, valid: Sequence[Verdict]) -> dict[int, dict[str, float]]:
        """The clean timings with all three used LCDs cited: each LCD's cited time (ms)."""
        timings: dict[int, dict[str, float]] = {}
        for v in valid:
            name = instrument_of(v.citation)
            if name in USED and v.time_s is not None and (index := self.shown.at(v.time_s)) != NOT_CLEAN:
                timings.setdefault(index, {})[name] = v.citation.value
        return {i: times for i, times in timings.items() if len(times) == len(USED)}

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        clean = [t.index for t in self.platform.timings if t.clean]
        problems = [t.problem for t in self.platform.timings if t.problem]
        seen = first_observation(log, lambda t: conditions.held(CLEAN, t), USED)
        logged = next((r.time_s for r in log.rows(LOGGER) if conditions.held(CLEAN, r.time_s)), None)
        cited = sorted(self.cited_timings(valid))
        return [
            self.handled_check(),
            Check(
                "L2",
                bool(clean),
                f"clean collisions timed after armings {clean}"
                if clean
                else "no clean collision was timed" + (f" ({problems[-1]})" if problems else ""),
            ),
            Check(
                "L3",
                seen is not None or logged is not None,
                f"observation {seen.observation_id} shows a clean timing's LCDs readable"
                if seen is not None
                else f"the logger recorded a clean timing at {logged:.1f} s"
                if logged is not None
                else "no observation or logged row shows a clean timing",
            ),
            Check(
                "L4",
                bool(cited),
                f"the three times of the clean timings after armings {cited} cited"
                if cited
                else "no clean timing has all of " + ", ".join(USED) + " cited",
            ),
        ]

    def refit(self, valid: Sequence[Verdict]) -> Mapping[str, float]:
        """cart_b's mass from each clean timing's cited times, averaged."""
        timings = self.cited_timings(valid)
        if not timings:
            raise ValueError("no clean timing has its three times cited")
        masses = [unknown_mass(CART_A_KG, *(t[name] for name in USED)) for t in timings.values()]
        return {"m_unknown": sum(masses) / len(masses)}

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        return []

    def targets(self) -> dict[str, float]:
        return {"m_unknown": self.instance.hidden["m_unknown"]}


EXPERIMENT = Experiment(SPEC, bench, CollisionEvaluator)
