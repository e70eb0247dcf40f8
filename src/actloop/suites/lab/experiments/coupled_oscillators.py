"""#3 Coupled oscillators: the two normal-mode angular frequencies of two gliders on an air track joined
post—k1—A—kc—B—k2—post by springs.

The air track (:mod:`..platforms.air_track`): the gliders ride without friction, a position sensor reads
each glider's position and a logger records both 120 times a second. Hidden: the three springs, the gliders'
masses, a slight damping of each and the sensors' zeros. The targets are the undamped normal modes, ω1 < ω2
the square roots of the eigenvalues of M⁻¹K; the damping shifts the free motion's frequencies by under
a fiftieth of the tolerance. Displacing one glider and letting it go cleanly sets both modes going: their
beat is in both records. The standard design fits two damped sinusoids to 40 s or more of free motion; the
peak bins of a 40 s record's spectrum are up to half a bin (about 1 %) off.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Citation, Conditions, RowCitation, Verdict, instrument_of
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.coupled import CoupledGliders
from actloop.suites.lab.platforms.air_track import (
    GLIDERS,
    HANDLE_KG,
    LOGGER,
    POSITIONS,
    TRACK_ENDS,
    AirTrack,
    track_parts,
)
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.record import Record
from actloop.suites.lab.rig import DT
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, uniform
from actloop.suites.lab.watch import ContactWatch

FREE = "gliders free"
STRETCH_S = 40.0
"""The evidence: cited rows spanning this long of one free stretch showing both modes."""
MODE_MM = 1.0
"""A mode shows in a free stretch when it moves a glider this far or more (the glider it moves most: pulling
one glider can leave a mode that lives mostly on the other small on the pulled one)."""

SPEC = specify(
    "coupled_oscillators",
    question=(
        "Determine the two normal-mode angular frequencies ω1 < ω2 (rad/s) of the gliders and springs on the "
        "air track (the undamped modes)."
    ),
    budget_s=300.0,
    parameters=(
        Parameter("k1", "stiffness of the spring from the left post to glider_a", "N/m", uniform(8.0, 15.0)),
        Parameter("kc", "stiffness of the coupling spring between the gliders", "N/m", uniform(2.0, 6.0)),
        Parameter("k2", "stiffness of the spring from glider_b to the right post", "N/m", uniform(8.0, 15.0)),
        Parameter("mass_a", "glider_a's mass with its handle", "kg", uniform(0.18, 0.26)),
        Parameter("mass_b", "glider_b's mass with its handle", "kg", uniform(0.18, 0.26)),
        Parameter("zeta_a", "glider_a's damping ratio on its own springs", "", uniform(0.002, 0.006)),
        Parameter("zeta_b", "glider_b's damping ratio on its own springs", "", uniform(0.002, 0.006)),
        Parameter(
            "zero_a",
            "where glider_a's sensor reads zero, from the track's left end",
            "m",
            uniform(-0.005, 0.005),
        ),
        Parameter(
            "zero_b",
            "where glider_b's sensor reads zero, from the track's left end",
            "m",
            uniform(-0.005, 0.005),
        ),
    ),
    parts=track_parts(),
    rules=(
        "A logged position counts only while the robot touches neither glider.",
        f"The records must show an untouched stretch of {STRETCH_S:g} s or more in which both modes move.",
    ),
)


def gliders(hidden: dict[str, float]) -> CoupledGliders:
    """The exact law of an instance's gliders."""
    ma, mb, k1, kc, k2 = (hidden[n] for n in ("mass_a", "mass_b", "k1", "kc", "k2"))
    ca = 2 * hidden["zeta_a"] * math.sqrt((k1 + kc) * ma)
    cb = 2 * hidden["zeta_b"] * math.sqrt((k2 + kc) * mb)
    return CoupledGliders(ma, mb, k1, kc, k2, ca, cb, DT)


def bench(instance: Instance) -> AirTrack:
    """The air track of ``instance``."""
    h = instance.hidden
    left = TRACK_ENDS[0]
    assert h["mass_a"] > HANDLE_KG and h["mass_b"] > HANDLE_KG
    return AirTrack(gliders(dict(h)), (left + h["zero_a"], left + h["zero_b"]))


@dataclass
class Stretch:
    """One stretch of the gliders free: its start and end (s) and how far each mode moves the glider it moves
    most, at the stretch's start (m)."""

    start_s: float
    end_s: float
    modes: tuple[float, float]

    def both_modes(self) -> bool:
        return min(self.modes) >= MODE_MM / 1000.0


class CoupledOscillatorsEvaluator(BenchEvaluator[AirTrack]):
    """Watches the gliders' free stretches; scores ω1 and ω2."""

    restored_text = "the robot holds nothing (the gliders may be anywhere)"

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, platform: Platform) -> None:
        super().__init__(spec, record, instance, platform)
        self.stretches: list[Stretch] = []

    @staticmethod
    def required_conditions(citation: Citation) -> tuple[str, ...]:  # type: ignore[override]
        """A glider's position counts while the robot touches neither glider."""
        return (FREE,) if instrument_of(citation) in {p.name for p in POSITIONS} else ()

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return watch.geoms_of_bodies("key_log", *GLIDERS)

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        track = self.platform
        free = not track.touched
        self.tracker.update(time_s, {FREE: free})
        if not free:
            return
        last = self.stretches[-1] if self.stretches else None
        if last is not None and last.end_s >= time_s - 1.5 * DT:
            last.end_s = time_s
        else:
            self.stretches.append(Stretch(time_s, time_s, track.motion.modal_amplitudes(track.state)))

    def longest(self) -> Stretch | None:
        """The longest free stretch with both modes moving."""
        both = [s for s in self.stretches if s.both_modes()]
        return max(both, key=lambda s: s.end_s - s.start_s, default=None)

    def cited_span(self, valid: Sequence[Verdict]) -> float:
        """The longest time cited position rows span inside one free stretch with both modes moving (s)."""
        columns = {p.name for p in POSITIONS}
        times = [
            v.time_s
            for v in valid
            if isinstance(v.citation, RowCitation) and v.citation.column in columns and v.time_s is not None
        ]
        best = 0.0
        for stretch in self.stretches:
            inside = [t for t in times if stretch.start_s <= t <= stretch.end_s]
            if stretch.both_modes() and inside:
                best = max(best, max(inside) - min(inside))
        return best

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        longest = self.longest()
        held = longest.end_s - longest.start_s if longest is not None else 0.0
        logged = longest is not None and any(
            longest.start_s <= r.time_s <= longest.end_s for r in log.rows(LOGGER)
        )
        span = self.cited_span(valid)
        return [
            self.handled_check(),
            Check(
                "L2",
                held >= STRETCH_S,
                f"the gliders moved free with both modes for {held:.1f} s ({STRETCH_S:g} s are needed)"
                if longest is not None
                else f"the gliders never moved free with both modes above {MODE_MM:g} mm",
            ),
            Check(
                "L3",
                logged,
                "the logger recorded the free gliders"
                if logged
                else "the logger never recorded the free gliders",
            ),
            Check(
                "L4",
                span >= STRETCH_S,
                f"cited position rows span {span:.1f} s of one free stretch showing both modes "
                f"({STRETCH_S:g} s are needed)",
            ),
        ]

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        return []

    def targets(self) -> dict[str, float]:
        omega_1, omega_2 = self.platform.motion.omegas()
        return {"omega_1": omega_1, "omega_2": omega_2}


EXPERIMENT = Experiment(SPEC, bench, CoupledOscillatorsEvaluator)
