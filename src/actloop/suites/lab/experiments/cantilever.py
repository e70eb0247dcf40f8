"""#15 Cantilever: the bending stiffness EI of a metal strip clamped at one end and the rotational stiffness
kθ of its clamp (the seed's table 5).

The strip sticks out from its clamp with four knife-edge saddles riding on it at printed distances; steel
weights of 50, 100 and 100 g stand in a rack; a digital indicator on a carriage that clicks into holes along
a rail reads the strip's height (mm to three decimals), with a ZERO cap. Hidden: EI and kθ (scored), the
indicator's offset, the rail's tilt and the unloaded strip's bow, which make the unloaded reading differ
from hole to hole. EI and kθ add to every deflection and are identifiable only jointly, from readings whose
load moments differ: L4 asks for valid readings whose differences at a common hole span both unknowns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Conditions, ReadingCitation, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.cantilever import Cantilever
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.cantilever import (
    INDICATOR,
    NODES,
    SADDLES,
    WEIGHT_MASSES,
    CantileverBench,
    G,
    bench_parts,
    nearest_hole,
    weight_name,
)
from actloop.suites.lab.platforms.spring_stand_evaluation import (
    L2_HOLD_S,
    REST_HOLD_S,
    REST_SPEED_M_S,
    carried_by,
    weights_in_rack,
)
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, uniform
from actloop.suites.lab.watch import ContactWatch, HeldFor, Timeline, first_observation

IN_HOLE = "carriage at rest in a hole"
LOAD_UNTOUCHED = "strip and its load untouched"
HOLE_TOLERANCE_M = 0.0005
SPAN_SINE = 0.02
"""L4: two load differences span both unknowns when their deflection parts (bending over EI, the clamp's
turn over kθ, each at the middle of its range) are at least this sine of an angle apart."""
MIDDLE = Cantilever(5.5, 190.0)
"""EI and kθ at the middle of their ranges: the scale L4 compares the two parts of a deflection on."""
BENDING = Cantilever(1.0, math.inf)
"""Bending alone per unit EI: ``influence(x, a)`` is the deflection's bending part times EI."""

Configuration = tuple[tuple[int, tuple[int, ...]], ...]
"""What presses on the strip: (saddle number, the weights standing on it) for each loaded saddle, saddle 0
for weights lying on the strip itself."""

SPEC = specify(
    "cantilever",
    question=(
        "Determine the bending stiffness EI (N m^2) of the metal strip clamped at one end, and the "
        "rotational stiffness k_theta (N m/rad) of its clamp, which turns in proportion to the moment at "
        "the strip's root. Take g = 9.81 m/s^2."
    ),
    budget_s=900.0,
    parameters=(
        Parameter("EI", "bending stiffness of the strip", "N m^2", uniform(3.0, 8.0)),
        Parameter("k_theta", "rotational stiffness of the clamp", "N m/rad", uniform(80.0, 300.0)),
        Parameter(
            "offset", "the indicator's reading of the unloaded strip at the root", "mm", uniform(-0.5, 0.5)
        ),
        Parameter("tilt", "rise of the rail per metre from the clamp", "mm/m", uniform(-1.5, 1.5)),
        Parameter("bow", "rise of the unloaded strip's free end from its bow", "mm", uniform(-0.3, 0.3)),
    ),
    parts=bench_parts(),
    rules=(
        "A reading counts only with the carriage at rest in a hole: within "
        f"{1000 * HOLE_TOLERANCE_M:g} mm of the hole, moving slower than {1000 * REST_SPEED_M_S:g} mm/s "
        f"for at least {REST_HOLD_S:g} s. Each cited reading must come from a different observation.",
    ),
)


def bench(instance: Instance) -> CantileverBench:
    """The cantilever bench of ``instance``."""
    h = instance.hidden
    return CantileverBench(h["EI"], h["k_theta"], h["offset"], h["tilt"] / 1000.0, h["bow"] / 1000.0)


def coefficients(configuration: Configuration, d: float) -> tuple[float, float] | None:
    """(u, v) with the strip's drop at ``d`` under ``configuration`` equal to u / EI + v / kθ, or None when a
    weight lies on the strip itself (where it presses is not known)."""
    loads = []
    for saddle, weights in configuration:
        if saddle == 0:
            return None
        loads.append((G * sum(WEIGHT_MASSES[w - 1] for w in weights), SADDLES[saddle - 1]))
    bending = sum(p * BENDING.influence(d, a) for p, a in loads)
    return bending, d * sum(p * a for p, a in loads)


def spanning(differences: Sequence[tuple[float, float]]) -> bool:
    """Whether two of the (u, v) differences span both unknowns (see :data:`SPAN_SINE`)."""
    scaled = [(u / MIDDLE.ei, v / MIDDLE.k_theta) for u, v in differences]
    for i, (a, b) in enumerate(scaled):
        for c, d in scaled[i + 1 :]:
            norms = math.hypot(a, b) * math.hypot(c, d)
            if norms > 0 and abs(a * d - b * c) / norms >= SPAN_SINE:
                return True
    return False


class CantileverEvaluator(BenchEvaluator[CantileverBench]):
    """Watches the carriage, what presses on the strip and what the robot touches; scores EI and kθ."""

    restored_text = "every weight is back in the rack, the carriage in a hole"
    required_conditions = (IN_HOLE,)
    one_reading_per_observation = True

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, platform: Platform) -> None:
        super().__init__(spec, record, instance, platform)
        self.loads: Timeline[Configuration] = Timeline(self.record, "load", "configuration", ())
        self.holes: Timeline[float | None] = Timeline(self.record, "hole", "hole_m", None)
        """The hole the carriage rests in (its distance from the clamp), None between holes or moving."""
        self._rest = HeldFor(since=0.0)
        self._loaded = HeldFor()
        self.loaded_held = False
        """Whether a weight pressed on the untouched strip with the carriage in a hole for L2_HOLD_S."""
        self._plates: dict[int, int] = {}
        self._strip: frozenset[int] = frozenset()
        self._weights: dict[int, int] = {}

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        self._plates = {watch.model.geom(f"saddle_{i}_plate").id: i for i in range(1, len(SADDLES) + 1)}
        self._strip = watch.geoms_of_bodies(*(f"strip_{k}" for k in range(len(NODES) - 1)))
        self._weights = {watch.model.geom(weight_name(i)).id: i for i in range(1, len(WEIGHT_MASSES) + 1)}
        return frozenset(self._weights) | watch.geoms_of_bodies("carriage", "key_zero")

    def configuration(self, links: Sequence[tuple[int, int]]) -> tuple[Configuration, set[int]]:
        """What presses on the strip now, and the weights' geoms doing so."""
        bases = {g for link in links for g in link if g in self._plates or g in self._strip}
        if not bases:
            return (), set()
        weights = set(self._weights)
        on: dict[int, set[int]] = {}
        for plate in bases & self._plates.keys():
            if carried := carried_by(plate, weights, links):
                on[self._plates[plate]] = carried
        on_saddles = set().union(*on.values())
        lying = set().union(*(carried_by(g, weights, links) for g in bases & self._strip)) - on_saddles
        if lying:
            on[0] = lying
        configuration = tuple(
            (saddle, tuple(sorted(self._weights[g] for g in geoms))) for saddle, geoms in sorted(on.items())
        )
        return configuration, on_saddles | lying

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        bench = self.platform
        configuration, pressing = self.configuration(self.watch(data.model).links(data))
        self.loads.update(time_s, configuration)
        d = bench.carriage_at(data)
        hole = nearest_hole(d)
        slow = bench.carriage_speed(data) < REST_SPEED_M_S and abs(d - hole) <= HOLE_TOLERANCE_M
        in_hole = self._rest.update(time_s, slow) >= REST_HOLD_S
        self.holes.update(time_s, hole if in_hole else None)
        untouched = touched.isdisjoint(self._strip | set(self._plates) | pressing)
        self.tracker.update(time_s, {IN_HOLE: in_hole, LOAD_UNTOUCHED: untouched})
        held = self._loaded.update(time_s, in_hole and untouched and bool(configuration))
        self.loaded_held |= held >= L2_HOLD_S

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        """``hole``: the distance of the hole the carriage rested in at the reading."""
        if name != "hole" or verdict.time_s is None:
            return super().property_of(name, verdict, log)
        return self.holes.at(verdict.time_s)

    def differences(self, valid: Sequence[Verdict], conditions: Conditions) -> list[tuple[float, float]]:
        """(u, v) of the load changes between valid readings at a common hole, their loads untouched and
        known."""
        at_hole: dict[float, set[tuple[float, float]]] = {}
        for v in valid:
            if v.time_s is None or not isinstance(v.citation, ReadingCitation):
                continue
            hole = self.holes.at(v.time_s)
            if hole is None or not conditions.held(LOAD_UNTOUCHED, v.time_s):
                continue
            pair = coefficients(self.loads.at(v.time_s), hole)
            if pair is not None:
                at_hole.setdefault(hole, set()).add(pair)
        out = []
        for pairs in at_hole.values():
            first, *rest = sorted(pairs)
            out += [(u - first[0], v - first[1]) for u, v in rest]
        return out

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        first = first_observation(
            log,
            lambda t: (
                conditions.held(IN_HOLE, t) and conditions.held(LOAD_UNTOUCHED, t) and bool(self.loads.at(t))
            ),
            (INDICATOR.name,),
        )
        differences = self.differences(valid, conditions)
        spans = spanning(differences)
        return [
            Check(
                "L1",
                self.acted,
                "a weight, the carriage or the ZERO cap was handled" if self.acted else "nothing was handled",
            ),
            Check(
                "L2",
                self.loaded_held,
                f"a weight pressed on the untouched strip with the carriage in a hole for {L2_HOLD_S} s"
                if self.loaded_held
                else "no weight ever pressed on the untouched strip with the carriage in a hole",
            ),
            Check(
                "L3",
                first is not None,
                f"observation {first.observation_id} shows the indicator readable, the strip loaded"
                if first
                else "no observation shows the indicator readable with the strip loaded and the carriage in "
                "a hole",
            ),
            Check(
                "L4",
                spans,
                f"{len(differences)} load changes read at a common hole"
                + (" span EI and k_theta" if spans else "; none pair up to separate EI from k_theta"),
            ),
        ]

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        bench = self.platform
        places = {weight_name(i): bench.rack_position(i) for i in range(1, len(WEIGHT_MASSES) + 1)}
        problems = weights_in_rack(data, places)
        d = bench.carriage_at(data)
        hole = nearest_hole(d)
        if abs(d - hole) > HOLE_TOLERANCE_M:
            problems.append(f"the carriage is not in a hole ({100 * d:.2f} cm from the clamp)")
        return problems

    def targets(self) -> dict[str, float]:
        return {"EI": self.instance.hidden["EI"], "k_theta": self.instance.hidden["k_theta"]}


EXPERIMENT = Experiment(SPEC, bench, CantileverEvaluator)
