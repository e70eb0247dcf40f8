"""#8 RC capacitance: the capacitance sealed in a box, from its charging (or discharging) through a resistor.

The box stands beside the circuit board; set into the board's socket it joins a circuit: the supply, its
power switch, a series resistor fixed on the board, an ammeter, the socket (the box) and ground, with the
voltmeter across the socket. Switched on at a setting V_s, an uncharged box charges as
V(t) = V_th (1 − e^(−t/τ)) with V_th = V_s R_V / (R + R_V) and τ = C (R ∥ R_V), the ammeter carrying
(V_s − V) / R; the exact exponential stepping of :class:`~..physics.circuits.Circuit` integrates it without
error at any step. Switched off, the power switch opens: the box holds its charge, leaking only through the
voltmeter's input resistance (τ = R_V C, hours); set to 0 V with the supply on, it discharges through the
resistor into the supply. Lifted out of the socket it keeps its charge, and is charged when set back.

The logger (four rows a second) against τ (5-47 s) decides the method: one reading gives no τ at all, a
63 % time read off the rows is coarse, and the series resistor's true value lies up to 3 % from its print,
so C = τ / R_printed misses the tolerance in most instances. A logged charging curve gives both: τ from its
shape, and R as the ratio of the voltage's to the current's exponential amplitude (the meters' zero errors,
hidden, only shift each curve); then C = τ (1/R + 1/R_V).

Readings count while the box sits in the socket with the supply on, or with the supply off and the box
charged (at least 0.1 V across it), held for a quarter second (a display refresh). L4: valid voltmeter
readings at five or more values at least 0.2 V apart in one unchanged circuit (a charging or discharging
curve). The bench is restored with the supply off and the box on its pad; it may stay charged (sealed, it
cannot be discharged on the pad, and a charge on it harms nothing).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import mujoco

from actloop.sim.scene import WORLD_GEOM
from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, Verdict, distinct, instrument_of
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.circuits import GROUND, Circuit
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.circuit_board import (
    AMMETER,
    BOARD_TOP_Z,
    BOX_SPOTS,
    METER_SPOTS,
    SOCKET,
    VOLTMETER,
    VOLTMETER_RESISTANCE,
    BoardState,
    CircuitBoard,
    ComponentBox,
    Meter,
    add_supply,
    add_voltmeter,
    board_parts,
    drive_supply,
    logger_part,
    meter_part,
    meter_values,
    supply_part,
)
from actloop.suites.lab.platforms.circuit_board_evaluation import BoardEvaluator
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, choice, log_uniform, uniform
from actloop.suites.lab.watch import HeldFor, Timeline

NOMINAL_OHMS = 10e3
RESISTOR_SPREAD = 0.03
"""The series resistor's true value lies within this fraction of its print (the card says 5 %)."""
BOX = ComponentBox("capacitor_box", BOX_SPOTS[0], "0.1 0.2 0.45 1")
METERS = (Meter(VOLTMETER, METER_SPOTS[0], sign=True), Meter(AMMETER, METER_SPOTS[1], sign=True))
RESISTOR_CENTRE = (0.09, -0.05)
CHARGED_V = 0.1
"""The box counts as charged with at least this across it."""
HOLD_S = 0.25
"""A reading counts once its condition has held this long (one display refresh)."""
CURVE_POINTS = 5
CURVE_GAP_V = 0.2
IN_CIRCUIT_OR_CHARGED = "box in the socket, supply on or box charged"

SPEC = specify(
    "rc_capacitance",
    question="Determine the capacitance C of the sealed capacitor box, in farads.",
    budget_s=600.0,
    parameters=(
        Parameter("C", "capacitance of the box", "F", log_uniform(470e-6, 4700e-6)),
        Parameter(
            "R_series",
            "the series resistor's true resistance",
            "ohm",
            uniform(NOMINAL_OHMS * (1 - RESISTOR_SPREAD), NOMINAL_OHMS * (1 + RESISTOR_SPREAD)),
        ),
        Parameter("voltmeter_zero", "the voltmeter's zero error", "V", uniform(-0.1, 0.1)),
        Parameter("ammeter_zero", "the ammeter's zero error", "mA", uniform(-0.02, 0.02)),
        Parameter(
            "series_nominal",
            "the series resistor's printed resistance",
            "ohm",
            choice(NOMINAL_OHMS),
            public=True,
        ),
        VOLTMETER_RESISTANCE,
    ),
    parts=(
        Part(
            BOX.name,
            "a sealed capacitor box with two contacts on its underside, uncharged at the start; it stands on "
            "its pad beside the board and joins the circuit when set into the socket; out of the socket it "
            "keeps whatever charge it holds",
        ),
        Part("board", "carries the socket, the series resistor, the supply and the meters", restore="fixed"),
        board_parts("the box")[1],
        Part(
            "resistor",
            "the series resistor fixed on the board between the supply and the ammeter, of printed "
            "resistance `series_nominal` (a 5 % part: its true resistance may differ from the print by up "
            "to 5 %)",
            restore="fixed",
        ),
        supply_part(),
        meter_part(
            METERS[0], "across the socket's contacts (input resistance `voltmeter_resistance`)", "left"
        ),
        meter_part(
            METERS[1],
            "in series between the resistor and the socket, carrying the current of the box and of the "
            "voltmeter",
            "right",
        ),
        logger_part("both meters"),
    ),
    rules=(
        f"A reading counts only while the box sits in the socket with the supply on, or with the supply off "
        f"and the box charged (at least {CHARGED_V:g} V across it), once this has held for "
        f"{HOLD_S:g} s.",
        "Switched off, the supply's output is open: a charged box in the socket keeps its charge but for "
        "what the voltmeter draws.",
    ),
)


class RCWiring:
    """Supply → power switch → series resistor → ammeter → socket (the box through its contacts) → ground,
    with the voltmeter (its input resistance) across the socket."""

    def __init__(self, farads: float, ohms: float, voltmeter_zero: float, ammeter_zero: float) -> None:
        self.farads = farads
        self.ohms = ohms
        self.voltmeter_zero = voltmeter_zero
        self.ammeter_zero = ammeter_zero

    @classmethod
    def of(cls, instance: Instance) -> RCWiring:
        h = instance.hidden
        return cls(h["C"], h["R_series"], h["voltmeter_zero"], h["ammeter_zero"])

    def build(self, dt: float) -> Circuit:
        c = Circuit(["s", "p", "q", "a", "b"], dt)
        add_supply(c, "series", self.ohms, "a")
        c.add_switch("contacts", "a", "b")
        c.add_capacitor("box", "b", GROUND, self.farads)
        add_voltmeter(c, "a")
        return c

    def apply(self, circuit: Circuit, state: BoardState) -> None:
        drive_supply(circuit, state)
        circuit.set_switch("contacts", state.seated[SOCKET.name] == BOX.name)

    def true_values(self, circuit: Circuit) -> dict[str, float]:
        return meter_values(circuit, self.voltmeter_zero, self.ammeter_zero)


class RCBoard(CircuitBoard):
    """The circuit board with the series resistor fixed on it: a body lying between two posts, banded brown,
    black, orange and gold as a 10 kΩ 5 % part is."""

    def bodies_xml(self) -> str:
        x, y = RESISTOR_CENTRE
        bands = "\n  ".join(
            f'<geom name="resistor_band_{i}" type="cylinder" size="0.0062 0.0012" pos="{dx} 0 0" '
            f'euler="0 1.5708 0" rgba="{rgba}" contype="0" conaffinity="0" mass="0"/>'
            for i, (dx, rgba) in enumerate(
                ((-0.009, "0.45 0.25 0.1 1"), (-0.004, "0.1 0.1 0.1 1"), (0.001, "0.85 0.5 0.1 1"),
                 (0.009, "0.8 0.65 0.2 1"))
            )
        )  # fmt: skip
        return f"""{super().bodies_xml()}
<body name="resistor" pos="{x} {y} {BOARD_TOP_Z + 0.008}">
  <geom name="resistor" type="cylinder" size="0.006 0.016" euler="0 1.5708 0" rgba="0.85 0.75 0.55 1"
        {WORLD_GEOM}/>
  {bands}
  <geom name="resistor_post_0" type="box" size="0.002 0.002 0.004" pos="-0.02 0 -0.004"
        rgba="0.7 0.7 0.7 1" {WORLD_GEOM}/>
  <geom name="resistor_post_1" type="box" size="0.002 0.002 0.004" pos="0.02 0 -0.004"
        rgba="0.7 0.7 0.7 1" {WORLD_GEOM}/>
</body>"""


def bench(instance: Instance) -> RCBoard:
    """The circuit board of ``instance``."""
    return RCBoard(RCWiring.of(instance), (SOCKET,), (BOX,), METERS)


class RCEvaluator(BoardEvaluator):
    """Watches the box (in the socket, the supply on or the box charged) and the circuit's changes; scores C
    against the hidden capacitance."""

    circuit_box = BOX.name
    required_conditions = (IN_CIRCUIT_OR_CHARGED,)

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, board: Platform) -> None:
        super().__init__(spec, record, instance, board)
        self._counts = HeldFor()
        self.circuit = Timeline(self.record, "circuit", "state", self._circuit_state(self.platform.state))

    @staticmethod
    def _circuit_state(state: BoardState) -> str:
        seated = state.seated[SOCKET.name] == BOX.name
        return f"{'on' if state.powered else 'off'} {state.setpoint:g} V, box {'in' if seated else 'out'}"

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        super().observe(time_s, data, touched)
        state = self.platform.state
        seated = state.seated[SOCKET.name] == BOX.name
        charged = abs(self.platform.circuit.capacitor_voltage("box")) >= CHARGED_V
        counts = seated and (state.powered or charged)
        held = self._counts.update(time_s, counts)
        self.tracker.update(time_s, {IN_CIRCUIT_OR_CHARGED: counts and held >= HOLD_S})
        self.circuit.update(time_s, self._circuit_state(state))

    def curve(self, valid: Sequence[Verdict]) -> list[float]:
        """The most voltmeter values (at least CURVE_GAP_V apart) validly read in one unchanged circuit."""
        starts = [t for t, _ in self.circuit.changes]
        spans: dict[int, list[float]] = {}
        for v in valid:
            if v.time_s is not None and instrument_of(v.citation) == VOLTMETER.name:
                spans.setdefault(bisect.bisect_right(starts, v.time_s), []).append(v.citation.value)
        return max((distinct(values, CURVE_GAP_V) for values in spans.values()), key=len, default=[])

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        found = self.curve(valid)
        return [
            *self.live_milestones(log, conditions, valid),
            Check(
                "L4",
                len(found) >= CURVE_POINTS,
                f"valid voltmeter readings at {len(found)} values at least {CURVE_GAP_V:g} V apart in one "
                f"unchanged circuit (a charging or discharging curve needs {CURVE_POINTS})",
            ),
        ]

    def targets(self) -> dict[str, float]:
        return {"C": self.instance.hidden["C"]}


EXPERIMENT = Experiment(SPEC, bench, RCEvaluator)
