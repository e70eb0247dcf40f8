"""#16 Three-terminal black box: which of four candidate networks is sealed in a box, and its R1, R2, C1.

The box has three terminals, A, B and C, brought out to four contacts under it, at its west, north, east and
south edges (as it stands on its pad): A, B, C and A again. The socket's two contacts lie under its west and
north edges, so the box's quarter turn in the socket chooses the pair of terminals the circuit drives: set
in as it stood, A (from the supply through the series resistor and the ammeter) against B (to ground); a
quarter turn counter-clockwise, B against C; a half turn, C against A; three quarters, A against itself.
The voltmeter lies across the socket's contacts, the third terminal floats.

Inside is one of four networks (the card draws each): delta (R1 A-B, R2 B-C, C1 C-A), tee (R1 A-B, R2 A-C,
C1 B-C), parallel (R1 A-B, R2 and C1 both B-C) and star (R1, R2, C1 from A, B, C to one inner node). Which
pairs conduct at DC, which show a transient, and which pair's DC resistance is the sum of the others' tell
them apart; the transients' time constants then give C1 with the series resistor and R1, R2. The circuit is
the kit's modified nodal analysis with exact exponential stepping; the capacitor keeps its charge in and
out of the socket (in the star it has no path to discharge inside the box).

Hidden: the network, R1, R2 (270-680 ohm), C1 (10-22 mF) and both meters' small zero errors. Readings count
with the box seated on a pair of distinct terminals and the supply on, half a second after the last change.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import mujoco

from actloop.suites.lab.catalog import NETWORKS, specify
from actloop.suites.lab.evidence import Conditions, RowCitation, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.circuits import GROUND, Circuit
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.circuit_board import (
    AMMETER,
    BOX_HALF,
    BOX_SPOTS,
    METER_SPOTS,
    SOCKET,
    VOLTMETER,
    VOLTMETER_RESISTANCE,
    BoardState,
    CircuitBoard,
    ComponentBox,
    Meter,
    Socket,
    add_supply,
    add_voltmeter,
    board_parts,
    drive_supply,
    fixture_xml,
    logger_part,
    meter_part,
    meter_values,
    supply_part,
)
from actloop.suites.lab.platforms.circuit_board_evaluation import BoardEvaluator
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, ReadingsAt, choice, log_uniform, uniform
from actloop.suites.lab.watch import Timeline

SERIES_OHMS = 220.0
RESISTOR_CENTRE = (0.09, -0.05)

METERS = (Meter(VOLTMETER, METER_SPOTS[0], sign=True), Meter(AMMETER, METER_SPOTS[1], sign=True))
PAIRS = ("AB", "BC", "CA", "AA")
"""The terminals the socket's (west, north) contacts meet at each quarter turn counter-clockwise."""
EDGE_TERMINALS = {"west": "A", "north": "B", "east": "C", "south": "A"}
TERMINAL_RGBA = {"A": "0.85 0.15 0.15 1", "B": "0.15 0.7 0.2 1", "C": "0.2 0.35 0.9 1"}
YAW_TOLERANCE_RAD = 0.12
"""A seated box counts as turned by a whole number of quarter turns within this."""
EDGES = {"west": (-1.0, 0.0), "north": (0.0, 1.0), "east": (1.0, 0.0), "south": (0.0, -1.0)}
BOX = ComponentBox(
    "terminal_box",
    BOX_SPOTS[0],
    "0.2 0.2 0.22 1",
    tuple(
        (0.75 * BOX_HALF[0] * dx, 0.75 * BOX_HALF[1] * dy, TERMINAL_RGBA[EDGE_TERMINALS[edge]])
        for edge, (dx, dy) in EDGES.items()
    ),
)
SOCKET_WN = Socket(SOCKET.name, SOCKET.centre, ((-0.009, 0.0), (0.0, 0.009)))
"""The kit's socket with its contacts under its west and north edges."""
NETWORK_TEXT = {
    "delta": "R1 between A and B, R2 between B and C, C1 between C and A",
    "tee": "R1 between A and B, R2 between A and C, C1 between B and C",
    "parallel": "R1 between A and B; R2 and C1 side by side, both between B and C",
    "star": "R1 from A, R2 from B and C1 from C, all three meeting at one node inside the box",
}
ELEMENTS = {
    "delta": (("R1", "A", "B"), ("R2", "B", "C"), ("C1", "C", "A")),
    "tee": (("R1", "A", "B"), ("R2", "A", "C"), ("C1", "B", "C")),
    "parallel": (("R1", "A", "B"), ("R2", "B", "C"), ("C1", "B", "C")),
    "star": (("R1", "A", "O"), ("R2", "B", "O"), ("C1", "C", "O")),
}
MIN_READINGS_PER_PAIR = 3
CHARGED_V = 0.1
"""With the supply off, the box counts as in a closed circuit while at least this shows across it."""
SUFFICIENT = {
    "parallel": ({"AB", "BC"}, {"AB", "CA"}),
    "delta": ({"AB", "BC", "CA"},),
    "tee": ({"AB", "BC", "CA"},),
    "star": ({"AB", "BC", "CA"},),
}
"""The sets of pairs whose readings tell each network from the others and give its values (L4): the
parallel network from A-B (no transient) and a second pair; every other only with all three."""

SPEC = specify(
    "three_terminal_box",
    question=(
        "Determine which candidate network is sealed in the three-terminal box (`topology`), and its "
        "resistances R1 and R2 in ohms and its capacitance C1 in farads."
    ),
    budget_s=1500.0,
    parameters=(
        Parameter(
            "network",
            "which network is in the box (its whole part indexes the candidates)",
            "",
            uniform(0.0, 4.0),
        ),
        Parameter("R1", "the first resistance", "ohm", log_uniform(270.0, 680.0)),
        Parameter("R2", "the second resistance", "ohm", log_uniform(270.0, 680.0)),
        Parameter("C1", "the capacitance", "F", log_uniform(0.010, 0.022)),
        Parameter("voltmeter_zero", "the voltmeter's zero error", "V", uniform(-0.005, 0.005)),
        Parameter("ammeter_zero", "the ammeter's zero error", "mA", uniform(-0.002, 0.002)),
        Parameter(
            "series_resistance", "the series resistor's resistance", "ohm", choice(SERIES_OHMS), public=True
        ),
        VOLTMETER_RESISTANCE,
    ),
    parts=(
        Part(
            BOX.name,
            "a sealed box with three terminals A, B and C, uncharged at the start, standing on its pad "
            "beside the board. Four contacts under it, at its west, north, east and south edges as it "
            "stands, carry A, B, C and A; its lid shows each edge's terminal by colour (A red, B green, C "
            "blue). The "
            "socket's two contacts meet the box's contacts at the socket's west and north edges: set in as "
            "it stands, the circuit drives A against B; turned a quarter turn counter-clockwise (seen from "
            "above), B against C; a half turn, C against A; three quarters, A against A. Inside is one of "
            + "; ".join(f"`{label}` ({text})" for label, text in NETWORK_TEXT.items()),
        ),
        Part("board", "carries the socket, the series resistor, the supply and the meters", restore="fixed"),
        board_parts("the box")[1],
        Part(
            "resistor",
            "the series resistor (`series_resistance`) fixed on the board between the supply and the ammeter",
            restore="fixed",
        ),
        supply_part(),
        meter_part(
            METERS[0], "across the socket's contacts (input resistance `voltmeter_resistance`)", "left"
        ),
        meter_part(
            METERS[1],
            "in series between the resistor and the socket's west contact, carrying the current of the box "
            "and of the voltmeter",
            "right",
        ),
        logger_part("both meters"),
    ),
    rules=(
        "A reading counts only while the box sits in the socket on two different terminals, with the "
        f"supply on (at any setting) or, with it off, the box charged ({CHARGED_V:g} V or more across the "
        "socket), half a second after the last change.",
    ),
    minima=(ReadingsAt(("voltmeter", "ammeter"), "pair", 3, "pairs of terminals driven (A-B, B-C and C-A)"),),
)


def quarter_turn(xmat: Sequence[float]) -> int | None:
    """The box's quarter turns counter-clockwise from how it stood (0-3), or None between them."""
    yaw = math.atan2(float(xmat[3]), float(xmat[0]))
    turns = round(yaw / (math.pi / 2))
    if abs(yaw - turns * math.pi / 2) > YAW_TOLERANCE_RAD:
        return None
    return turns % 4


@dataclass(frozen=True)
class TerminalState(BoardState):
    """The board's state with the seated box's quarter turn (None when out or between turns)."""

    quarter: int | None = None


def pair_of(state: BoardState) -> str:
    """The terminals the socket's contacts meet ("" with the box out or between quarter turns)."""
    quarter = state.quarter if isinstance(state, TerminalState) else None
    return PAIRS[quarter] if quarter is not None else ""


class TerminalBoard(CircuitBoard):
    """The circuit board knowing the seated box's quarter turn."""

    quarter: int | None = None

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self.quarter = quarter_turn(data.body(BOX.name).xmat)
        super().after_step(model, data)

    def bodies_xml(self) -> str:
        return super().bodies_xml() + fixture_xml(
            "resistor", RESISTOR_CENTRE, "0.02 0.008 0.006", "0.55 0.4 0.25 1"
        )

    @property
    def state(self) -> TerminalState:
        base = super().state
        seated = base.seated[SOCKET.name] == BOX.name
        return TerminalState(base.powered, base.setpoint, base.seated, self.quarter if seated else None)


class TerminalWiring:
    """Supply → power switch → series resistor → ammeter → the socket's west contact; its north contact →
    ground; each terminal reaches either contact through a switch the box's quarter turn closes; the
    voltmeter (its input resistance) across the contacts; the network inside the box."""

    def __init__(self, network: str, values: dict[str, float], voltmeter_zero: float, ammeter_zero: float):
        self.network = network
        self.values = values
        self.voltmeter_zero = voltmeter_zero
        self.ammeter_zero = ammeter_zero

    def build(self, dt: float) -> Circuit:
        c = Circuit(["s", "p", "q", "w", "A", "B", "C", "O"], dt)
        add_supply(c, "series", SERIES_OHMS, "w")
        add_voltmeter(c, "w")
        for terminal in "ABC":
            c.add_switch(f"drive_{terminal}", "w", terminal)
            c.add_switch(f"return_{terminal}", terminal, GROUND)
        for name, a, b in ELEMENTS[self.network]:
            if name == "C1":
                c.add_capacitor(name, a, b, self.values[name])
            else:
                c.add_resistor(name, a, b, self.values[name])
        return c

    def apply(self, circuit: Circuit, state: BoardState) -> None:
        drive_supply(circuit, state)
        pair = pair_of(state)
        drive, back = (pair[0], pair[1]) if pair else ("", "")
        for terminal in "ABC":
            circuit.set_switch(f"drive_{terminal}", terminal == drive)
            circuit.set_switch(f"return_{terminal}", terminal == back)

    def true_values(self, circuit: Circuit) -> dict[str, float]:
        return meter_values(circuit, self.voltmeter_zero, self.ammeter_zero)


def network_of(instance: Instance) -> str:
    return NETWORKS[min(int(instance.hidden["network"]), len(NETWORKS) - 1)]


def wiring(instance: Instance) -> TerminalWiring:
    h = instance.hidden
    values = {name: h[name] for name in ("R1", "R2", "C1")}
    return TerminalWiring(network_of(instance), values, h["voltmeter_zero"], h["ammeter_zero"])


def bench(instance: Instance) -> TerminalBoard:
    """The board of ``instance``."""
    return TerminalBoard(wiring(instance), (SOCKET_WN,), (BOX,), METERS)


class TerminalEvaluator(BoardEvaluator):
    """Scores the network's label exactly and R1, R2, C1 within tolerance, from readings of both meters on
    every pair of terminals."""

    circuit_box = BOX.name

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, board: Platform) -> None:
        super().__init__(spec, record, instance, board)
        self.pairs = Timeline(self.record, "pair", "terminals", "")

    def live(self, state: BoardState) -> bool:
        """The box on two different terminals, with the supply on or the box charged."""
        if pair_of(state) in ("", "AA") or state.seated[SOCKET.name] != BOX.name:
            return False
        return state.powered or abs(self.platform.circuit.reading("voltmeter")) >= CHARGED_V

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        super().observe(time_s, data, touched)
        state = self.platform.state
        self.pairs.update(time_s, pair_of(state) if self.live(state) else "")

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        if name != "pair" or verdict.time_s is None:
            return super().property_of(name, verdict, log)
        pair = self.pairs.at(verdict.time_s)
        return float(PAIRS.index(pair)) if pair else None

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        counts = dict.fromkeys(PAIRS[:3], 0)
        for v in valid:
            pair = self.pairs.at(v.time_s) if v.time_s is not None else ""
            meter = v.citation.column if isinstance(v.citation, RowCitation) else v.citation.instrument
            if pair and meter == "ammeter":
                counts[pair] += 1
        read = {pair for pair, n in counts.items() if n >= MIN_READINGS_PER_PAIR}
        enough = any(needed <= read for needed in SUFFICIENT[network_of(self.instance)])
        shown = ", ".join(f"{pair[0]}-{pair[1]}: {n}" for pair, n in counts.items())
        return [
            *self.live_milestones(log, conditions, valid),
            Check(
                "L4",
                enough,
                f"valid ammeter readings on each pair ({shown}; {MIN_READINGS_PER_PAIR} or more on "
                f"{'enough pairs' if enough else 'too few pairs'} to tell this network and its values)",
            ),
        ]

    def targets(self) -> dict[str, float | str]:
        h = self.instance.hidden
        return {"topology": network_of(self.instance), "R1": h["R1"], "R2": h["R2"], "C1": h["C1"]}


EXPERIMENT = Experiment(SPEC, bench, TerminalEvaluator)
