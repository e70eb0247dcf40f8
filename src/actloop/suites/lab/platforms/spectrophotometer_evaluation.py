"""What every spectrophotometer experiment's evaluator watches: which cuvette stands seated in the holder
untouched (a timeline written to the record), the blanks taken, what the robot works (a cuvette, a key);
L1-L3 and the bench's restore rule (every cuvette back in its rack slot, upright; the robot holding
nothing).

A *sample* is a cuvette with something in it (the solvent blank holds nothing). An experiment's evaluator
subclasses :class:`SpectroEvaluator` and adds L4 and its targets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import mujoco

from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import ReadingCitation, Verdict
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.spectrophotometer import (
    ABSORBANCE,
    SpectrophotometerBench,
    rack_slot,
)
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec
from actloop.suites.lab.watch import ContactWatch, HeldFor, Timeline, back_in_place, first_observation

SEATED = "a cuvette seated in the holder, untouched"
L2_HOLD_S = 1.2
RACK_TOLERANCE_M = 0.004
RACK_HEIGHT_TOLERANCE_M = 0.003
UPRIGHT_TOLERANCE_RAD = math.radians(10.0)


class SpectroEvaluator(BenchEvaluator[SpectrophotometerBench]):
    """Watches the bench (see the module docstring)."""

    required_conditions: tuple[str, ...] = (SEATED,)
    restored_text = "every cuvette is back in the rack"

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, bench: Platform) -> None:
        super().__init__(spec, record, instance, bench)
        self.holder: Timeline[int | None] = Timeline(record, "holder", "cuvette", None)
        """The cuvette seated in the holder and untouched (None: none)."""
        self._cuvettes: list[int] = []
        self._blanked_sample = HeldFor()
        self.blanked_hold = False
        """Whether a sample stood seated and untouched for L2_HOLD_S after a blank."""

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        self._cuvettes = [watch.model.geom(c.name).id for c in self.platform.cuvettes]
        return frozenset(self._cuvettes) | watch.geoms(*(f"key_{name}" for name, _ in self.platform.keys))

    def is_sample(self, cuvette: int | None) -> bool:
        """Whether ``cuvette`` (an index, or None for an empty holder) holds something to measure."""
        return cuvette is not None and bool(self.platform.cuvettes[cuvette].contents)

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        seated = self.platform.in_holder
        if seated is not None and self._cuvettes[seated] in touched:
            seated = None
        self.holder.update(time_s, seated)
        self.tracker.update(time_s, {SEATED: seated is not None})
        held = self._blanked_sample.update(time_s, self.is_sample(seated) and bool(self.platform.blanks))
        self.blanked_hold |= held >= L2_HOLD_S

    def absorbance_readings(
        self, valid: Sequence[Verdict], log: InstrumentLog
    ) -> list[tuple[int | None, Any]]:
        """(the cuvette seated, the wavelength shown) of every valid absorbance reading."""
        return [
            (self.holder.at(v.time_s), log.shown_at("wavelength", v.time_s))
            for v in valid
            if v.time_s is not None
            and isinstance(v.citation, ReadingCitation)
            and v.citation.instrument == ABSORBANCE.name
        ]

    def read_at(self, valid: Sequence[Verdict], log: InstrumentLog) -> dict[Any, set[int]]:
        """The cuvettes (the blank included) with valid absorbance readings at each wavelength shown."""
        cuvettes: dict[Any, set[int]] = {}
        for cuvette, nm in self.absorbance_readings(valid, log):
            if cuvette is not None:
                cuvettes.setdefault(nm, set()).add(cuvette)
        return cuvettes

    def seated_wavelength(self, cuvette: int, verdict: Verdict, log: InstrumentLog) -> float | None:
        """The wavelength shown when ``verdict``'s reading was taken with ``cuvette`` seated untouched
        (None: another or none was)."""
        if verdict.time_s is None or self.holder.at(verdict.time_s) != cuvette:
            return None
        nm = log.shown_at("wavelength", verdict.time_s)
        return float(nm) if isinstance(nm, int | float) else None

    def holder_milestones(self, log: InstrumentLog) -> list[Check]:
        """L1-L3: the robot worked a cuvette or a key; a sample stood seated untouched after a blank; an
        observation shows the absorbance readable with a sample seated."""
        first = first_observation(log, lambda t: self.is_sample(self.holder.at(t)), [ABSORBANCE.name])
        return [
            Check(
                "L1", self.acted, "the robot touched a cuvette or a key" if self.acted else "nothing touched"
            ),
            Check(
                "L2",
                self.blanked_hold,
                f"a dye cuvette stood seated and untouched for {L2_HOLD_S} s after a blank"
                if self.blanked_hold
                else "no dye cuvette stood seated and untouched after a blank",
            ),
            Check(
                "L3",
                first is not None,
                f"observation {first.observation_id} shows the absorbance readably with a dye cuvette seated"
                if first
                else "no observation shows the absorbance readably with a dye cuvette seated",
            ),
        ]

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        if name != "cuvette" or verdict.time_s is None:
            return super().property_of(name, verdict, log)
        seated = self.holder.at(verdict.time_s)
        return float(seated) if seated is not None and self.is_sample(seated) else None

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        return [
            problem
            for i, cuvette in enumerate(self.platform.cuvettes)
            for problem in back_in_place(
                data,
                cuvette.name,
                rack_slot(i),
                "its slot in the rack",
                RACK_TOLERANCE_M,
                RACK_HEIGHT_TOLERANCE_M,
                UPRIGHT_TOLERANCE_RAD,
            )
        ]
