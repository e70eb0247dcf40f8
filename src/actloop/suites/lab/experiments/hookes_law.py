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

from collections.abc import Mapping, Sequence

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.spring_stand import G, SpringStand, stand_parts, weight_parts
from actloop.suites.lab.platforms.spring_stand_evaluation import StandEvaluator, rest_rule
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import Parameter, ReadingsAt, choice, uniform

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
    parts=stand_parts(weight_parts()),
    rules=(rest_rule(),),
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


SUFFICIENT_LOADS = 2
"""L4: readings at two loads that open the spring's coils (loads above its initial tension) give the slope,
so they suffice for k (the card's four loads, whatever they are, are the evidence gate's)."""


class HookeEvaluator(StandEvaluator):
    """Scores k against the hidden stiffness, from the readings taken with the spring's coils open."""

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        loads = sorted({load for load, _ in self.reading_loads(valid)})
        open_loads = [load for load in loads if self.platform.opens_coils(load)]
        return [
            *self.rest_milestones(log, conditions),
            Check(
                "L4",
                len(open_loads) >= SUFFICIENT_LOADS,
                f"valid readings at loads {loads} (of weights on the tray), {open_loads} of them opening the "
                f"spring's coils; {SUFFICIENT_LOADS} such loads give k",
            ),
        ]

    def refit(self, valid: Sequence[Verdict]) -> Mapping[str, float]:
        """k from a least-squares line of the reading (mm) against the load (kg) of the valid readings
        taken with the spring's coils open (load above its initial tension): below that the tray rests
        on the closed coils, off the line."""
        stand = self.platform
        points = [
            (load * stand.weight_mass, value)
            for load, value in self.reading_loads(valid)
            if stand.opens_coils(load)
        ]
        if len({m for m, _ in points}) < 2:
            raise ValueError("readings at two or more loads that open the spring's coils are needed")
        n = len(points)
        mean_m = sum(m for m, _ in points) / n
        mean_r = sum(r for _, r in points) / n
        slope = sum((m - mean_m) * (r - mean_r) for m, r in points) / sum(
            (m - mean_m) ** 2 for m, _ in points
        )
        return {"k": 1000.0 * G / -slope}

    def targets(self) -> dict[str, float]:
        return {"k": self.instance.hidden["k"]}


EXPERIMENT = Experiment(SPEC, bench, HookeEvaluator)
