"""#27 Battery EMF: the EMF E and the internal resistance r of a cell, from settled readings under loads.

A cell lies in a holder fixed on the board. A voltmeter is wired across its terminals; from its positive
terminal the load circuit runs through the switch (the rocker on the board's supply housing, whose own
output is not connected here), the ammeter and the load socket back to the cell. Three load boxes of
printed resistance (1.0, 2.2 and 4.7 ohm, comparable to r) stand on pads beside the board; each in turn is
set into the load socket.

The cell is E behind an ohmic resistance r0 in series with a polarisation branch (R_p in parallel with a
double-layer capacitance C_p, time constant R_p C_p of 0.75-1.5 s): after a change of load the terminal
voltage jumps by the ohmic part and relaxes by the polarisation part over seconds. Scored are E (the
open-circuit voltage at rest) and r = r0 + R_p, the steady (DC) internal resistance, the slope of the
settled terminal voltage against the current. A reading counts once nothing in the circuit has been
switched or reseated for SETTLE_S (ten of the slowest time constants: the relaxation left is below 5e-5 of
its step).

Nuisances: the ammeter's zero error (±20 mA, so a current read against zero, not against the ammeter's
own open-circuit reading, misses r at one load by up to 4 %) and the load boxes' true values (within 2 % of
their printed ones, so the voltmeter alone with a printed value misses r by as much). The voltmeter's
input resistance is published (10 Mohm, negligible beside r); the voltmeter has no zero error, since
nothing could check it while it stays across the cell (E would be unmeasurable). Settled readings of both
meters with the circuit open and under the loads, currents taken from the ammeter's open-circuit reading
and a straight line V = E - I r fitted through them, give both well within the tolerance (the display's
noise leaves at most a quarter of it), the model itself exact to 1e-12 V.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import mujoco

from actloop.sim.scene import WORLD_GEOM
from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, Verdict, instrument_of
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentLog, InstrumentSpec
from actloop.suites.lab.physics.circuits import GROUND, Circuit
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.circuit_board import (
    BOARD_TOP_Z,
    METER_SPOTS,
    SOCKET,
    VOLTMETER,
    VOLTMETER_OHMS,
    VOLTMETER_RESISTANCE,
    BoardState,
    CircuitBoard,
    ComponentBox,
    Meter,
    Socket,
    logger_part,
    meter_part,
)
from actloop.suites.lab.platforms.circuit_board_evaluation import BoardEvaluator
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, log_uniform, uniform
from actloop.suites.lab.watch import Timeline, first_observation

SETTLE_S = 15.0
"""A reading counts once the circuit has stood unchanged this long."""
TAU_S = (0.75, 1.5)
"""The polarisation branch's time constant R_p C_p (s)."""
LOAD_OHMS = {"load_1r0": 1.0, "load_2r2": 2.2, "load_4r7": 4.7}
"""The load boxes' printed resistances, by box name (marked as resistors are: 2R2 is 2.2 ohm)."""
LOAD_SPREAD = 0.02
"""A load box's true resistance is within this fraction of its printed one."""
OPEN = "open"
"""The circuit with no load: the switch off or the load socket empty."""

AMMETER = InstrumentSpec(
    "ammeter", "A", DigitalDisplay(5, 4, min_digit_px=10.0), refresh_hz=4.0, noise_sd=0.0002
)
METERS = (Meter(VOLTMETER, METER_SPOTS[0]), Meter(AMMETER, METER_SPOTS[1], sign=True))
LOAD_SOCKET = Socket("load_socket", SOCKET.centre)
HOLDER_CENTRE = (0.09, -0.05)
PAD_Y = -0.19
PADS_X = (0.08, -0.005, -0.09)
"""Pads 85 mm apart: a hand opened wide at one box clears the next."""
LOAD_BOXES = tuple(
    ComponentBox(name, (x, PAD_Y), "0.5 0.3 0.2 1") for name, x in zip(LOAD_OHMS, PADS_X, strict=True)
)


def _parameters() -> tuple[Parameter, ...]:
    deviations = tuple(
        Parameter(f"{name}_deviation", f"{name}'s true resistance over its printed one, less one", "1",
                  uniform(-LOAD_SPREAD, LOAD_SPREAD))
        for name in LOAD_OHMS
    )  # fmt: skip
    return (
        Parameter("E", "the cell's EMF", "V", uniform(1.45, 1.6)),
        Parameter("r", "the cell's DC internal resistance", "ohm", log_uniform(0.5, 2.0)),
        Parameter("polarisation_share", "the polarisation branch's share of r", "1", uniform(0.2, 0.4)),
        Parameter("polarisation_tau", "the polarisation branch's time constant", "s", uniform(*TAU_S)),
        Parameter("ammeter_zero", "the ammeter's zero error", "A", uniform(-0.02, 0.02)),
        *deviations,
        VOLTMETER_RESISTANCE,
    )


SPEC = specify(
    "battery_emf",
    question=(
        "Determine the EMF E (V) of the cell in the holder and its internal resistance r (ohm): E is its "
        "open-circuit voltage at rest, r the steady (DC) internal resistance, by which its settled terminal "
        "voltage falls per ampere it delivers."
    ),
    budget_s=600.0,
    parameters=_parameters(),
    parts=(
        Part(
            "battery",
            "a cell lying in a holder fixed on the board; after a change of load its terminal voltage takes "
            "some seconds to settle",
            restore="fixed",
        ),
        *(
            Part(
                box.name,
                f"a load box: a resistor of printed resistance {ohms:.1f} ohm (marked {box.name[5:].upper()},"
                " within 2 %) with two contacts underneath",
            )
            for box, ohms in zip(LOAD_BOXES, LOAD_OHMS.values(), strict=True)
        ),
        Part(
            "board", "carries the cell's holder, the load socket, the switch and the meters", restore="fixed"
        ),
        Part(
            LOAD_SOCKET.name,
            "a walled seat on the board whose two contacts put a load box in the cell's load circuit",
            restore="fixed",
        ),
        Part(
            "supply",
            "the board's supply housing, its own output not connected here: its red rocker is the load "
            "circuit's switch, closed with the front end (marked I) pressed down and open with the back end "
            "pressed down; its UP and DOWN keys do nothing in this circuit",
            restore="off",
        ),
        meter_part(METERS[0], "across the cell's terminals", "left"),
        meter_part(
            METERS[1], "in series with the switch and the load socket, carrying the load's current", "right"
        ),
        logger_part("both meters"),
    ),
    rules=(
        f"A reading counts only once nothing in the circuit has been switched or reseated for {SETTLE_S:g} "
        "s: the rocker not moved and no load box set into or lifted out of the load socket in that time.",
    ),
)


@dataclass(frozen=True)
class Cell:
    """The cell: EMF (V), DC internal resistance r (ohm), the polarisation branch's share of r and its time
    constant (s)."""

    emf: float
    ohms: float
    share: float
    tau: float

    @property
    def ohmic(self) -> float:
        return (1.0 - self.share) * self.ohms

    @property
    def polarisation(self) -> float:
        return self.share * self.ohms

    @property
    def farads(self) -> float:
        return self.tau / self.polarisation


class BatteryWiring:
    """The cell (EMF, r0, R_p ∥ C_p) with the voltmeter (its input resistance) across its terminals; the
    ammeter, the switch and the load socket in series across them."""

    def __init__(self, cell: Cell, loads: dict[str, float], ammeter_zero: float) -> None:
        self.cell = cell
        self.loads = loads
        self.ammeter_zero = ammeter_zero

    def build(self, dt: float) -> Circuit:
        cell = self.cell
        c = Circuit(["e", "m", "t", "a", "b"], dt)
        c.add_voltage_source("emf", "e", GROUND, cell.emf)
        c.add_resistor("ohmic", "e", "m", cell.ohmic)
        c.add_resistor("polarisation", "m", "t", cell.polarisation)
        at_rest = cell.polarisation * cell.emf / (cell.ohms + VOLTMETER_OHMS)  # the voltmeter's own current
        c.add_capacitor("double_layer", "m", "t", cell.farads, v0=at_rest)
        c.add_resistor("voltmeter_input", "t", GROUND, VOLTMETER_OHMS)
        c.add_voltmeter("voltmeter", "t", GROUND)
        c.add_ammeter("ammeter", "t", "a")
        c.add_switch("closed", "a", "b")
        c.add_resistor("load", "b", GROUND, next(iter(self.loads.values())))
        return c

    def apply(self, circuit: Circuit, state: BoardState) -> None:
        """The rocker and the socket's contacts are in series: one switch, closed when both are."""
        box = state.seated[LOAD_SOCKET.name]
        circuit.set_switch("closed", state.powered and box is not None)
        if box is not None:
            circuit.set_resistance("load", self.loads[box])

    def true_values(self, circuit: Circuit) -> dict[str, float]:
        return {
            "voltmeter": circuit.reading("voltmeter"),
            "ammeter": circuit.reading("ammeter") + self.ammeter_zero,
        }


def wiring(instance: Instance) -> BatteryWiring:
    h = instance.hidden
    cell = Cell(h["E"], h["r"], h["polarisation_share"], h["polarisation_tau"])
    loads = {name: ohms * (1.0 + h[f"{name}_deviation"]) for name, ohms in LOAD_OHMS.items()}
    return BatteryWiring(cell, loads, h["ammeter_zero"])


class BatteryBoard(CircuitBoard):
    """The circuit board with the cell's holder fixed on it."""

    def bodies_xml(self) -> str:
        x, y = HOLDER_CENTRE
        return f"""{super().bodies_xml()}
<body name="battery" pos="{x} {y} {BOARD_TOP_Z + 0.006}">
  <geom name="battery_holder" type="box" size="0.04 0.02 0.006" rgba="0.1 0.1 0.1 1" {WORLD_GEOM}/>
  <geom name="battery_cell" type="cylinder" size="0.016 0.03" pos="0 0 0.016" euler="0 1.5707963 0"
        rgba="0.15 0.3 0.7 1" {WORLD_GEOM}/>
  <geom name="battery_band" type="cylinder" size="0.0162 0.008" pos="0.022 0 0.016" euler="0 1.5707963 0"
        rgba="0.8 0.65 0.2 1" contype="0" conaffinity="0" mass="0"/>
  <geom name="battery_plus" type="cylinder" size="0.005 0.003" pos="0.033 0 0.016" euler="0 1.5707963 0"
        rgba="0.75 0.75 0.75 1" contype="0" conaffinity="0" mass="0"/>
</body>"""


def bench(instance: Instance) -> BatteryBoard:
    """The battery's board of ``instance``."""
    return BatteryBoard(wiring(instance), (LOAD_SOCKET,), LOAD_BOXES, METERS, setpoints=(0.0,))


SETTLED = f"nothing switched or reseated for {SETTLE_S:g} s"


def load_of(state: BoardState) -> str:
    """The load box in a closed circuit, or OPEN."""
    box = state.seated[LOAD_SOCKET.name]
    return box if state.powered and box is not None else OPEN


class BatteryEvaluator(BoardEvaluator):
    """Watches the circuit (the switch and the load socket): readings count once it has stood unchanged for
    SETTLE_S; scores E and r against the cell's."""

    circuit_box = ""
    required_conditions = (SETTLED,)
    restored_text = "the switch is off and every load box is on its pad"

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, board: Platform) -> None:
        super().__init__(spec, record, instance, board)
        self.circuit = Timeline(self.record, "circuit", "load", OPEN)
        self._arrangement: tuple[bool, str | None] = (False, None)
        self._changed = -SETTLE_S
        """When the switch or the socket last changed: the bench has stood at rest before the episode."""

    def live(self, state: BoardState) -> bool:
        return load_of(state) != OPEN

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        state = self.platform.state
        arrangement = (state.powered, state.seated[LOAD_SOCKET.name])
        if arrangement != self._arrangement:
            self._arrangement, self._changed = arrangement, time_s
        settled = time_s - self._changed >= SETTLE_S
        self.circuit.update(time_s, load_of(state))
        self.tracker.update(time_s, {SETTLED: settled})
        self.measurable |= settled and self.live(state)

    def loads_read(self, valid: Sequence[Verdict]) -> dict[str, set[str]]:
        """The meters validly read with each load in circuit (OPEN included)."""
        read: dict[str, set[str]] = {}
        for v in valid:
            if v.time_s is not None:
                read.setdefault(self.circuit.at(v.time_s), set()).add(instrument_of(v.citation))
        return read

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        meters = [m.spec.name for m in self.platform.meters]
        first = first_observation(log, lambda t: conditions.held(SETTLED, t), meters)
        read = self.loads_read(valid)
        both = sorted(load for load, names in read.items() if set(meters) <= names)
        open_volts = "voltmeter" in read.get(OPEN, set())
        return [
            Check("L1", self.acted, "the robot touched a load box, the rocker or a key" if self.acted
                  else "nothing was touched"),
            Check("L2", self.measurable, f"a load box was in the closed circuit, unchanged for {SETTLE_S:g} s"
                  if self.measurable else "no load box ever stood settled in the closed circuit"),
            Check("L3", first is not None or bool(valid),
                  f"observation {first.observation_id} shows both meters readable, settled" if first
                  else "a valid logger row" if valid else "no valid settled reading"),
            Check("L4", open_volts and len(both) >= 2,
                  f"valid settled readings of both meters with the circuit {', '.join(both) or 'nowhere'}; "
                  f"the open-circuit voltage {'read' if open_volts else 'not read'}"),
        ]  # fmt: skip

    def targets(self) -> dict[str, float]:
        return {"E": self.instance.hidden["E"], "r": self.instance.hidden["r"]}


EXPERIMENT = Experiment(SPEC, bench, BatteryEvaluator)
