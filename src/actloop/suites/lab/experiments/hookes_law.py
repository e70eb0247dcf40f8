"""#1 Hooke's law: the stiffness of a spring from the extensions it shows under known loads.

A close-wound coil spring hangs from a stand and carries a tray with a pointer; slotted weights of printed
mass stand in a rack; a vertical ruler graduated in millimetres stands beside the pointer. Hidden: the
stiffness; the spring's initial tension F0, which holds its coils shut (the empty tray, lighter than F0,
hangs at the closed-coil length) until the load exceeds it, every weight past that extending it by
m g / k; the spring's unloaded length and the tray's mass (so the unloaded reading differs per instance);
and the ruler's zero offset. Readings are the pointer's position on the ruler with the tray at rest and
untouched.

F0 lies above the heaviest tray's weight and below the lightest tray's with the lightest weight, so the
first weight always opens the coils: readings with weights on the tray lie on one line of slope g / k, and
the unloaded reading lies (F0 - tray weight) / k above it. A difference of the unloaded and one-weight
readings is off by that, tens of percent; the evaluator's refit fits only readings whose load exceeds F0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import Evaluator, robot_geom_ids
from actloop.suites.lab.evidence import Conditions, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.spring_stand import WEIGHTS, G, SpringStand
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, ReadingsAt, choice, uniform

SPEC = specify(
    "hookes_law",
    question=(
        "Determine the stiffness k of the spring hanging from the stand: the force per unit extension, "
        "in N/m. Take g = 9.81 m/s^2."
    ),
    budget_s=600.0,
    parameters=(
        Parameter("k", "spring stiffness", "N/m", uniform(18.0, 45.0)),
        Parameter(
            "initial_tension", "load below which the close-wound spring stays shut", "N", uniform(0.23, 0.28)
        ),
        Parameter("unloaded_length", "length of the spring with the empty tray", "m", uniform(0.12, 0.16)),
        Parameter("tray_mass", "mass of the tray", "kg", uniform(0.012, 0.020)),
        Parameter(
            "ruler_offset", "height of the ruler's zero above its nominal mount", "m", uniform(-0.004, 0.004)
        ),
        Parameter(
            "weight_mass", "printed mass of each slotted weight", "kg", choice(0.02, 0.025, 0.03), public=True
        ),
    ),
    parts=(
        Part("stand", "holds the spring and the ruler", restore="fixed"),
        Part(
            "spring",
            "a close-wound coil spring, its coils pressed together until the load it carries exceeds its "
            "initial tension; hangs from the stand and carries the tray",
            restore="fixed",
        ),
        Part(
            "tray",
            "hangs from the spring; weights set on it load the spring; "
            "its pointer marks its height on the ruler",
            restore="any",
        ),
        *(
            Part(f"weight_{i}", "a slotted weight of the printed mass; stands in the rack")
            for i in range(1, 6)
        ),
        Part("rack", "holds the five weights", restore="fixed"),
        Part("ruler", "a vertical scale graduated in millimetres beside the pointer", restore="fixed"),
    ),
    rules=(
        "A reading is the pointer's position on the ruler, taken with the tray at rest (moving slower than "
        "0.2 mm/s for at least 0.5 s) and neither it nor its load touched by the robot.",
    ),
    minima=(ReadingsAt(("ruler",), "load", 4, "loads (numbers of weights on the tray)"),),
)


def bench(instance: Instance) -> SpringStand:
    """The spring stand of ``instance``."""
    h, p = instance.hidden, instance.public
    return SpringStand(
        h["k"],
        h["initial_tension"],
        h["unloaded_length"],
        h["tray_mass"],
        h["ruler_offset"],
        p["weight_mass"],
    )


REST_SPEED_M_S = 2e-4
REST_HOLD_S = 0.5
"""The tray is at rest once it has moved slower than REST_SPEED_M_S for REST_HOLD_S."""
L2_HOLD_S = 1.2
RACK_TOLERANCE_M = 0.008
UPRIGHT_TOLERANCE_RAD = 0.17
AT_REST = "tray at rest and untouched"
SUFFICIENT_LOADS = 2
"""L4: readings at two loads that open the spring's coils (loads above its initial tension) give the slope,
so they suffice for k (the card's four loads, whatever they are, are the evidence gate's)."""


class HookeEvaluator(Evaluator):
    """Watches the spring stand: which weights the tray carries, whether the robot touches the tray or
    its load, and whether the tray is at rest; scores the readings against the hidden stiffness."""

    required_conditions = (AT_REST,)

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, stand: Platform) -> None:
        super().__init__(spec, record)
        if not isinstance(stand, SpringStand):
            raise TypeError("the Hooke's-law evaluator watches a spring stand")
        self.stand = stand
        self.k = instance.hidden["k"]
        self.loads: list[tuple[float, int]] = [(0.0, 0)]
        """(time, number of weights on the tray) at every change."""
        self.record = record
        self.acted = False
        self._slow_since: float | None = 0.0
        self._loaded_rest_since: float | None = None
        self.loaded_rest_held = False
        self._ids: dict[str, Any] = {}

    def _geoms(self, model: mujoco.MjModel) -> dict[str, Any]:
        if not self._ids:
            self._ids = {
                "robot": robot_geom_ids(model),
                "weights": {model.geom(f"weight_{i}").id: i for i in range(1, WEIGHTS + 1)},
                "tray": model.geom("tray_plate").id,
                "spring_dof": int(model.jnt_dofadr[model.joint("spring").id]),
            }
        return self._ids

    def step(self, time_s: float, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        ids = self._geoms(model)
        robot, weights, tray = ids["robot"], ids["weights"], ids["tray"]
        touching: set[int] = set()
        links: list[tuple[int, int]] = []
        for a, b in zip(data.contact.geom1.tolist(), data.contact.geom2.tolist(), strict=True):
            if a in robot or b in robot:
                touching.add(b if a in robot else a)
            else:
                links.append((a, b))
        carried = _carried(tray, set(weights), links)
        if touching & set(weights):
            self.acted = True
        load = len(carried)
        if load != self.loads[-1][1]:
            self.loads.append((time_s, load))
            self.record.append("load", {"time_s": time_s, "weights_on_tray": load})
        speed = abs(float(data.qvel[ids["spring_dof"]]))
        untouched = not touching & ({tray} | carried)
        if speed < REST_SPEED_M_S and untouched:
            self._slow_since = time_s if self._slow_since is None else self._slow_since
        else:
            self._slow_since = None
        at_rest = self._slow_since is not None and time_s - self._slow_since >= REST_HOLD_S
        self.tracker.update(time_s, {AT_REST: at_rest})
        if at_rest and load >= 1:
            self._loaded_rest_since = time_s if self._loaded_rest_since is None else self._loaded_rest_since
            self.loaded_rest_held |= time_s - self._loaded_rest_since >= L2_HOLD_S
        else:
            self._loaded_rest_since = None

    def load_at(self, time_s: float) -> int:
        """Weights on the tray at ``time_s``."""
        return next(load for t, load in reversed(self.loads) if t <= time_s)

    def _reading_loads(self, valid: Sequence[Verdict]) -> list[tuple[int, float]]:
        return [(self.load_at(v.time_s), v.citation.value) for v in valid if v.time_s is not None]

    def opens(self, load: int) -> bool:
        """Whether ``load`` weights (with the tray) pull harder than the spring's initial tension, so its
        coils open and the reading lies on the line of slope g / k."""
        stand = self.stand
        return (stand.tray_mass + load * stand.weight_mass) * G > stand.initial_tension

    def _open_readings(self, valid: Sequence[Verdict]) -> list[tuple[int, float]]:
        """The valid readings taken with the spring's coils open: the ones the law's line fits."""
        return [(load, value) for load, value in self._reading_loads(valid) if self.opens(load)]

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        first = next(
            (o for o in log.observations.values()
             if conditions.held(AT_REST, o.time_s) and self.load_at(o.time_s) >= 1
             and any(view.readable for view in o.views_of("ruler"))),
            None,
        )  # fmt: skip
        loads = sorted({load for load, _ in self._reading_loads(valid)})
        open_loads = [load for load in loads if self.opens(load)]
        touched = "a weight was touched by the robot" if self.acted else "no weight was touched"
        rested = (
            f"the loaded tray rested untouched for {L2_HOLD_S} s"
            if self.loaded_rest_held
            else "the tray never rested loaded and untouched"
        )
        seen = (
            f"observation {first.observation_id} shows the loaded tray at rest with the ruler readable"
            if first
            else "no observation shows the loaded tray at rest with the ruler readable"
        )
        return [
            Check("L1", self.acted, touched),
            Check("L2", self.loaded_rest_held, rested),
            Check("L3", first is not None, seen),
            Check(
                "L4",
                len(open_loads) >= SUFFICIENT_LOADS,
                f"valid readings at loads {loads} (of weights on the tray), {open_loads} of them opening the "
                f"spring's coils; {SUFFICIENT_LOADS} such loads give k",
            ),
        ]

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        if name != "load" or verdict.time_s is None:
            return super().property_of(name, verdict, log)
        return float(self.load_at(verdict.time_s))

    def refit(self, valid: Sequence[Verdict]) -> Mapping[str, float]:
        """k from a least-squares line of the reading (mm) against the load (kg) of the valid readings
        taken with the spring's coils open (load above its initial tension): below that the tray rests
        on the closed coils, off the line."""
        points = [(load * self.stand.weight_mass, value) for load, value in self._open_readings(valid)]
        if len({m for m, _ in points}) < 2:
            raise ValueError("readings at two or more loads that open the spring's coils are needed")
        n = len(points)
        mean_m = sum(m for m, _ in points) / n
        mean_r = sum(r for _, r in points) / n
        slope = sum((m - mean_m) * (r - mean_r) for m, r in points) / sum(
            (m - mean_m) ** 2 for m, _ in points
        )
        return {"k": 1000.0 * G / -slope}

    def restored(self, model: mujoco.MjModel, data: mujoco.MjData) -> Check:
        problems = []
        for i in range(1, WEIGHTS + 1):
            body = data.body(f"weight_{i}")
            home = self.stand.rack_position(i)
            drift = math.hypot(float(body.xpos[0]) - home[0], float(body.xpos[1]) - home[1])
            tilt = math.acos(max(-1.0, min(1.0, float(body.xmat[8]))))
            if drift > RACK_TOLERANCE_M or abs(float(body.xpos[2]) - home[2]) > 0.005:
                problems.append(f"weight_{i} is {1000 * drift:.0f} mm from its place in the rack")
            elif tilt > UPRIGHT_TOLERANCE_RAD:
                problems.append(f"weight_{i} is tipped by {math.degrees(tilt):.0f} degrees")
        robot = self._geoms(model)["robot"]
        pairs = list(zip(data.contact.geom1.tolist(), data.contact.geom2.tolist(), strict=True))
        held = {b if a in robot else a for a, b in pairs if (a in robot) != (b in robot)}
        held -= {model.geom("table").id, model.geom("floor").id}
        if held:
            problems.append("the robot is touching " + ", ".join(sorted(model.geom(g).name for g in held)))
        return Check("restored", not problems, "; ".join(problems) or "every weight is back in the rack")

    def targets(self) -> dict[str, float]:
        return {"k": self.k}


def _carried(tray: int, weights: set[int], links: list[tuple[int, int]]) -> set[int]:
    """The weights resting on the tray, directly or on other weights resting on it."""
    carried: set[int] = set()
    frontier = {tray}
    while frontier:
        reached = {b if a in frontier else a for a, b in links if (a in frontier) != (b in frontier)}
        frontier = (reached & weights) - carried
        carried |= frontier
    return carried


EXPERIMENT = Experiment(SPEC, bench, HookeEvaluator)
