"""What every titration experiment's evaluator watches: which beaker the electrode reads, hung in the sleeve
with its bulb in the solution of a beaker on the stirrer and neither touched by the robot (a timeline
written to the record, with the titrant in that beaker); what the robot works (a beaker, the electrode,
the stopcock, the LOG key); L1-L3 and the bench's restore rule (every beaker on its spot, upright; the
electrode in its storage well; the stopcock closed; nothing spilled; the robot holding nothing).

An experiment's evaluator subclasses :class:`TitrationEvaluator` and adds L4 and its targets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import mujoco

from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Verdict, instrument_of
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.solutions import HYDROXIDE
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.titration import (
    CLOSED_RAD,
    DROP_ML,
    LOGGER,
    PH_METER,
    TitrationBench,
    beaker_spot,
)
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, ReadingsAt, choice
from actloop.suites.lab.watch import ContactWatch, HeldFor, Timeline, back_in_place, first_observation

IN_SAMPLE = "the electrode hung in a sample on the stirrer, neither touched"
BRACKET_ML = 0.5
"""L4 of every titration: valid readings of one sample within this of its equivalence volume on each side
(ten drops)."""
SAMPLE_ML = Parameter("sample_ml", "the acid in each beaker", "mL", choice(40.0, 45.0), public=True)
"""The printed volume of every beaker of sample."""
L2_HOLD_S = 1.2
SPOT_TOLERANCE_M = 0.006
SPOT_HEIGHT_TOLERANCE_M = 0.003
UPRIGHT_TOLERANCE_RAD = math.radians(10.0)
READING_RULE = (
    "A pH reading counts only while the electrode hangs in the sleeve with its bulb in the solution of a "
    "beaker standing in the stirrer's ring, and the robot touches neither."
)
"""The card's rule for every reading of the pH meter."""
TITRANT_READINGS = ReadingsAt(
    (PH_METER.name,), "titrant_ml", 2, "volumes of titrant in the sample read", gap=DROP_ML / 2, unit="mL"
)
"""The evidence minimum of every titration: pH readings of a sample at two or more titrant volumes."""
DROP_RULE = (
    "Each drop falls from the burette's tip into the beaker whose mouth lies below it, or onto the bench: a "
    "spill, which leaves the bench unrestored. A beaker leaning far enough for its liquid to reach the rim "
    "pours from it. Volumes add on mixing."
)


def sample_parts(beakers: int, acid: str) -> tuple[Part, ...]:
    """The beakers of sample, each holding :data:`SAMPLE_ML` of ``acid`` on its spot."""
    return tuple(
        Part(f"beaker_{k}", f"sample_ml of {acid}, on beaker spot {k}") for k in range(1, beakers + 1)
    )


class TitrationEvaluator(BenchEvaluator[TitrationBench]):
    """Watches the bench (see the module docstring)."""

    required_conditions: tuple[str, ...] = (IN_SAMPLE,)
    restored_text = (
        "every beaker stands on its spot, the electrode in its storage well, the stopcock closed, nothing "
        "spilled"
    )

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, bench: Platform) -> None:
        super().__init__(spec, record, instance, bench)
        self.sample: Timeline[int | None] = Timeline(record, "sample", "beaker", None)
        """The beaker the electrode reads, both untouched (None: none)."""
        self.titrant: Timeline[float | None] = Timeline(record, "titrant", "ml", None)
        """The titrant (mL) in that beaker."""
        self._beakers: list[frozenset[int]] = []
        self._electrode: frozenset[int] = frozenset()
        self._in_sample = HeldFor()
        self.sample_hold = False
        """Whether a sample was read, untouched, for L2_HOLD_S."""

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        self._beakers = [watch.geoms_of_bodies(b) for b in self.platform.beakers]
        self._electrode = watch.geoms_of_bodies("electrode")
        worked = watch.geoms("stopcock_lever", "stopcock_peg", "key_log")
        return frozenset().union(*self._beakers, self._electrode, worked)

    def titrant_ml(self, beaker: int) -> float:
        """The titrant delivered into ``beaker`` (mL), from the base it holds."""
        base = self.platform.vessels.stored(beaker).moles(HYDROXIDE)
        return round(base / self.platform.titrant_m * 1000.0, 9)

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        beaker = self.platform.immersed_in()
        if beaker is not None and not (
            self._beakers[beaker].isdisjoint(touched) and self._electrode.isdisjoint(touched)
        ):
            beaker = None
        self.sample.update(time_s, beaker)
        self.titrant.update(time_s, None if beaker is None else self.titrant_ml(beaker))
        self.tracker.update(time_s, {IN_SAMPLE: beaker is not None})
        self.sample_hold |= self._in_sample.update(time_s, beaker is not None) >= L2_HOLD_S

    def sample_readings(self, valid: Sequence[Verdict]) -> dict[int, list[tuple[float, float]]]:
        """(titrant mL, time) of every valid pH reading, by the beaker read."""
        found: dict[int, list[tuple[float, float]]] = {}
        for v in valid:
            if v.time_s is None or instrument_of(v.citation) != PH_METER.name:
                continue
            beaker, ml = self.sample.at(v.time_s), self.titrant.at(v.time_s)
            if beaker is not None and ml is not None:
                found.setdefault(beaker, []).append((ml, v.time_s))
        return found

    def bracketing(self, valid: Sequence[Verdict], v_eq: float, within: float) -> set[int]:
        """The sample beakers with valid readings within ``within`` mL of their equivalence volume ``v_eq``
        (mL) on both sides of it."""
        return {
            beaker
            for beaker, readings in self.sample_readings(valid).items()
            if any(v_eq - within <= ml < v_eq for ml, _ in readings)
            and any(v_eq < ml <= v_eq + within for ml, _ in readings)
        }

    def sample_milestones(self, log: InstrumentLog) -> list[Check]:
        """L1-L3: the robot worked a beaker, the electrode, the stopcock or the key; a sample was read,
        untouched, for L2_HOLD_S; an observation shows the pH readable while a sample is read."""
        first = first_observation(log, lambda t: self.sample.at(t) is not None, [PH_METER.name])
        logged = any(self.sample.at(row.time_s) is not None for row in log.rows(LOGGER))
        return [
            Check(
                "L1",
                self.acted,
                "the robot touched a beaker, the electrode, the stopcock or the key"
                if self.acted
                else "nothing touched",
            ),
            Check(
                "L2",
                self.sample_hold,
                f"the electrode read a sample on the stirrer, untouched, for {L2_HOLD_S} s"
                if self.sample_hold
                else "the electrode never read a sample on the stirrer untouched",
            ),
            Check(
                "L3",
                first is not None or logged,
                "a first observation or logged row of the pH with the electrode in a sample"
                if first is not None or logged
                else "no observation or logged row shows the pH with the electrode in a sample",
            ),
        ]

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        if name != "titrant_ml" or verdict.time_s is None:
            return super().property_of(name, verdict, log)
        return self.titrant.at(verdict.time_s) if self.sample.at(verdict.time_s) is not None else None

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        beakers = [
            problem
            for k, beaker in enumerate(self.platform.beakers, 1)
            for problem in back_in_place(
                data,
                beaker,
                beaker_spot(k),
                "its spot",
                SPOT_TOLERANCE_M,
                SPOT_HEIGHT_TOLERANCE_M,
                UPRIGHT_TOLERANCE_RAD,
            )
        ]
        electrode = (
            [] if self.platform.electrode_in_store(data) else ["the electrode is not in its storage well"]
        )
        stopcock = ["the stopcock is open"] if self.platform.stopcock_rad(data) > CLOSED_RAD else []
        spilled = [
            f"{source} spilled {volume:.2f} mL onto the bench"
            for source, volume in self.platform.vessels.spilled_ml().items()
        ]
        return [*beakers, *electrode, *stopcock, *spilled]
