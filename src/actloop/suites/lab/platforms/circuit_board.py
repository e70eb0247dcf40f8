"""The circuit board: sockets that component boxes are set into, a DC supply with a rocker power switch
and setpoint keys, and meters with digital displays, wired by an experiment into a circuit.

Everything is worked from above. A component box is a free block with two contacts on its underside; it is
in a socket (and its contacts closed) while it rests inside the socket's walls, level and at the floor. The
supply's rocker turns on a hinge with a snap spring: pressed past its centre it flips to the other end, and
the supply is on while its front end (marked I) is down. Its UP and DOWN keys are sprung slide joints: each
press past the threshold steps the setpoint once. The yellow REC key beside them works the board's data
logger: each press starts or stops its recording of every meter, LOGGER_HZ rows a second. The meters'
LCDs lie face up on the board, text upright for a reader standing in front.

An experiment supplies a :class:`Wiring`: the circuit (modified nodal analysis, :mod:`..physics.circuits`),
how the board's mechanical state sets its switches and sources each physics step, and each meter's true
value.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

import mujoco
import numpy as np

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec, LoggerSpec
from actloop.suites.lab.physics.circuits import GROUND, Circuit
from actloop.suites.lab.platforms.base import NUMBER_WORDS, ReadingSite, published
from actloop.suites.lab.platforms.display import DisplayFace, FacedPlatform
from actloop.suites.lab.rig import DT
from actloop.suites.lab.spec import Parameter, Part, choice

BOARD_CENTRE = (0.07, 0.0)
BOARD_HALF = (0.2, 0.15, 0.006)
BOARD_TOP_Z = TABLE_TOP_Z + 2 * BOARD_HALF[2]
BOX_HALF = (0.016, 0.016, 0.022)
"""A component box: 32 mm square, 44 mm tall."""
BOX_MASS = 0.06
SOCKET_CLEARANCE = 0.003
SOCKET_WALL = (0.004, 0.010)
"""Thickness and height of a socket's walls."""
SEAT_TOLERANCE_M = (SOCKET_CLEARANCE + 0.001, 0.0015)
"""A box is seated within this of its socket's centre (horizontally) and of the floor (vertically)."""
SEAT_TILT_RAD = 0.08
SEAT_Z = BOARD_TOP_Z
"""Where a seated box's underside rests: on the board inside the socket's walls."""
SUPPLY_CENTRE = (0.21, -0.04)
SUPPLY_HALF = (0.05, 0.07, 0.02)
SUPPLY_TOP_Z = BOARD_TOP_Z + 2 * SUPPLY_HALF[2]
ROCKER = (0.19, -0.07)
"""The rocker's pivot on the supply's top (x, y); it rocks about x."""
ROCKER_HALF = (0.012, 0.025, 0.003)
ROCKER_PIVOT_Z = SUPPLY_TOP_Z + 0.006
ROCKER_RANGE_RAD = 0.25
ROCKER_SNAP_NM = 0.02
"""The snap spring's torque towards the end the rocker is nearer: a press must overcome it."""
KEYS = {"up": (0.235, -0.085), "down": (0.235, -0.04), "rec": (0.235, 0.005)}
KEY_COLOURS = {"up": "0.2 0.45 0.75 1", "down": "0.75 0.45 0.2 1", "rec": "0.85 0.75 0.15 1"}
KEY_STEPS = {"up": 1, "down": -1}
"""How a press of each setpoint key moves the supply's setting (REC toggles the logger instead)."""
LOGGER = "logger"
LOGGER_HZ = 4.0
KEY_RADIUS = 0.008
KEY_HALF_HEIGHT = 0.005
KEY_TRAVEL_M = 0.004
KEY_PRESSED_M = 0.0025
KEY_RELEASED_M = 0.001
KEY_DEBOUNCE_S = 0.1
"""A key counts a new press only after it has stayed up this long since the last."""
KEY_STIFFNESS = 400.0
"""N/m: about 1.6 N at full travel."""
METER_HALF = (0.047, 0.03, 0.008)
METER_TOP_Z = BOARD_TOP_Z + 2 * METER_HALF[2]
DISPLAY_SIZE_M = (0.07, 0.02)
"""An LCD window's width and height."""


LCD_LIFT_M = 0.0011
"""The LCD face's centre above its meter case's top."""
LCD_SURFACE_M = 0.0021
"""The LCD window's surface above its meter case's top (LCD_LIFT_M and the face's half depth)."""


@dataclass(frozen=True)
class ComponentBox:
    """A component box: its name, where it stands on the table at the start (its centre, x and y), its colour
    and coloured marks on its lid (x, y from the lid's centre, rgba)."""

    name: str
    home: tuple[float, float]
    rgba: str = "0.12 0.12 0.14 1"
    marks: tuple[tuple[float, float, str], ...] = ()


@dataclass(frozen=True)
class Socket:
    """A socket on the board (its centre, x and y) and where its contacts lie on its floor (x, y from its
    centre; a contact at the side of an edge runs along that edge)."""

    name: str
    centre: tuple[float, float]
    contacts: tuple[tuple[float, float], ...] = ((-0.009, 0.0), (0.009, 0.0))


@dataclass(frozen=True)
class Meter:
    """A meter lying on the board: its instrument (a digital display) and the centre of its LCD window."""

    spec: InstrumentSpec
    centre: tuple[float, float]
    sign: bool = False

    @property
    def face(self) -> DisplayFace:
        return DisplayFace.of(f"{self.spec.name}_lcd", self.spec, *DISPLAY_SIZE_M, sign=self.sign)


@dataclass(frozen=True)
class BoardState:
    """The board's mechanical state as the circuit sees it: the supply on or off, its setpoint, and the
    box seated in each socket (None for an empty socket)."""

    powered: bool
    setpoint: float
    seated: dict[str, str | None]


VOLTMETER = InstrumentSpec(
    "voltmeter", "V", DigitalDisplay(5, 3, min_digit_px=10.0), refresh_hz=4.0, noise_sd=0.0008
)
AMMETER = InstrumentSpec(
    "ammeter", "mA", DigitalDisplay(6, 3, min_digit_px=10.0), refresh_hz=4.0, noise_sd=0.0004
)
METER_SPOTS = ((0.0, 0.085), (0.115, 0.085))
"""Where the board's meters lie: the left and the right LCD window's centre."""
SOCKET = Socket("socket", (0.0, -0.05))
BOX_SPOTS = ((-0.07, -0.19), (-0.12, -0.19), (-0.17, -0.19))
"""The pads beside the board where component boxes stand at the start, nearest the socket first."""
VOLTMETER_OHMS = 10e6
"""Every board voltmeter's input resistance."""
VOLTMETER_RESISTANCE = Parameter(
    "voltmeter_resistance", "the voltmeter's input resistance", "ohm", choice(VOLTMETER_OHMS), public=True
)
"""The public parameter that states it on a card."""
SUPPLY_VOLTS = tuple(float(v) for v in range(11))
"""The supply's standard settings, volts: 0 at the start, each UP press one more."""


def supply_part(setpoints: Sequence[float] = SUPPLY_VOLTS) -> Part:
    """The DC supply with its rocker and setpoint keys, as the card describes it."""
    low, high, step = setpoints[0], setpoints[-1], setpoints[1] - setpoints[0]
    return Part(
        "supply",
        f"a DC supply from {low:g} to {high:g} V in steps of {step:g} V (starting at {low:g} V): its red "
        "rocker switches it on (front end, marked I, pressed down) or off (back end pressed down); the blue "
        "UP key raises and the orange DOWN key lowers its setting by one step per press",
        restore="off",
    )


def logger_part(meters: str) -> Part:
    """The board's data logger recording ``meters`` (in words), worked by the REC key."""
    rate = NUMBER_WORDS[round(LOGGER_HZ)] if float(LOGGER_HZ).is_integer() else f"{LOGGER_HZ:g}"
    return Part(
        LOGGER,
        f"a data logger under the board, worked by the yellow REC key on the supply: each press starts "
        f"or stops its recording of {meters}, {rate} rows a second; export its rows to a CSV file",
        restore="any",
    )


def board_parts(box_text: str = "a box") -> tuple[Part, ...]:
    """The board and its socket, which every circuit-board experiment has (``box_text`` names what the
    socket takes)."""
    return (
        Part("board", "carries the socket, the supply and the meters", restore="fixed"),
        Part(
            "socket",
            f"a walled seat on the board whose two contacts join {box_text}'s contacts to the circuit",
            restore="fixed",
        ),
    )


def meter_part(meter: Meter, role: str, side: str) -> Part:
    """A meter lying face up on the board: ``role`` says where it sits in the circuit."""
    spec = meter.spec
    decimals = spec.display.decimals if isinstance(spec.display, DigitalDisplay) else 0
    resolution = f"{10.0**-decimals:.{decimals}f}"
    quantity = {"V": "volts", "mA": "milliamperes", "A": "amperes", "kohm": "kilohms"}[spec.unit]
    return Part(
        spec.name,
        f"a digital {spec.name} {role}, reading {quantity} to {resolution} {spec.unit} on an LCD lying "
        f"face up on the board ({side})",
        restore="fixed",
    )


class Network(Protocol):
    """What a wiring's circuit model must do for the board: advance one physics step at a time (a
    :class:`~actloop.suites.lab.physics.circuits.Circuit`, or a model of its own such as a rectifier's)."""

    def step(self, n: int = 1) -> None:
        """Advance ``n`` steps."""


N = TypeVar("N", bound=Network)


def fixture_xml(name: str, centre: tuple[float, float], half: str, rgba: str) -> str:
    """A part fixed on the board (a resistor, a diode bridge, a battery holder): a block of half sizes
    ``half`` ("x y z") standing on the board at ``centre``, with a white stripe on top."""
    hz = float(half.split()[2])
    return f"""
<body name="{name}" pos="{centre[0]} {centre[1]} {BOARD_TOP_Z + hz}">
  <geom name="{name}" type="box" size="{half}" rgba="{rgba}" {WORLD_GEOM}/>
  <geom name="{name}_mark" type="box" size="0.008 0.002 0.0003" pos="0 0 {hz}" rgba="0.95 0.95 0.95 1"
        contype="0" conaffinity="0" mass="0"/>
</body>"""


def add_supply(circuit: Circuit, resistor: str, ohms: float, into: str) -> None:
    """The board's supply end of a circuit (nodes ``s``, ``p``, ``q`` and ``into`` declared): the supply's
    source (s), its power switch (s-p), a series ``resistor`` of ``ohms`` (p-q) and the ammeter (q-into)."""
    circuit.add_voltage_source("supply", "s", GROUND, 0.0)
    circuit.add_switch("power", "s", "p")
    circuit.add_resistor(resistor, "p", "q", ohms)
    circuit.add_ammeter("ammeter", "q", into)


def add_voltmeter(circuit: Circuit, node: str) -> None:
    """The board's voltmeter from ``node`` to ground, with its input resistance."""
    circuit.add_resistor("voltmeter_input", node, GROUND, VOLTMETER_OHMS)
    circuit.add_voltmeter("voltmeter", node, GROUND)


def drive_supply(circuit: Circuit, state: BoardState) -> None:
    """Set the supply's source to its setting and its power switch as the rocker stands."""
    circuit.set_source("supply", volts=state.setpoint)
    circuit.set_switch("power", state.powered)


def meter_values(circuit: Circuit, voltmeter_zero: float, ammeter_zero: float) -> dict[str, float]:
    """What the board's voltmeter (V) and milliammeter (mA) show of ``circuit``, with their zero errors."""
    return {
        "voltmeter": circuit.reading("voltmeter") + voltmeter_zero,
        "ammeter": 1000.0 * circuit.reading("ammeter") + ammeter_zero,
    }


class Wiring(Protocol[N]):
    """An experiment's circuit on the board, modelled by a network of type ``N`` (usually a
    :class:`~actloop.suites.lab.physics.circuits.Circuit`)."""

    def build(self, dt: float) -> N:
        """The circuit, stepped every ``dt`` seconds."""

    def apply(self, circuit: N, state: BoardState) -> None:
        """Set the circuit's switches and sources from the board's state."""

    def true_values(self, circuit: N) -> dict[str, float]:
        """The true value of every meter, by instrument name, in its unit."""


class CircuitBoard(FacedPlatform):
    """The board of one instance (see the module docstring): ``setpoints`` are the supply's settings in
    order (the first at the start), ``dt`` the physics step."""

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {LOGGER: ("key_rec",)}

    def __init__(
        self,
        wiring: Wiring[Any],
        sockets: Sequence[Socket],
        boxes: Sequence[ComponentBox],
        meters: Sequence[Meter],
        setpoints: Sequence[float] = SUPPLY_VOLTS,
        dt: float = DT,
    ) -> None:
        self.wiring = wiring
        self.sockets = tuple(sockets)
        self.boxes = tuple(boxes)
        self.meters = tuple(meters)
        self.setpoints = tuple(setpoints)
        self.circuit = wiring.build(dt)
        self.setting = 0
        self.powered = False
        self.seated: dict[str, str | None] = {s.name: None for s in self.sockets}
        self.dt = dt
        self.logging = False
        self._pressed = dict.fromkeys(KEYS, False)
        self._up_for = dict.fromkeys(KEYS, KEY_DEBOUNCE_S)
        self._ids: dict[str, int] = {}

    @property
    def setpoint(self) -> float:
        return self.setpoints[self.setting]

    @property
    def state(self) -> BoardState:
        return BoardState(self.powered, self.setpoint, dict(self.seated))

    # --- scene ---
    def faces(self) -> Iterable[DisplayFace]:
        return (m.face for m in self.meters)

    def bodies_xml(self) -> str:
        bx, by = BOARD_CENTRE
        hx, hy, hz = BOARD_HALF
        parts = [
            f"""
<body name="board" pos="{bx} {by} {TABLE_TOP_Z + hz}">
  <geom name="board_plate" type="box" size="{hx} {hy} {hz}" rgba="0.16 0.35 0.22 1" {WORLD_GEOM}/>
</body>""",
            self._supply_xml(),
            *(self._socket_xml(s) for s in self.sockets),
            *(self._meter_xml(m) for m in self.meters),
            *(self._box_xml(b) for b in self.boxes),
        ]
        return "\n".join(parts)

    def _supply_xml(self) -> str:
        sx, sy = SUPPLY_CENTRE
        hx, hy, hz = SUPPLY_HALF
        rx, ry = ROCKER
        keys = "\n".join(
            f"""
<body name="key_{name}" pos="{x} {y} {SUPPLY_TOP_Z + KEY_HALF_HEIGHT + 0.001}">
  <joint name="key_{name}" type="slide" axis="0 0 -1" range="0 {KEY_TRAVEL_M}" stiffness="{KEY_STIFFNESS}"
         springref="0" damping="2" armature="0.01"/>
  <geom name="key_{name}" type="cylinder" size="{KEY_RADIUS} {KEY_HALF_HEIGHT}" mass="0.005"
        rgba="{KEY_COLOURS[name]}" {WORLD_GEOM}/>
  <geom name="key_{name}_mark" type="box" size="0.002 {0.004 if name == "up" else 0.0012} 0.0003"
        pos="0 0 {KEY_HALF_HEIGHT}" rgba="1 1 1 1" contype="0" conaffinity="0" mass="0"/>
</body>"""
            for name, (x, y) in KEYS.items()
        )
        return f"""
<body name="supply" pos="{sx} {sy} {BOARD_TOP_Z + hz}">
  <geom name="supply_case" type="box" size="{hx} {hy} {hz}" rgba="0.78 0.78 0.74 1" {WORLD_GEOM}/>
</body>
<body name="rocker" pos="{rx} {ry} {ROCKER_PIVOT_Z}">
  <joint name="rocker" type="hinge" axis="1 0 0" range="{-ROCKER_RANGE_RAD} {ROCKER_RANGE_RAD}"
         damping="0.002" armature="0.0005"/>
  <geom name="rocker_paddle" type="box" size="{ROCKER_HALF[0]} {ROCKER_HALF[1]} {ROCKER_HALF[2]}" mass="0.01"
        rgba="0.75 0.1 0.1 1" {WORLD_GEOM}/>
  <geom name="rocker_on_mark" type="box" size="0.0015 0.005 0.0003"
        pos="0 {-0.6 * ROCKER_HALF[1]} {ROCKER_HALF[2]}" rgba="1 1 1 1" contype="0" conaffinity="0" mass="0"/>
</body>
{keys}"""

    @staticmethod
    def _socket_xml(socket: Socket) -> str:
        x, y = socket.centre
        inner = BOX_HALF[0] + SOCKET_CLEARANCE
        t, h = SOCKET_WALL
        walls = []
        for i, (dx, dy, sx, sy) in enumerate(
            ((inner + t, 0, t, inner + 2 * t), (-inner - t, 0, t, inner + 2 * t),
             (0, inner + t, inner, t), (0, -inner - t, inner, t))
        ):  # fmt: skip
            walls.append(
                f'<geom name="{socket.name}_wall_{i}" type="box" size="{sx} {sy} {h / 2}" '
                f'pos="{dx} {dy} {h / 2}" rgba="0.1 0.1 0.1 1" {WORLD_GEOM}/>'
            )
        contacts = "\n  ".join(
            f'<geom name="{socket.name}_contact_{i}" type="box" '
            f'size="{"0.004 0.01" if abs(cx) >= abs(cy) else "0.01 0.004"} 0.0004" pos="{cx} {cy} 0.0004" '
            f'rgba="0.85 0.7 0.3 1" contype="0" conaffinity="0" mass="0"/>'
            for i, (cx, cy) in enumerate(socket.contacts)
        )
        return f"""
<body name="{socket.name}" pos="{x} {y} {BOARD_TOP_Z}">
  {" ".join(walls)}
  {contacts}
</body>"""

    @staticmethod
    def _meter_xml(meter: Meter) -> str:
        x, y = meter.centre
        hx, hy, hz = METER_HALF
        face = meter.face.geom_xml(f"0 0 {hz + LCD_LIFT_M}", euler=f"{-math.pi / 2!r} 0 0")
        return f"""
<body name="{meter.spec.name}_meter" pos="{x} {y} {BOARD_TOP_Z + hz}">
  <geom name="{meter.spec.name}_case" type="box" size="{hx} {hy} {hz}" rgba="0.22 0.22 0.25 1" {WORLD_GEOM}/>
  {face}
</body>"""

    @staticmethod
    def _box_xml(box: ComponentBox) -> str:
        x, y = box.home
        hx, hy, hz = BOX_HALF
        marks = "".join(
            f'\n  <geom name="{box.name}_mark_{i}" type="box" size="0.004 0.004 0.0006" pos="{mx} {my} {hz}" '
            f'rgba="{rgba}" contype="0" conaffinity="0" mass="0"/>'
            for i, (mx, my, rgba) in enumerate(box.marks)
        )
        return f"""
<body name="{box.name}_pad" pos="{x} {y} {TABLE_TOP_Z + 0.0002}">
  <geom name="{box.name}_pad" type="box" size="{hx + 0.006} {hy + 0.006} 0.0002" rgba="0.9 0.9 0.85 1"
        contype="0" conaffinity="0" mass="0"/>
</body>
<body name="{box.name}" pos="{x} {y} {TABLE_TOP_Z + hz + 0.0005}">
  <freejoint name="{box.name}_free"/>
  <geom name="{box.name}" type="box" size="{hx} {hy} {hz}" mass="{BOX_MASS}" rgba="{box.rgba}"
        friction="1 0.005 0.0001" {WORLD_GEOM}/>
  <geom name="{box.name}_lid" type="box" size="{hx * 0.7} {hy * 0.7} 0.0004" pos="0 0 {hz}"
        rgba="0.9 0.8 0.2 1" contype="0" conaffinity="0" mass="0"/>{marks}
</body>"""

    def sections_xml(self) -> str:
        pairs = ["rocker", *(f"key_{k}" for k in KEYS)]
        excluded = "".join(f'<exclude body1="supply" body2="{body}"/>' for body in pairs)
        return f"<contact>{excluded}</contact>"

    # --- mechanics and circuit ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        rocker = model.joint("rocker")
        self._ids = {
            "rocker_q": int(rocker.qposadr[0]),
            "rocker_v": int(rocker.dofadr[0]),
            **{f"key_{k}": int(model.joint(f"key_{k}").qposadr[0]) for k in KEYS},
            **{b.name: int(model.body(b.name).id) for b in self.boxes},
        }
        data.qpos[self._ids["rocker_q"]] = -ROCKER_RANGE_RAD  # off: the back end down
        self.after_step(model, data)

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        angle = float(data.qpos[self._ids["rocker_q"]])
        data.qfrc_applied[self._ids["rocker_v"]] = ROCKER_SNAP_NM if angle > 0 else -ROCKER_SNAP_NM
        self.powered = angle > 0
        for key in KEYS:
            depth = float(data.qpos[self._ids[f"key_{key}"]])
            self._up_for[key] = self._up_for[key] + self.dt if depth < KEY_RELEASED_M else 0.0
            if not self._pressed[key] and depth > KEY_PRESSED_M:
                self._pressed[key] = True
                if key in KEY_STEPS:
                    self.setting = min(max(self.setting + KEY_STEPS[key], 0), len(self.setpoints) - 1)
                else:
                    self.logging = not self.logging
            elif self._pressed[key] and self._up_for[key] >= KEY_DEBOUNCE_S:
                self._pressed[key] = False
        for socket in self.sockets:
            self.seated[socket.name] = next(
                (b.name for b in self.boxes if self._in_socket(data, b.name, socket)), None
            )
        self.wiring.apply(self.circuit, self.state)
        self.circuit.step()

    def _in_socket(self, data: mujoco.MjData, box: str, socket: Socket) -> bool:
        body = data.body(box)
        x, y, z = (float(v) for v in body.xpos)
        level = float(body.xmat[8]) >= math.cos(SEAT_TILT_RAD)
        across, down = SEAT_TOLERANCE_M
        return (
            level
            and abs(x - socket.centre[0]) <= across
            and abs(y - socket.centre[1]) <= across
            and abs(z - BOX_HALF[2] - SEAT_Z) <= down
        )

    def at_home(self, data: mujoco.MjData, box: ComponentBox, tolerance_m: float) -> bool:
        """Whether ``box`` stands upright on its pad, within ``tolerance_m`` of its starting place."""
        x, y, z = (float(v) for v in data.body(box.name).xpos)
        upright = float(data.body(box.name).xmat[8]) >= math.cos(SEAT_TILT_RAD)
        return (
            upright
            and math.hypot(x - box.home[0], y - box.home[1]) <= tolerance_m
            and abs(z - TABLE_TOP_Z - BOX_HALF[2]) <= 0.002
        )

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The socket's floor, each box's pad (its home), the rocker's pivot, each key's top and each LCD
        window's surface centre; and the sizes a hand needs (a box, an LCD window, the rocker's half
        length)."""
        key_top = SUPPLY_TOP_Z + 2 * KEY_HALF_HEIGHT + 0.001
        positions = {
            **{s.name: [*s.centre, SEAT_Z] for s in self.sockets},
            **{f"{b.name}_pad": [*b.home, TABLE_TOP_Z] for b in self.boxes},
            "rocker": [*ROCKER, ROCKER_PIVOT_Z],
            **{f"key_{name}": [*xy, key_top] for name, xy in KEYS.items()},
            **{f"{m.spec.name}_lcd": [*m.centre, METER_TOP_Z + LCD_SURFACE_M] for m in self.meters},
            "box_size": [2 * h for h in BOX_HALF],
            "lcd_window_size": list(DISPLAY_SIZE_M),
            "rocker_half_length": [ROCKER_HALF[1]],
        }
        return published(positions)

    # --- instruments ---
    def instruments(self) -> list[InstrumentSpec]:
        return [m.spec for m in self.meters]

    def loggers(self) -> list[LoggerSpec]:
        return [LoggerSpec(LOGGER, tuple(m.spec.name for m in self.meters), LOGGER_HZ)]

    def recording(self) -> set[str]:
        return {LOGGER} if self.logging else set()

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        return self.wiring.true_values(self.circuit)

    def reading_sites(self, data: mujoco.MjData) -> dict[str, ReadingSite]:
        up = np.array([0.0, 1.0, 0.0])
        return {
            m.spec.name: m.face.reading_site(np.array([*m.centre, METER_TOP_Z + LCD_SURFACE_M]), up)
            for m in self.meters
        }
