"""#13 Centroid and inertia: where a bar's centre of mass lies along it and its moment of inertia about it,
from the torsion turntable's periods with the bar mounted on its centring pin through different holes.

The torsion turntable (:mod:`..platforms.turntable`) with a centring pin, the reference disc of #5 and a
flat bar of printed mass and length with five holes at printed distances from its left end, loaded
unevenly. Hidden: the bar's centre of mass (scored, 100-140 mm from its left end) and its moment of inertia
about it (scored), the wire's torsion constant and damping, the turntable's own moment of inertia. Mounted
through a hole a distance x_h from its end, the bar adds I_com + m (x_h − x_com)² (advanced, (c): the model
must be identified): the empty turntable's and the disc's periods calibrate the wire and the turntable, and
two holes give both unknowns. Taking the bar's middle for its centre of mass misses x_com by up to 20 mm.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.experiments.torsion_pendulum import DISC_HEIGHT, DISC_KG, DISC_RADIUS
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.turntable import (
    LOGGER,
    PERIOD,
    Bar,
    Load,
    Turntable,
    turntable_parts,
)
from actloop.suites.lab.platforms.turntable_evaluation import FREE, TurntableEvaluator
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, ReadingsAt, uniform
from actloop.suites.lab.watch import Timeline

BAR_KG = 0.3
BAR_LENGTH = 0.24
HOLES = (0.03, 0.075, 0.12, 0.165, 0.21)
"""The bar's printed mass (kg), length and holes (m from its left end)."""
REFERENCE = "reference"
HOLE = "hole"
OTHER = ""
DISC_FEET = 0.012
"""The disc stands on three feet that clear the pin (and count in its printed mass and moment)."""

SPEC = specify(
    "centroid_inertia",
    question=(
        "Determine where the bar's centre of mass lies along it, x_com (mm from its left end), and its "
        "moment of inertia I_com about the vertical through its centre of mass (kg m^2)."
    ),
    budget_s=900.0,
    parameters=(
        Parameter("x_com", "the bar's centre of mass from its left end", "mm", uniform(100.0, 140.0)),
        Parameter(
            "I_com", "the bar's moment of inertia about its centre of mass", "kg m^2", uniform(0.0012, 0.002)
        ),
        Parameter("stiffness", "the wire's torsion constant", "N m/rad", uniform(0.02, 0.04)),
        Parameter("own_inertia", "the turntable's own moment of inertia", "kg m^2", uniform(0.002, 0.0035)),
        Parameter("damping_ratio", "the empty turntable's damping ratio", "", uniform(0.002, 0.005)),
    ),
    parts=(
        *turntable_parts(),
        Part(
            "pin",
            "a centring pin on the turntable's centre, 7.2 mm across and 8 mm tall: a hole of the bar "
            "dropped over it holds the bar with that hole on the axis",
            restore="fixed",
        ),
        Part(
            "disc",
            f"a brass disc of {DISC_KG:g} kg and {2000 * DISC_RADIUS:g} mm diameter with a knob on top "
            "on three 12 mm feet that clear the pin (its moment of inertia about its axis is M R² / 2, feet "
            "included); it stands beside the turntable, on the left",
        ),
        Part(
            "bar",
            f"a flat bar of {BAR_KG:g} kg, {1000 * BAR_LENGTH:g} mm long, loaded unevenly along its length, "
            f"with 7.4 mm square holes at {', '.join(f'{1000 * h:g}' for h in HOLES)} mm from its left end; "
            "it lies beside the turntable, on the right, along the bench",
        ),
        Part("bar_knob", "a knob on the bar's top, 97.5 mm from its left end, to carry it by", restore="any"),
    ),
    rules=(
        "A period counts only when it was timed free: the robot touching neither the turntable nor what "
        "rides on it, the brake off and the load unchanged through the whole period.",
    ),
    minima=(
        ReadingsAt((PERIOD.name,), REFERENCE, 2, "references: the empty turntable and the disc alone"),
        ReadingsAt((PERIOD.name,), HOLE, 2, "holes of the bar alone on the pin", 1.0, "mm"),
    ),
)


def bench(instance: Instance) -> Turntable:
    """The turntable of ``instance`` with its pin, the disc and the bar beside it."""
    h = instance.hidden
    damping = 2 * h["damping_ratio"] * math.sqrt(h["stiffness"] * h["own_inertia"])
    disc = Load(
        "disc", DISC_RADIUS, DISC_HEIGHT, DISC_KG, DISC_KG * DISC_RADIUS**2 / 2, "0.78 0.62 0.25 1", DISC_FEET
    )
    bar = Bar("bar", BAR_LENGTH, HOLES, BAR_KG, h["I_com"], h["x_com"] / 1000)
    return Turntable(h["stiffness"], damping, h["own_inertia"], (disc, bar), pin=True)


class CentroidEvaluator(TurntableEvaluator):
    """Watches the periods the photogate shows and what they were timed with; scores x_com and I_com."""

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, platform: Platform) -> None:
        super().__init__(spec, record, instance, platform)
        self.mounts = Timeline(record, "period_mount", "mount", OTHER)
        """What the period shown was timed with: ``empty``, ``disc``, ``hole <mm>`` (the bar alone on the
        pin through that hole), or OTHER (not free, or another load)."""

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        table = self.platform
        self.tracker.update(time_s, {FREE: table.period_free})
        self.mounts.update(time_s, self._mount() if table.period_free else OTHER)

    def _mount(self) -> str:
        table = self.platform
        if not table.period_load:
            return "empty"
        if table.period_load == {"disc"}:
            return "disc"
        if table.period_load == {"bar"} and "bar" in table.period_holes:
            return f"hole {1000 * table.period_holes['bar']:g}"
        return OTHER

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        """``reference``: 0 for the empty turntable, 1 for the disc; ``hole``: the bar's hole on the pin
        (mm); None for a reading of anything else."""
        if name not in (REFERENCE, HOLE):
            return super().property_of(name, verdict, log)
        if verdict.time_s is None:
            return None
        mount = self.mounts.at(verdict.time_s)
        if name == REFERENCE:
            return {"empty": 0.0, "disc": 1.0}.get(mount)
        return float(mount.split()[1]) if mount.startswith("hole ") else None

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        holes = sorted({m for _, m in self.mounts.changes if m.startswith("hole ")})
        logged = [r.time_s for r in log.rows(LOGGER) if self.mounts.at(r.time_s) != OTHER]
        references = {p for v in valid if (p := self.property_of(REFERENCE, v, log)) is not None}
        cited_holes = {p for v in valid if (p := self.property_of(HOLE, v, log)) is not None}
        ready = references == {0.0, 1.0} and len(cited_holes) >= 2
        return [
            self.handled_check(),
            Check(
                "L2",
                bool(holes),
                f"free periods were timed with the bar on the pin through {', '.join(holes)} mm"
                if holes
                else "no free period was timed with the bar alone on the pin",
            ),
            self.logged_check(logged),
            Check(
                "L4",
                ready,
                f"free periods cited: references {sorted(references)} (0 empty, 1 disc; both needed), holes "
                f"{sorted(cited_holes)} mm (two needed)",
            ),
        ]

    def targets(self) -> dict[str, float]:
        return {"x_com": self.instance.hidden["x_com"], "I_com": self.instance.hidden["I_com"]}


EXPERIMENT = Experiment(SPEC, bench, CentroidEvaluator)
