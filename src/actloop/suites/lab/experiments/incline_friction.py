"""#7 Incline friction: the static and kinetic friction coefficients of two sliders of the same material on a
board whose slope the agent sets.

The incline (:mod:`..platforms.incline`): the board's slope is set by sliding a prop carriage under it; a
motion sensor reads each slider's distance down its track, an inclinometer the slope, and a logger records
all three 60 times a second. Raised slowly, the board holds a slider until tan θ passes μs; once it slips,
the slider slides freely down with a = g (sin θ − μk cos θ). Hidden: μs and the ratio μk / μs. μs needs the
slope at which each slider starts to slip; μk (to 0.5 %) its free slide's acceleration from the logged
distances: timing the slide by eye, or the slope at which a slid slider keeps going, are far too coarse.
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Citation, Conditions, RowCitation, Verdict, instrument_of
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.friction import Friction
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.incline import DISTANCES, LOGGER, SLIDERS, Incline, bench_parts
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, uniform
from actloop.suites.lab.watch import ContactWatch, HeldFor

AT_REST_S = 0.5
"""A slip counts when the slider had been at rest, untouched, this long before it started to slide."""
AROUND_SLIP_S = 1.0
"""L4: a slip's record has a cited distance of the slider at rest at most this long before its start and
one sliding within this long after it."""
FREE_SLIDE_M = 0.1
FREE_ROWS = 5
"""L4: a free slide's record has FREE_ROWS or more cited distances of one untouched slide spanning
FREE_SLIDE_M."""
HOME_M = 0.005
"""Restored: each slider within this of its track's top bumper, at rest."""
WORKED = ("carriage", "key_log", *SLIDERS)

SPEC = specify(
    "incline_friction",
    question=(
        "Determine the static and kinetic friction coefficients, μs and μk, of the sliders' material on the "
        "board (both sliders are of the same material)."
    ),
    budget_s=900.0,
    parameters=(
        Parameter("mu_s", "static friction coefficient", "", uniform(0.35, 0.60)),
        Parameter("kinetic_fraction", "μk / μs", "", uniform(0.70, 0.85)),
    ),
    parts=bench_parts(),
    rules=(
        "A logged distance of a slider counts only while the robot does not touch that slider.",
        "The records must show each slider starting to slip from rest and sliding freely.",
    ),
)


def untouched(slider: str) -> str:
    """The condition of a slider's free records."""
    return f"{slider} untouched"


def bench(instance: Instance) -> Incline:
    """The incline of ``instance``."""
    h = instance.hidden
    return Incline(Friction(h["mu_s"], h["mu_s"] * h["kinetic_fraction"]))


class Slides:
    """A slider's free slides: each starts from rest (held AT_REST_S, untouched) and lasts while it moves
    untouched; each is kept as its (time, distance down the track) samples."""

    def __init__(self) -> None:
        self._rest = HeldFor()
        self._rested = 0.0
        self._sliding = False
        self.slides: list[list[tuple[float, float]]] = []

    def update(self, time_s: float, s: float, moving: bool, touched: bool) -> None:
        rested = self._rest.update(time_s, not moving and not touched)
        if touched or not moving:
            self._sliding = False
        elif self._sliding:
            self.slides[-1].append((time_s, s))
        elif self._rested >= AT_REST_S:
            self.slides.append([(time_s, s)])
            self._sliding = True
        self._rested = rested

    @staticmethod
    def travelled(slide: Sequence[tuple[float, float]], start_s: float, end_s: float) -> float:
        """How far the slider went down its track between two times of a slide (m)."""

        def at(time_s: float) -> float:
            return min(slide, key=lambda sample: abs(sample[0] - time_s))[1]

        return at(end_s) - at(start_s)


class InclineFrictionEvaluator(BenchEvaluator[Incline]):
    """Watches each slider's slips and free slides; scores μs and μk."""

    restored_text = "both sliders against their top bumpers"

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, platform: Platform) -> None:
        super().__init__(spec, record, instance, platform)
        self.slides = {name: Slides() for name in SLIDERS}

    @staticmethod
    def required_conditions(citation: Citation) -> tuple[str, ...]:  # type: ignore[override]
        """A slider's distance counts while the robot does not touch it."""
        name = instrument_of(citation)
        for slider, spec in zip(SLIDERS, DISTANCES, strict=True):
            if name == spec.name:
                return (untouched(slider),)
        return ()

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return watch.geoms_of_bodies(*WORKED)

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        incline = self.platform
        states = {}
        for i, name in enumerate(SLIDERS):
            states[untouched(name)] = not incline.touched[i]
            s, v = incline.slides[i]
            self.slides[name].update(time_s, s, v != 0.0, incline.touched[i])
        self.tracker.update(time_s, states)

    def slipped(self) -> list[float]:
        """When any slider first started to slip from rest, untouched (s), per slider that did."""
        return [watch.slides[0][0][0] for watch in self.slides.values() if watch.slides]

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        slips = self.slipped()
        first = min(slips) if slips else None
        logged = first is not None and any(r.time_s >= first for r in log.rows(LOGGER))
        records = {name: self.records(name, valid) for name in SLIDERS}
        missing = [f"{name}: {', '.join(lack)}" for name, lack in records.items() if lack]
        return [
            self.handled_check(),
            Check(
                "L2",
                first is not None,
                f"a slider started to slip from rest, untouched, at {first:.2f} s"
                if first is not None
                else "no slider ever started to slip from rest untouched",
            ),
            Check(
                "L3",
                logged,
                "the logger recorded a slip" if logged else "the logger recorded no slip",
            ),
            Check(
                "L4",
                not missing,
                "every slider's slip and free slide are on record in cited rows"
                if not missing
                else "missing records: " + "; ".join(missing),
            ),
        ]

    def records(self, slider: str, valid: Sequence[Verdict]) -> list[str]:
        """What a slider's cited records lack: its start to slip, a free slide."""
        column = DISTANCES[SLIDERS.index(slider)].name
        times = sorted(
            v.time_s
            for v in valid
            if isinstance(v.citation, RowCitation) and v.citation.column == column and v.time_s is not None
        )
        lack = []
        slides = self.slides[slider].slides
        if not any(
            any(slide[0][0] - AROUND_SLIP_S <= t <= slide[0][0] for t in times)
            and any(slide[0][0] < t <= slide[0][0] + AROUND_SLIP_S for t in times)
            for slide in slides
        ):
            lack.append("no cited distances around a start to slip")
        if not any(self._spans(slide, times) for slide in slides):
            lack.append(f"no {FREE_ROWS} cited distances of one free slide spanning {FREE_SLIDE_M:g} m")
        return lack

    @staticmethod
    def _spans(slide: Sequence[tuple[float, float]], times: Sequence[float]) -> bool:
        inside = [t for t in times if slide[0][0] <= t <= slide[-1][0]]
        return len(inside) >= FREE_ROWS and Slides.travelled(slide, inside[0], inside[-1]) >= FREE_SLIDE_M

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        problems = []
        for i, name in enumerate(SLIDERS):
            s, v = self.platform.slides[i]
            if s > HOME_M or v != 0.0:
                problems.append(f"{name} is {1000 * s:.0f} mm down its track, not against its top bumper")
        return problems

    def targets(self) -> dict[str, float]:
        h = self.instance.hidden
        return {"mu_s": h["mu_s"], "mu_k": h["mu_s"] * h["kinetic_fraction"]}


EXPERIMENT = Experiment(SPEC, bench, InclineFrictionEvaluator)
