"""#10 LED wavelength: the peak wavelength of an unknown LED, calibrated against known LEDs' turn-on voltages.

Five LED boxes stand on pads beside the circuit board: four known LEDs whose peak wavelength is printed on
the card (blue, green, amber and red boxes: 455, 525, 590 and 660 nm) and a white box with the unknown one,
its wavelength drawn between the shortest and the longest known LED's. Seated in the socket, an LED closes
the circuit supply → power switch → series resistor (330 ohm, fixed on the board) → ammeter → socket (the
LED) → ground, with the voltmeter across the socket.

Each LED is a Shockley junction whose forward voltage at 1 mA is its photon energy less an offset common to
the family (``Junction.led``: V(1 mA) = hc/(qλ) − offset), with the family's ideality; so V read at one
supply setting is a straight line in 1/λ, known LEDs calibrate it and the unknown is read off it. Conducting,
the junction warms: its lumped heat (one body per LED, losing heat to the room through its thermal
resistance, heated by I·V evaluated where each step starts) is advanced exactly (:mod:`..physics.heat`),
and its forward voltage at any current falls by the drift coefficient (about 2 mV/K) per kelvin, modelled
as a source of −κ·ΔT in series with the junction. A reading counts only once the LED has been in the live
circuit at an unchanged setting for SETTLING_S (over five thermal time constants), and a reading of the
unknown only while it conducts CONDUCTING_A or more.

Hidden: the unknown's wavelength, the family's offset (0.15-0.45 V) and ideality, the drift coefficient,
the thermal resistance and time constant, and both meters' zero errors. The naive λ = hc/(qV) from one
reading ignores the offset (and the current's share of V): at 5 V it misses by 2-23 % (the difficulty audit).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import mujoco

from actloop.sim.scene import WORLD_GEOM
from actloop.suites.lab.catalog import specify
from actloop.suites.lab.evidence import Conditions, Verdict, instrument_of
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import InstrumentLog
from actloop.suites.lab.physics.circuits import GROUND, Circuit, Junction
from actloop.suites.lab.physics.heat import ROOM, ThermalNetwork
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.platforms.circuit_board import (
    AMMETER,
    BOARD_TOP_Z,
    METER_SPOTS,
    SOCKET,
    VOLTMETER,
    BoardState,
    CircuitBoard,
    ComponentBox,
    Meter,
    add_voltmeter,
    board_parts,
    logger_part,
    meter_part,
    meter_values,
    supply_part,
)
from actloop.suites.lab.platforms.circuit_board_evaluation import BoardEvaluator
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ExperimentSpec, Parameter, Part, ReadingsAt, choice, uniform
from actloop.suites.lab.watch import Timeline

KNOWN_NM = {"blue": 455.0, "green": 525.0, "amber": 590.0, "red": 660.0}
"""The known LEDs' printed peak wavelengths (public), by the colour of their boxes."""
UNKNOWN = "led_unknown"
SERIES_OHMS = 330.0
SUPPLY_OHMS = 0.2
ROOM_K = 298.15
SETTLING_S = 20.0
"""A reading counts once the LED has been in the live circuit at an unchanged setting this long: at least
five thermal time constants, so the drift left is below the voltmeter's last digit."""
CONDUCTING_A = 1e-3
"""A reading of the unknown counts only while this much current or more runs through it."""
SETTLED = "an LED in the live circuit, settled"
CONDUCTING = "the unknown LED conducting, when it is in the socket"
JUNCTION, POWER = "junction", "power"

ROWS_Y = (-0.19, -0.28)
COLUMNS_X = (0.08, -0.005, -0.09, -0.175)
"""Pads 85 mm apart across and 90 mm along (beyond the kit's three, 50 mm apart): a hand opened wide at
one box clears the next."""
COLOURS = {
    "blue": "0.15 0.3 0.85 1",
    "green": "0.15 0.6 0.25 1",
    "amber": "0.95 0.55 0.1 1",
    "red": "0.8 0.12 0.12 1",
}
KNOWN_BOXES = tuple(
    ComponentBox(f"led_{colour}", (x, ROWS_Y[0]), COLOURS[colour])
    for colour, x in zip(KNOWN_NM, COLUMNS_X, strict=True)
)
UNKNOWN_BOX = ComponentBox(UNKNOWN, (COLUMNS_X[1], ROWS_Y[1]), "0.92 0.92 0.9 1")
BOXES = (*KNOWN_BOXES, UNKNOWN_BOX)
PRINTED = {f"led_{colour}": f"lambda_{colour}" for colour in KNOWN_NM}
"""Each known LED box's public parameter (its printed wavelength)."""
RESISTOR_CENTRE = (0.09, -0.05)
METERS = (Meter(VOLTMETER, METER_SPOTS[0], sign=True), Meter(AMMETER, METER_SPOTS[1], sign=True))


def _parameters() -> tuple[Parameter, ...]:
    low, high = min(KNOWN_NM.values()), max(KNOWN_NM.values())
    hidden = (
        ("lambda_peak", "peak wavelength of the unknown LED", "nm", uniform(low, high)),
        ("offset", "the LED family's photon energy less its voltage at 1 mA", "V", uniform(0.15, 0.45)),
        ("ideality", "the LED family's ideality factor", "", uniform(1.6, 2.4)),
        ("drift", "the forward voltage's fall per kelvin the junction warms", "mV/K", uniform(1.6, 2.4)),
        (
            "thermal_resistance",
            "each LED's junction-to-room thermal resistance",
            "K/W",
            uniform(150.0, 350.0),
        ),
        ("thermal_time", "each LED's thermal time constant", "s", uniform(2.0, 4.0)),
        ("voltmeter_zero", "the voltmeter's zero error", "V", uniform(-0.03, 0.03)),
        ("ammeter_zero", "the ammeter's zero error", "mA", uniform(-0.02, 0.02)),
    )
    return (
        *(Parameter(*p) for p in hidden),
        *(
            Parameter(f"lambda_{c}", f"the {c} LED's printed peak wavelength", "nm", choice(nm), public=True)
            for c, nm in KNOWN_NM.items()
        ),
        Parameter("series_resistance", "the series resistor", "ohm", choice(SERIES_OHMS), public=True),
    )


SPEC = specify(
    "led_wavelength",
    question="Determine the peak wavelength lambda_peak of the unknown LED (the white box), in nm.",
    budget_s=600.0,
    parameters=_parameters(),
    parts=(
        *(
            Part(
                box.name,
                f"a known LED in {'an' if colour[0] in 'aeiou' else 'a'} {colour} box printed with its peak "
                f"wavelength (`lambda_{colour}`), two contacts underneath; it stands on its pad beside the "
                "board and conducts in the socket",
            )
            for colour, box in zip(KNOWN_NM, KNOWN_BOXES, strict=True)
        ),
        Part(
            UNKNOWN,
            "the unknown LED in a white box, its peak wavelength not printed (it lies between the shortest "
            "and the longest known LED's); it is of the same family as the known ones",
        ),
        *board_parts("an LED box"),
        Part(
            "series_resistor",
            "a resistor (`series_resistance`) fixed on the board, between the supply and the ammeter",
            restore="fixed",
        ),
        supply_part(),
        meter_part(METERS[0], "across the socket's contacts (the LED's forward voltage)", "left"),
        meter_part(METERS[1], "in series with the LED, carrying its current and the voltmeter's", "right"),
        logger_part("both meters"),
    ),
    rules=(
        f"A reading counts only once the LED in the socket has been in the circuit with the supply on at an "
        f"unchanged setting for {SETTLING_S:g} s: a conducting LED warms and its forward voltage drifts "
        "until then.",
        f"A reading of the unknown LED counts only while it conducts {1000 * CONDUCTING_A:g} mA or more.",
    ),
    minima=(
        ReadingsAt(("voltmeter",), "known_led", 2, "known LEDs (by printed wavelength)"),
        ReadingsAt(
            ("voltmeter",), "unknown_setting", 1, "supply settings with the unknown LED in the socket"
        ),
    ),
)


def series_circuit(junction: Junction, dt: float) -> Circuit:
    """The circuit with one LED box behind the socket's contacts: supply → power switch → output and series
    resistance → ammeter → socket (a) → contacts → drift source (b → k) → junction → ground, with the
    voltmeter (its input resistance) across the socket."""
    c = Circuit(["s", "p", "q", "r", "a", "b", "k"], dt)
    c.add_voltage_source("supply", "s", GROUND, 0.0)
    c.add_switch("power", "s", "p")
    c.add_resistor("output", "p", "q", SUPPLY_OHMS)
    c.add_resistor("series", "q", "r", SERIES_OHMS)
    c.add_ammeter("ammeter", "r", "a")
    c.add_switch("contacts", "a", "b")
    c.add_voltage_source("drift", "b", "k", 0.0)
    c.add_led("led", "k", GROUND, junction)
    add_voltmeter(c, "a")
    return c


class LedNetwork:
    """Every LED box's circuit and its junction's heat (a lumped body per LED, exact at any step). The
    board's circuit is that of the LED box in the socket (the last one seated while the socket is empty: its
    contacts open); a box out of the socket carries no current and cools, its heat advanced in one exact map
    when next needed."""

    def __init__(
        self,
        leds: Mapping[str, Junction],
        drift_v_per_k: float,
        heat: Mapping[str, ThermalNetwork],
        dt: float,
    ) -> None:
        self.circuits = {name: series_circuit(j, dt) for name, j in leds.items()}
        self.drift_v_per_k = drift_v_per_k
        self.heat = dict(heat)
        self.active = next(iter(leds))
        self.seated = False
        self._watts = 0.0
        self._steps = 0
        self._advanced = dict.fromkeys(leds, 0)

    def set(self, powered: bool, volts: float, seated: str | None) -> None:
        if seated is not None and seated != self.active:
            self._advance(self.active)
            self.heat[self.active].set_heater(POWER, watts=0.0)
            self.active, self._watts = seated, 0.0
        self.seated = seated is not None
        circuit = self.circuits[self.active]
        circuit.set_source("supply", volts=volts)
        circuit.set_switch("power", powered)
        circuit.set_switch("contacts", self.seated)

    @property
    def circuit(self) -> Circuit:
        return self.circuits[self.active]

    def _advance(self, name: str) -> None:
        """Bring LED ``name``'s heat up to the present step."""
        behind = self._steps - self._advanced[name]
        if behind:
            self.heat[name].step(behind)
            self._advanced[name] = self._steps

    def warming(self, name: str) -> float:
        """How far LED ``name``'s junction is above the room (K)."""
        self._advance(name)
        return self.heat[name].temperature(JUNCTION) - ROOM_K

    def led_current(self) -> float:
        """The current through the LED in the socket (A; 0 with the socket empty)."""
        return self.circuit.current("led") if self.seated else 0.0

    def step(self, n: int = 1) -> None:
        """Advance ``n`` steps: the heat with the LED's power where each step starts, then the circuit at
        the junction's new temperature."""
        for _ in range(n):
            circuit, name = self.circuit, self.active
            watts = circuit.current("led") * circuit.node_voltage("a") if self.seated else 0.0
            if watts != self._watts:
                self._advance(name)
                self.heat[name].set_heater(POWER, watts=watts)
                self._watts = watts
            self._steps += 1
            if self.seated:
                circuit.set_source("drift", volts=-self.drift_v_per_k * self.warming(name))
            circuit.step()


class LedWiring:
    """The LED boxes in the socket's circuit, with the meters' zero errors."""

    def __init__(self, hidden: Mapping[str, float], public: Mapping[str, float]) -> None:
        self.hidden = dict(hidden)
        nm = {box.name: public[PRINTED[box.name]] for box in KNOWN_BOXES}
        nm[UNKNOWN] = hidden["lambda_peak"]
        self.nanometres = nm

    def junction(self, box: str) -> Junction:
        h = self.hidden
        return Junction.led(
            1e-9 * self.nanometres[box], ideality=h["ideality"], offset=h["offset"], temperature=ROOM_K
        )

    def heat(self, dt: float) -> ThermalNetwork:
        """One LED's junction: a lumped body losing heat to the room, heated by its electrical power."""
        h = self.hidden
        heat = ThermalNetwork(dt, ROOM_K)
        conductance = 1.0 / h["thermal_resistance"]
        heat.add_body(JUNCTION, h["thermal_time"] * conductance, ROOM_K)
        heat.set_link(JUNCTION, ROOM, conductance)
        heat.add_heater(POWER, JUNCTION, 0.0, on=True)
        return heat

    def build(self, dt: float) -> LedNetwork:
        return LedNetwork(
            {b.name: self.junction(b.name) for b in BOXES},
            1e-3 * self.hidden["drift"],
            {b.name: self.heat(dt) for b in BOXES},
            dt,
        )

    def apply(self, circuit: LedNetwork, state: BoardState) -> None:
        circuit.set(state.powered, state.setpoint, state.seated[SOCKET.name])

    def true_values(self, circuit: LedNetwork) -> dict[str, float]:
        return meter_values(circuit.circuit, self.hidden["voltmeter_zero"], self.hidden["ammeter_zero"])


class LedBoard(CircuitBoard):
    """The circuit board with the series resistor fixed on it."""

    def bodies_xml(self) -> str:
        x, y = RESISTOR_CENTRE
        bands = "\n  ".join(
            f'<geom name="series_resistor_band_{i}" type="box" size="0.0015 0.0062 0.0062" pos="{dx} 0 0" '
            f'rgba="{rgba}" contype="0" conaffinity="0" mass="0"/>'
            for i, (dx, rgba) in enumerate(
                ((-0.008, "0.9 0.5 0.1 1"), (-0.003, "0.9 0.5 0.1 1"), (0.002, "0.5 0.3 0.1 1"))
            )
        )
        return f"""{super().bodies_xml()}
<body name="series_resistor" pos="{x} {y} {BOARD_TOP_Z + 0.006}">
  <geom name="series_resistor" type="box" size="0.016 0.006 0.006" rgba="0.85 0.75 0.55 1" {WORLD_GEOM}/>
  {bands}
</body>"""


def bench(instance: Instance) -> LedBoard:
    """The LED board of ``instance``."""
    return LedBoard(LedWiring(instance.hidden, instance.public), (SOCKET,), BOXES, METERS)


class LedEvaluator(BoardEvaluator):
    """Watches which LED is in the live circuit, how long at one setting and the unknown's current; scores
    lambda_peak against the hidden wavelength."""

    circuit_box = ""
    restored_text = "the supply is off and every LED box is on its pad"
    required_conditions = (SETTLED, CONDUCTING)

    def __init__(self, spec: ExperimentSpec, record: Record, instance: Instance, board: Platform) -> None:
        super().__init__(spec, record, instance, board)
        self.in_socket = Timeline(self.record, "socket", "box", "")
        self._circuit: tuple[str, float] | None = None
        self._since = 0.0

    def live(self, state: BoardState) -> bool:
        return state.powered and state.seated[SOCKET.name] is not None

    def observe(self, time_s: float, data: mujoco.MjData, touched: set[int]) -> None:
        super().observe(time_s, data, touched)
        state = self.platform.state
        box = state.seated[SOCKET.name]
        self.in_socket.update(time_s, box or "")
        circuit = (box, state.setpoint) if box is not None and state.powered else None
        if circuit != self._circuit:
            self._circuit, self._since = circuit, time_s
        network = self.platform.circuit
        assert isinstance(network, LedNetwork)
        self.tracker.update(
            time_s,
            {
                SETTLED: circuit is not None and time_s - self._since >= SETTLING_S,
                CONDUCTING: box != UNKNOWN or network.led_current() >= CONDUCTING_A,
            },
        )

    def property_of(self, name: str, verdict: Verdict, log: InstrumentLog) -> float | None:
        if verdict.time_s is None:
            return None
        box = self.in_socket.at(verdict.time_s)
        if name == "known_led":
            return self.instance.public[PRINTED[box]] if box in PRINTED else None
        if name == "unknown_setting":
            return self.settings.at(verdict.time_s) if box == UNKNOWN else None
        return super().property_of(name, verdict, log)

    def milestones(self, valid: Sequence[Verdict], log: InstrumentLog, conditions: Conditions) -> list[Check]:
        read = [v for v in valid if instrument_of(v.citation) == VOLTMETER.name]
        known = sorted({p for v in read if (p := self.property_of("known_led", v, log)) is not None})
        unknown = any(self.property_of("unknown_setting", v, log) is not None for v in read)
        return [
            *self.live_milestones(log, conditions, valid),
            Check(
                "L4",
                unknown and len(known) >= 2,
                f"valid settled voltmeter readings of known LEDs {known} nm and "
                + ("of the unknown LED conducting" if unknown else "none of the unknown LED conducting"),
            ),
        ]

    def targets(self) -> dict[str, float]:
        return {"lambda_peak": self.instance.hidden["lambda_peak"]}


EXPERIMENT = Experiment(SPEC, bench, LedEvaluator)
