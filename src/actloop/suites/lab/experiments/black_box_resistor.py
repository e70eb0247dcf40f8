"""#9 Black-box resistor: the resistance hidden in a sealed box, from meter readings in a live circuit.

The box stands beside the circuit board; set into the board's socket it closes a circuit: the supply, an
ammeter in series, and a voltmeter across the socket (so the ammeter carries the voltmeter's small current
too). Hidden: the resistance, and each meter's zero error (a constant offset on what it shows). Readings
count only with the supply on and the box seated in the socket.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mujoco

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evaluation import Evaluator, robot_geom_ids
from actloop.suites.lab.evidence import Conditions, ReadingCitation, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentLog, InstrumentSpec
from actloop.suites.lab.physics.circuits import GROUND, Circuit
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.circuit_board import (
    BoardState,
    CircuitBoard,
    ComponentBox,
    Meter,
    Socket,
)
from actloop.suites.lab.record import Record
from actloop.suites.lab.rig import DT
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, choice, log_uniform, uniform

VOLTMETER_OHMS = 10e6
SUPPLY_OHMS = 0.2
"""The supply's output resistance (the voltmeter reads the box, not the supply's setting)."""
SETPOINTS = tuple(float(v) for v in range(11))
"""The supply's settings, volts: 0 at the start, each UP press one more."""

SPEC = specify(
    "black_box_resistor",
    question="Determine the resistance R of the sealed black box, in ohms.",
    budget_s=500.0,
    parameters=(
        Parameter("R", "resistance inside the black box", "ohm", log_uniform(47.0, 4700.0)),
        Parameter("voltmeter_zero", "the voltmeter's zero error", "V", uniform(-0.2, 0.2)),
        Parameter("ammeter_zero", "the ammeter's zero error", "mA", uniform(-0.2, 0.2)),
        Parameter(
            "voltmeter_resistance",
            "the voltmeter's input resistance",
            "ohm",
            choice(VOLTMETER_OHMS),
            public=True,
        ),
    ),
    parts=(
        Part(
            "black_box",
            "a sealed box with two contacts on its underside; it stands on its pad beside the board and "
            "closes the circuit when set into the socket",
        ),
        Part("board", "carries the socket, the supply and the meters", restore="fixed"),
        Part(
            "socket",
            "a walled seat on the board whose two contacts join a box's contacts to the circuit",
            restore="fixed",
        ),
        Part(
            "supply",
            "a DC supply from 0 to 10 V in steps of 1 V (starting at 0 V): its red rocker switches it on "
            "(front end, marked I, pressed down) or off (back end pressed down); the blue UP key raises "
            "and the orange DOWN key lowers its setting by one step per press",
            restore="off",
        ),
        Part(
            "voltmeter",
            "a digital voltmeter across the socket's contacts, reading volts to 0.001 V on an LCD lying "
            "face up on the board (left)",
            restore="fixed",
        ),
        Part(
            "ammeter",
            "a digital ammeter in series with the supply, carrying the current of the box and of the "
            "voltmeter, reading milliamperes to 0.001 mA on an LCD lying face up on the board (right)",
            restore="fixed",
        ),
        Part(
            "logger",
            "a data logger under the board, worked by the yellow REC key on the supply: each press starts "
            "or stops its recording of both meters, four rows a second; export its rows to a CSV file",
            restore="any",
        ),
    ),
    rules=("A reading counts only while the supply is on and the box is seated in the socket.",),
)

VOLTMETER = InstrumentSpec(
    "voltmeter", "V", DigitalDisplay(5, 3, min_digit_px=10.0), refresh_hz=4.0, noise_sd=0.0008
)
AMMETER = InstrumentSpec(
    "ammeter", "mA", DigitalDisplay(6, 3, min_digit_px=10.0), refresh_hz=4.0, noise_sd=0.0004
)
SOCKET = Socket("socket", (0.0, -0.05))
BOX = ComponentBox("black_box", (-0.07, -0.19))
METERS = (Meter(VOLTMETER, (0.0, 0.085), sign=True), Meter(AMMETER, (0.115, 0.085), sign=True))


class BlackBoxWiring:
    """Supply → power switch → output resistance → ammeter → socket (the box through its contacts) →
    ground, with the voltmeter (its input resistance) across the socket."""

    def __init__(self, ohms: float, voltmeter_zero: float, ammeter_zero: float) -> None:
        self.ohms = ohms
        self.voltmeter_zero = voltmeter_zero
        self.ammeter_zero = ammeter_zero

    def build(self, dt: float) -> Circuit:
        c = Circuit(["s", "p", "q", "a", "b"], dt)
        c.add_voltage_source("supply", "s", GROUND, 0.0)
        c.add_switch("power", "s", "p")
        c.add_resistor("output", "p", "q", SUPPLY_OHMS)
        c.add_ammeter("ammeter", "q", "a")
        c.add_switch("contacts", "a", "b")
        c.add_resistor("box", "b", GROUND, self.ohms)
        c.add_resistor("voltmeter_input", "a", GROUND, VOLTMETER_OHMS)
        c.add_voltmeter("voltmeter", "a", GROUND)
        return c

    def apply(self, circuit: Circuit, state: BoardState) -> None:
        circuit.set_source("supply", volts=state.setpoint)
        circuit.set_switch("power", state.powered)
        circuit.set_switch("contacts", state.seated[SOCKET.name] == BOX.name)

    def true_values(self, circuit: Circuit) -> dict[str, float]:
        return {
            "voltmeter": circuit.reading("voltmeter") + self.voltmeter_zero,
            "ammeter": 1000.0 * circuit.reading("ammeter") + self.ammeter_zero,
        }


def bench(instance: Instance) -> CircuitBoard:
    """The circuit board of ``instance``."""
    h = instance.hidden
    wiring = BlackBoxWiring(h["R"], h["voltmeter_zero"], h["ammeter_zero"])
    return CircuitBoard(wiring, (SOCKET,), (BOX,), METERS, SETPOINTS, DT)


IN_CIRCUIT = "supply on and box in circuit"
SETTLE_S = 0.5
"""The condition holds once the circuit has been live this long (the meters have refreshed since)."""
L2_HOLD_S = 1.0
HOME_TOLERANCE_M = 0.01
MIN_SETTINGS = 2
ACTUATED = ("rocker_paddle", "key_up", "key_down", BOX.name)


class BlackBoxEvaluator(Evaluator):
    """Watches the board: the supply's switch and setting, the box in the socket, what the robot touches;
    scores R against the hidden resistance."""

    required_conditions = (IN_CIRCUIT,)

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, board: Platform) -> None:
        super().__init__(spec, record)
        if not isinstance(board, CircuitBoard):
            raise TypeError("the black-box evaluator watches a circuit board")
        self.board = board
        self.record = record
        self.ohms = instance.hidden["R"]
        self.acted = False
        self.settings: list[tuple[float, float]] = [(0.0, board.setpoint)]
        """(time, supply setting) at every change."""
        self._live_since: float | None = None
        self.measurable = False
        self._ids: dict[str, Any] = {}

    def _geoms(self, model: mujoco.MjModel) -> dict[str, Any]:
        if not self._ids:
            self._ids = {
                "robot": robot_geom_ids(model),
                "actuated": {model.geom(name).id for name in ACTUATED},
                "table": {model.geom("table").id, model.geom("floor").id},
            }
        return self._ids

    def step(self, time_s: float, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        ids = self._geoms(model)
        robot = ids["robot"]
        for a, b in zip(data.contact.geom1.tolist(), data.contact.geom2.tolist(), strict=True):
            if (a in robot and b in ids["actuated"]) or (b in robot and a in ids["actuated"]):
                self.acted = True
        state = self.board.state
        if state.setpoint != self.settings[-1][1]:
            self.settings.append((time_s, state.setpoint))
            self.record.append("setting", {"time_s": time_s, "volts": state.setpoint})
        live = state.powered and state.seated[SOCKET.name] == BOX.name
        if live:
            self._live_since = time_s if self._live_since is None else self._live_since
        else:
            self._live_since = None
        held = 0.0 if self._live_since is None else time_s - self._live_since
        self.tracker.update(time_s, {IN_CIRCUIT: live and held >= SETTLE_S})
        self.measurable |= held >= L2_HOLD_S and state.setpoint > 0

    def setting_at(self, time_s: float) -> float:
        """The supply's setting at ``time_s``."""
        return next(v for t, v in reversed(self.settings) if t <= time_s)

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        first = next(
            (o for o in log.observations.values()
             if conditions.held(IN_CIRCUIT, o.time_s) and self.setting_at(o.time_s) > 0
             and all(any(v.readable for v in o.views_of(m.spec.name)) for m in METERS)),
            None,
        )  # fmt: skip
        pairs = _pairs(valid)
        settings = sorted({self.setting_at(t) for t in pairs if self.setting_at(t) > 0})
        acted = "the robot touched the box, the rocker or a key" if self.acted else "nothing was touched"
        live = (
            f"the box was in circuit with the supply on above 0 V for {L2_HOLD_S} s"
            if self.measurable
            else "the box was never in a live circuit"
        )
        seen = (
            f"observation {first.observation_id} shows both meters readable with the box in a live circuit"
            if first
            else "no observation shows both meters readable with the box in a live circuit"
        )
        return [
            Check("L1", self.acted, acted),
            Check("L2", self.measurable, live),
            Check("L3", first is not None, seen),
            Check(
                "L4",
                len(settings) >= MIN_SETTINGS,
                f"valid voltmeter and ammeter readings together (one observation or logger row) at settings "
                f"{settings} V",
            ),
        ]

    def restored(self, model: mujoco.MjModel, data: mujoco.MjData) -> Check:
        problems = []
        if self.board.powered:
            problems.append("the supply is on")
        if not self.board.at_home(data, BOX, HOME_TOLERANCE_M):
            x, y, _ = (float(v) for v in data.body(BOX.name).xpos)
            problems.append(f"the black box is not upright on its pad (its centre is at {x:.3f}, {y:.3f})")
        ids = self._geoms(model)
        robot = ids["robot"]
        pairs = list(zip(data.contact.geom1.tolist(), data.contact.geom2.tolist(), strict=True))
        held = {b if a in robot else a for a, b in pairs if (a in robot) != (b in robot)} - ids["table"]
        if held:
            problems.append("the robot is touching " + ", ".join(sorted(model.geom(g).name for g in held)))
        return Check("restored", not problems, "; ".join(problems) or "the supply is off and the box is home")

    def targets(self) -> dict[str, float]:
        return {"R": self.ohms}


def _pairs(valid: Sequence[Verdict]) -> dict[float, set[str]]:
    """Times at which both meters were validly read together (in one observation, or in one row of a
    logger file), with the meters read."""
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
    both = {m.spec.name for m in METERS}
    return {times[o]: names for o, names in read.items() if both <= names}


EXPERIMENT = Experiment(SPEC, bench, BlackBoxEvaluator)
