"""#9 Black-box resistor: the resistance hidden in a sealed box, from meter readings in a live circuit.

The box stands beside the circuit board; set into the board's socket it closes a circuit: the supply, an
ammeter in series, and a voltmeter across the socket (so the ammeter carries the voltmeter's small current
too). Hidden: the resistance, and each meter's zero error (a constant offset on what it shows). Readings
count only with the supply on and the box seated in the socket.
"""

from __future__ import annotations

from collections.abc import Sequence

from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, Verdict
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.circuits import GROUND, Circuit
from actloop.suites.lab.platforms.circuit_board import (
    AMMETER,
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
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import Parameter, Part, log_uniform, uniform

SUPPLY_OHMS = 0.2
"""The supply's output resistance (the voltmeter reads the box, not the supply's setting)."""
BOX = ComponentBox("black_box", BOX_SPOTS[0])
METERS = (Meter(VOLTMETER, METER_SPOTS[0], sign=True), Meter(AMMETER, METER_SPOTS[1], sign=True))

SPEC = specify(
    "black_box_resistor",
    question="Determine the resistance R of the sealed black box, in ohms.",
    budget_s=500.0,
    parameters=(
        Parameter("R", "resistance inside the black box", "ohm", log_uniform(47.0, 4700.0)),
        Parameter("voltmeter_zero", "the voltmeter's zero error", "V", uniform(-0.2, 0.2)),
        Parameter("ammeter_zero", "the ammeter's zero error", "mA", uniform(-0.2, 0.2)),
        VOLTMETER_RESISTANCE,
    ),
    parts=(
        Part(
            "black_box",
            "a sealed box with two contacts on its underside; it stands on its pad beside the board and "
            "closes the circuit when set into the socket",
        ),
        *board_parts(),
        supply_part(),
        meter_part(METERS[0], "across the socket's contacts", "left"),
        meter_part(
            METERS[1],
            "in series with the supply, carrying the current of the box and of the voltmeter",
            "right",
        ),
        logger_part("both meters"),
    ),
    rules=("A reading counts only while the supply is on and the box is seated in the socket.",),
)


class BlackBoxWiring:
    """Supply → power switch → output resistance → ammeter → socket (the box through its contacts) →
    ground, with the voltmeter (its input resistance) across the socket."""

    def __init__(self, ohms: float, voltmeter_zero: float, ammeter_zero: float) -> None:
        self.ohms = ohms
        self.voltmeter_zero = voltmeter_zero
        self.ammeter_zero = ammeter_zero

    def build(self, dt: float) -> Circuit:
        c = Circuit(["s", "p", "q", "a", "b"], dt)
        add_supply(c, "output", SUPPLY_OHMS, "a")
        c.add_switch("contacts", "a", "b")
        c.add_resistor("box", "b", GROUND, self.ohms)
        add_voltmeter(c, "a")
        return c

    def apply(self, circuit: Circuit, state: BoardState) -> None:
        drive_supply(circuit, state)
        circuit.set_switch("contacts", state.seated[SOCKET.name] == BOX.name)

    def true_values(self, circuit: Circuit) -> dict[str, float]:
        return meter_values(circuit, self.voltmeter_zero, self.ammeter_zero)


def bench(instance: Instance) -> CircuitBoard:
    """The circuit board of ``instance``."""
    h = instance.hidden
    return CircuitBoard(
        BlackBoxWiring(h["R"], h["voltmeter_zero"], h["ammeter_zero"]), (SOCKET,), (BOX,), METERS
    )


MIN_SETTINGS = 2


class BlackBoxEvaluator(BoardEvaluator):
    """Scores R against the hidden resistance, from readings of both meters together at two or more
    settings of the supply."""

    circuit_box = BOX.name

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        settings = [v for v in self.read_together(valid) if v > 0]
        return [
            *self.live_milestones(log, conditions),
            Check(
                "L4",
                len(settings) >= MIN_SETTINGS,
                f"valid voltmeter and ammeter readings together (one observation or logger row) at settings "
                f"{settings} V",
            ),
        ]

    def targets(self) -> dict[str, float]:
        return {"R": self.instance.hidden["R"]}


EXPERIMENT = Experiment(SPEC, bench, BlackBoxEvaluator)
