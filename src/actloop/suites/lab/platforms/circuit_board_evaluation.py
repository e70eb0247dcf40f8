"""What every circuit-board experiment's evaluator watches: the supply's setting over time, whether a box
sits in a live circuit (and for how long), what the robot works (a box, the rocker, a key); L1-L3 and the
board's restore rules (supply off, every box upright on its pad, the robot holding nothing).

An experiment's evaluator subclasses :class:`BoardEvaluator`, names the box its circuit needs
(``circuit_box``) and adds L4 and its targets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import mujoco

from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Conditions, ReadingCitation, RowCitation, Verdict
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.circuit_board import BoardState, CircuitBoard
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec
from actloop.suites.lab.watch import ContactWatch, HeldFor, Timeline, first_observation, switched_off

IN_CIRCUIT = "supply on and box in circuit"
SETTLE_S = 0.5
"""The condition holds once the circuit has been live this long (the meters have refreshed since)."""
L2_HOLD_S = 1.0
HOME_TOLERANCE_M = 0.01
SUPPLY_CONTROLS = ("rocker_paddle", "key_up", "key_down")


class BoardEvaluator(BenchEvaluator[CircuitBoard]):
    """Watches the board (see the module docstring)."""

    restored_text = "the supply is off and the box is home"
    required_conditions: tuple[str, ...] = (IN_CIRCUIT,)
    circuit_box: ClassVar[str]
    """The box whose seating in the socket closes the experiment's circuit."""

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, board: Platform) -> None:
        super().__init__(spec, record, instance, board)
        self.settings = Timeline(self.record, "setting", "volts", self.platform.setpoint)
        self._live = HeldFor()
        self.measurable = False
        """Whether the box was in a live circuit above 0 V for L2_HOLD_S."""

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return watch.geoms(*SUPPLY_CONTROLS, *(b.name for b in self.platform.boxes))

    def live(self, state: BoardState) -> bool:
        """Whether the circuit is closed and powered."""
        return state.powered and state.seated[self.platform.sockets[0].name] == self.circuit_box

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        state = self.platform.state
        self.settings.update(time_s, state.setpoint)
        held = self._live.update(time_s, self.live(state))
        self.tracker.update(time_s, {IN_CIRCUIT: self.live(state) and held >= SETTLE_S})
        self.measurable |= held >= L2_HOLD_S and state.setpoint > 0

    def live_milestones(
        self, log: InstrumentLog, conditions: Conditions, valid: Sequence[Verdict] = ()
    ) -> list[Check]:
        """L1-L3: the robot worked the board; the box sat in a live circuit above 0 V; an observation shows
        every meter readable then, or a valid logger row (one of ``valid``) records them then."""
        meters = [m.spec.name for m in self.platform.meters]
        first = first_observation(
            log, lambda t: conditions.held(IN_CIRCUIT, t) and self.settings.at(t) > 0, meters
        )
        row = next((v for v in valid if isinstance(v.citation, RowCitation)), None)
        if first is not None:
            shown = f"{_all(meters)} readable with the box in a live circuit"
            read = f"observation {first.observation_id} shows {shown}"
        elif row is not None:
            assert isinstance(row.citation, RowCitation)
            read = (
                f"logger row {row.citation.row} of {row.citation.file} is a valid reading in a live circuit"
            )
        else:
            read = f"no observation shows {_all(meters)} readable, and no valid logger row, in a live circuit"
        return [
            Check(
                "L1",
                self.acted,
                "the robot touched the box, the rocker or a key" if self.acted else "nothing was touched",
            ),
            Check(
                "L2",
                self.measurable,
                f"the box was in circuit with the supply on above 0 V for {L2_HOLD_S} s"
                if self.measurable
                else "the box was never in a live circuit",
            ),
            Check("L3", first is not None or row is not None, read),
        ]

    def read_together(self, valid: Sequence[Verdict]) -> list[float]:
        """The supply settings at which every meter was validly read together (in one observation, or in
        one row of a logger file), in order, each once."""
        read: dict[str, set[str]] = {}
        times: dict[str, float] = {}
        for v in valid:
            if v.time_s is None:
                continue
            if isinstance(v.citation, ReadingCitation):
                key, meter = v.citation.observation_id, v.citation.instrument
            else:
                key, meter = f"{v.citation.file}#{v.citation.row}", v.citation.column
            read.setdefault(key, set()).add(meter)
            times[key] = v.time_s
        every = {m.spec.name for m in self.platform.meters}
        return sorted({self.settings.at(times[k]) for k, names in read.items() if every <= names})

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        problems = switched_off(self.platform.powered, "supply")
        for box in self.platform.boxes:
            if not self.platform.at_home(data, box, HOME_TOLERANCE_M):
                x, y, _ = (float(v) for v in data.body(box.name).xpos)
                name = box.name.replace("_", " ")
                problems.append(f"the {name} is not upright on its pad (its centre is at {x:.3f}, {y:.3f})")
        return problems


def _all(meters: Sequence[str]) -> str:
    return "both meters" if len(meters) == 2 else "every meter"
