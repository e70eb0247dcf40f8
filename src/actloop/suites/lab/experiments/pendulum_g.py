"""#2 Pendulum g: the bench's gravitational acceleration from the periods of three pendulums of printed
lengths, each timed over ten periods by the light gate at its lowest point.

The pendulum frame (:mod:`..platforms.pendulum`). Hidden: g (scored; the engine's gravity is set to it), how
far below the printed length each bob's centre hangs (the string's turn in the clamp and the bob's radius:
20-30 mm, the same for all three) and the air's damping. One pendulum's period with its printed length
misses g by that offset, 4-15 %; the standard design times all three at a small amplitude and takes g from
the slope of T² against the printed length, which the offset only shifts. The amplitude matters at this
tolerance (the period grows by θ0²/16): a swing released at 10 degrees gives g 0.4 % low, so the bob must be
let go gently from a small angle, without a push.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Citation, Conditions, Verdict, instrument_of
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.pendulum import LENGTHS, PERIODS, TIMERS, PendulumFrame, bench_parts
from actloop.suites.lab.record import Record
from actloop.suites.lab.reference.fits import line
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, ReadingsAt, uniform
from actloop.suites.lab.watch import ContactWatch, Timeline

TIMING = "timing"
"""The property a timer reading carries: when the completed timing it shows started (s)."""
NO_TIMING = -1.0

SPEC = specify(
    "pendulum_g",
    question=(
        "Determine the gravitational acceleration g on this bench (m/s^2) from the swings of the "
        "pendulums P1-P3. It need not be the 9.81 m/s^2 of a laboratory at sea level."
    ),
    budget_s=400.0,
    parameters=(
        Parameter("g", "gravitational acceleration on the bench", "m/s^2", uniform(9.2, 10.4)),
        Parameter(
            "offset",
            "how far below its clamp's jaws each bob's centre hangs beyond the printed length",
            "m",
            uniform(0.02, 0.03),
        ),
        Parameter("damping_ratio", "the air's damping of a swing", "", uniform(0.0003, 0.0008)),
    ),
    parts=bench_parts(),
    rules=(
        f"A timer reading counts only when the timer shows a completed timing: stopped after its {PERIODS} "
        "periods, the robot touching neither that bob nor its string from the timing's start to its stop.",
    ),
    minima=(
        ReadingsAt(
            tuple(spec.name for spec in TIMERS),
            TIMING,
            1,
            "completed timings (one of each pendulum at least)",
        ),
    ),
)


def bench(instance: Instance) -> PendulumFrame:
    """The pendulum frame of ``instance``."""
    h = instance.hidden
    return PendulumFrame(h["g"], h["offset"], h["damping_ratio"])


def timed(n: int) -> str:
    """The condition of P``n``'s timer reading."""
    return f"P{n} timing completed"


class PendulumEvaluator(BenchEvaluator[PendulumFrame]):
    """Watches the timers' completed timings; scores g, refitting the cited timer readings."""

    restored_text = "the robot holds nothing"

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, platform: Platform) -> None:
        super().__init__(spec, record, instance, platform)
        self.timings = [
            Timeline(record, "timing", f"timer_{n}", NO_TIMING) for n in range(1, len(LENGTHS) + 1)
        ]
        """When the completed timing each timer shows started (NO_TIMING: none shown)."""

    @staticmethod
    def required_conditions(citation: Citation) -> tuple[str, ...]:  # type: ignore[override]
        """A timer reading counts with its timing completed untouched."""
        name = instrument_of(citation)
        return tuple(timed(n) for n, spec in enumerate(TIMERS, 1) if spec.name == name)

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        names = [f"pendulum_{n}" for n in range(1, len(LENGTHS) + 1)]
        names += [f"key_start_{n}" for n in range(1, len(LENGTHS) + 1)]
        return watch.geoms_of_bodies(*names)

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        states = {}
        for n, (timer, timing) in enumerate(zip(self.platform.timers, self.timings, strict=True), 1):
            timing.update(time_s, timer.start_s if timer.completed else NO_TIMING)
            states[timed(n)] = timer.completed
        self.tracker.update(time_s, states)

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        """``timing``: when the completed timing a timer reading shows started."""
        if name != TIMING:
            return super().property_of(name, verdict, log)
        n = self._pendulum_of(verdict.citation)
        if n is None or verdict.time_s is None:
            return None
        start = self.timings[n - 1].at(verdict.time_s)
        return None if start == NO_TIMING else start

    @staticmethod
    def _pendulum_of(citation: Citation) -> int | None:
        name = instrument_of(citation)
        return next((n for n, spec in enumerate(TIMERS, 1) if spec.name == name), None)

    def periods(self, valid: Sequence[Verdict]) -> dict[int, list[float]]:
        """Each pendulum's cited periods (s), by its number."""
        out: dict[int, list[float]] = {}
        for v in valid:
            n = self._pendulum_of(v.citation)
            value = getattr(v.citation, "value", None)
            if n is not None and isinstance(value, float | int):
                out.setdefault(n, []).append(float(value) / PERIODS)
        return out

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        completed = sorted(
            n for n, timing in enumerate(self.timings, 1) if any(v != NO_TIMING for _, v in timing.changes)
        )
        shown = next(
            (
                (o.observation_id, n)
                for o in log.observations.values()
                for n in completed
                if conditions.held(timed(n), o.time_s)
                and any(view.readable for view in o.views_of(TIMERS[n - 1].name))
            ),
            None,
        )
        cited = sorted(self.periods(valid))
        missing = [f"P{n}" for n in range(1, len(LENGTHS) + 1) if n not in cited]
        return [
            self.handled_check(),
            Check(
                "L2",
                bool(completed),
                f"the timers of {', '.join(f'P{n}' for n in completed)} completed a timing untouched"
                if completed
                else f"no timer completed {PERIODS} periods of an untouched swing",
            ),
            Check(
                "L3",
                shown is not None,
                f"observation {shown[0]} shows P{shown[1]}'s completed timing readable"
                if shown is not None
                else "no observation shows a completed timing readable",
            ),
            Check(
                "L4",
                not missing,
                "completed timings of P1-P3 cited"
                if not missing
                else f"no valid completed timing cited of {', '.join(missing)}",
            ),
        ]

    def refit(self, valid: Sequence[Verdict]) -> Mapping[str, float]:
        """g from the cited timer readings: 4π² over the least-squares slope of each pendulum's mean T²
        against its printed length."""
        periods = self.periods(valid)
        missing = [f"P{n}" for n in range(1, len(LENGTHS) + 1) if n not in periods]
        if missing:
            raise ValueError(f"no timing of {', '.join(missing)} is cited")
        points = [
            (LENGTHS[n - 1], sum(t * t for t in times) / len(times)) for n, times in sorted(periods.items())
        ]
        slope, _ = line(points)
        return {"g": 4 * math.pi**2 / slope}

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        return []

    def targets(self) -> dict[str, float]:
        return {"g": self.instance.hidden["g"]}


EXPERIMENT = Experiment(SPEC, bench, PendulumEvaluator)
