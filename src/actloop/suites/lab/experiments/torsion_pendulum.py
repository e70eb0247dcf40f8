"""#5 Torsion pendulum: the moment of inertia of an unknown body from the turntable's swing periods empty,
with a reference disc and with the body.

The torsion turntable (:mod:`..platforms.turntable`) with two loads beside it: a brass disc of printed mass
and diameter (its moment of inertia ½ M R²) and the unknown body. Hidden: the body's moment of inertia
(scored) and mass, the wire's torsion constant and damping, and the turntable's own moment of inertia. The
disc's period alone against the body's misses the turntable's own share (it swings in every period); the
standard design times all three (T² = 4π² (I_table + I_load) / κ) and takes
I = I_disc (T_body² − T_empty²) / (T_disc² − T_empty²).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.turntable import (
    LOGGER,
    PERIOD,
    Load,
    Turntable,
    turntable_parts,
)
from actloop.suites.lab.platforms.turntable_evaluation import FREE, TurntableEvaluator
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, ReadingsAt, uniform
from actloop.suites.lab.watch import Timeline

LOAD = "load"
LOADS = ("empty", "disc", "body")
"""The loads whose free periods the run must contain, by their code (their index)."""
DISC_KG = 0.5
DISC_RADIUS = 0.07
DISC_HEIGHT = 0.01
BODY_RADIUS = 0.06
BODY_HEIGHT = 0.04

SPEC = specify(
    "torsion_pendulum",
    question="Determine the moment of inertia I of the unknown body about its axis (kg m^2).",
    budget_s=600.0,
    parameters=(
        Parameter("I", "the body's moment of inertia about its axis", "kg m^2", uniform(0.0008, 0.0018)),
        Parameter("body_mass", "the body's mass", "kg", uniform(0.5, 0.7)),
        Parameter("stiffness", "the wire's torsion constant", "N m/rad", uniform(0.02, 0.04)),
        Parameter("own_inertia", "the turntable's own moment of inertia", "kg m^2", uniform(0.002, 0.0035)),
        Parameter("damping_ratio", "the empty turntable's damping ratio", "", uniform(0.002, 0.005)),
    ),
    parts=(
        *turntable_parts(),
        Part(
            "disc",
            f"a brass disc of {DISC_KG:g} kg and {2000 * DISC_RADIUS:g} mm diameter with a knob on top "
            "(its moment of inertia about its axis is M R² / 2); it stands beside the turntable, on the left",
        ),
        Part(
            "body",
            f"the unknown body, a cylinder {2000 * BODY_RADIUS:g} mm across with a knob on top; it stands "
            "beside the turntable, on the right",
        ),
    ),
    rules=(
        "A period counts only when it was timed free: the robot touching neither the turntable nor what "
        "rides on it, the brake off and the load unchanged through the whole period.",
    ),
    minima=(
        ReadingsAt((PERIOD.name,), LOAD, 3, "loads: the empty turntable, the disc alone, the body alone"),
    ),
)


def bench(instance: Instance) -> Turntable:
    """The turntable of ``instance`` with the disc and the body beside it."""
    h = instance.hidden
    damping = 2 * h["damping_ratio"] * math.sqrt(h["stiffness"] * h["own_inertia"])
    disc = Load("disc", DISC_RADIUS, DISC_HEIGHT, DISC_KG, DISC_KG * DISC_RADIUS**2 / 2, "0.78 0.62 0.25 1")
    body = Load("body", BODY_RADIUS, BODY_HEIGHT, h["body_mass"], h["I"], "0.22 0.25 0.3 1")
    return Turntable(h["stiffness"], damping, h["own_inertia"], (disc, body))


def load_code(riders: frozenset[str]) -> int:
    """The load's index in :data:`LOADS`, or -1 for any other load."""
    name = "empty" if not riders else next(iter(riders)) if len(riders) == 1 else ""
    return LOADS.index(name) if name in LOADS else -1


class TorsionEvaluator(TurntableEvaluator):
    """Watches the periods the photogate shows and what they were timed with; scores I."""

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, platform: Platform) -> None:
        super().__init__(spec, record, instance, platform)
        self.loads = Timeline(record, "period_load", LOAD, -1)
        """The load the period shown was timed with (its code; -1 when not free or another load)."""

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        table = self.platform
        free = table.period_free
        self.tracker.update(time_s, {FREE: free})
        self.loads.update(time_s, load_code(table.period_load) if free else -1)

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        """``load``: the code of the load a period was timed with (None for another load)."""
        if name != LOAD:
            return super().property_of(name, verdict, log)
        if verdict.time_s is None:
            return None
        code = self.loads.at(verdict.time_s)
        return None if code < 0 else float(code)

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        timed = sorted({code for _, code in self.loads.changes if code >= 0})
        body = LOADS.index("body")
        logged = [
            r.time_s
            for r in log.rows(LOGGER)
            if conditions.held(FREE, r.time_s) and self.loads.at(r.time_s) >= 0
        ]
        cited = {int(code) for v in valid if (code := self.property_of(LOAD, v, log)) is not None}
        missing = [LOADS[i] for i in range(len(LOADS)) if i not in cited]
        return [
            self.handled_check(),
            Check(
                "L2",
                body in timed,
                "a free period was timed with the body alone on the turntable"
                if body in timed
                else "no free period was timed with the body alone on the turntable",
            ),
            self.logged_check(logged),
            Check(
                "L4",
                not missing,
                "free periods cited of the empty turntable, the disc and the body"
                if not missing
                else f"no free period cited of: {', '.join(missing)}",
            ),
        ]

    def targets(self) -> dict[str, float]:
        return {"I": self.instance.hidden["I"]}


EXPERIMENT = Experiment(SPEC, bench, TorsionEvaluator)
