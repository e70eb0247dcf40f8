"""The torsion turntable (#5, #13): a horizontal turntable on a vertical torsion wire, a handle on its rim
to twist it by, a flag on its rim that passes a photogate at rest, loads that stand beside it (set on the
turntable, they turn with it), and a meter box with the photogate's period on an LCD, a logger and two
keys: LOG starts and stops the logger, BRAKE locks the turntable at rest (and frees it again).

The photogate times the turntable's swing: the flag crosses the beam twice a period, and each crossing
after the second shows the time since the crossing two before it (one full period), timed between physics
steps by interpolating the angle to the beam. A period counts as free when nothing touched the turntable or
what rides on it, the brake stayed off and the load stayed the same throughout it.

While the robot touches neither the turntable nor what rides on it, the turntable turns as
:mod:`..physics.torsion` steps it exactly, with the moment of inertia of the turntable and its riders (each
its own plus m d², d where it came to rest), written into its hinge, and the riders turn rigidly with it;
while the robot touches them, the physics engine moves them (the hinge's stiffness and damping are the
wire's).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

import mujoco

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec, LoggerSpec
from actloop.suites.lab.physics.linear import sin
from actloop.suites.lab.physics.torsion import TorsionWire, about_axis
from actloop.suites.lab.platforms.base import published
from actloop.suites.lab.platforms.display import (
    DisplayFace,
    FacedPlatform,
    front_windows,
)
from actloop.suites.lab.platforms.keys import PressEdge, key_top, key_xml
from actloop.suites.lab.rig import DT
from actloop.suites.lab.spec import Part
from actloop.suites.lab.watch import ContactWatch, carried_by

CENTRE = (0.0, 0.0)
TOP_Z = TABLE_TOP_Z + 0.08
"""The turntable's top surface."""
TABLE_RADIUS = 0.10
PLATE_HALF = 0.006
HANDLE = (0.0, -0.085)
"""The handle on the rim (from the centre), towards the robot."""
HANDLE_RADIUS = 0.006
HANDLE_HEIGHT = 0.03
FLAG_X = TABLE_RADIUS + 0.004
"""The flag sticks out of the rim at +x; the photogate's beam crosses its path here."""
METER_BOX = (0.30, 0.10)
METER_HALF = (0.075, 0.03, 0.08)
LOG_KEY = (METER_BOX[0] - 0.035, METER_BOX[1])
BRAKE_KEY = (METER_BOX[0] + 0.035, METER_BOX[1])
LOG_HZ = 10.0
KNOB_RADIUS = 0.01
KNOB_HEIGHT = 0.03
PIN_RADIUS = 0.0036
PIN_HEIGHT = 0.008
"""The centring pin (when fitted): a round-topped, slippery pin of 7.2 mm, 8 mm tall: a bar's 7.4 mm hole
let go over it within a few millimetres slides down on to it."""
FOOT_RADIUS = 0.04
"""A footed load's three feet stand on this circle round its axis."""
ON_AXIS_M = 0.001
"""A bar's hole is on the pin when its centre is this close to the axis."""
LOAD_PLACES = {"disc": (-0.22, -0.22), "body": (0.20, -0.18), "bar": (0.20, -0.18)}
"""Where each load stands on the bench at the start (its centre)."""
PERIOD = InstrumentSpec(
    "period", "s", DigitalDisplay(digits=5, decimals=4, min_digit_px=12.0), refresh_hz=240.0
)
LOGGER = "logger"
FACE = DisplayFace.of("period_lcd", PERIOD, 0.075, 0.022)
FACE_CENTRES = {FACE.texture: (METER_BOX[0] - 0.01, METER_BOX[1] - METER_HALF[1] - 0.001, TABLE_TOP_Z + 0.11)}
GRIP_CONTACT = 'friction="1.5 0.02 0.002" condim="4" priority="2"'


class Rider(Protocol):
    """What can ride on the turntable: a body named ``name`` of ``mass`` (kg), moment of inertia ``inertia``
    (kg m²) about the vertical through its centre of mass, which sits at ``com`` in its own frame."""

    @property
    def name(self) -> str: ...

    @property
    def mass(self) -> float: ...

    @property
    def inertia(self) -> float: ...

    @property
    def com(self) -> tuple[float, float, float]: ...

    @property
    def height(self) -> float: ...

    @property
    def grip_height(self) -> float:
        """The top of what the gripper takes it by, above its bottom."""
        ...

    @property
    def origin_height(self) -> float:
        """Its origin's height above its bottom."""
        ...

    def xml(self) -> str: ...


@dataclass(frozen=True)
class Load:
    """A load that can ride on the turntable: a cylinder of ``radius`` and ``height`` (m), ``mass`` (kg)
    and moment of inertia ``inertia`` (kg m²) about its axis, with a knob on top to carry it by, standing on
    three ``feet`` (m tall; none at 0) that clear a centring pin."""

    name: str
    radius: float
    height: float
    mass: float
    inertia: float
    rgba: str
    feet: float = 0.0

    com: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def grip_height(self) -> float:
        return self.feet + self.height + KNOB_HEIGHT

    @property
    def origin_height(self) -> float:
        return self.feet + self.height / 2

    def xml(self) -> str:
        x, y = LOAD_PLACES[self.name]
        half = self.height / 2
        across = self.inertia / 2 + self.mass * self.height**2 / 12
        feet = "".join(
            f'\n  <geom name="{self.name}_foot_{k}" type="cylinder" size="0.006 {self.feet / 2!r}" '
            f'pos="{FOOT_RADIUS * math.cos(a):.5f} {FOOT_RADIUS * math.sin(a):.5f} '
            f'{-half - self.feet / 2!r}" rgba="0.15 0.15 0.15 1" {WORLD_GEOM}/>'
            for k, a in enumerate((math.pi / 2, 7 * math.pi / 6, 11 * math.pi / 6))
            if self.feet > 0
        )
        return f"""
<body name="{self.name}" pos="{x} {y} {TABLE_TOP_Z + self.origin_height + 0.0005:.5f}">
  <freejoint name="{self.name}_free"/>
  <inertial pos="0 0 0" mass="{self.mass!r}" diaginertia="{across!r} {across!r} {self.inertia!r}"/>
  <geom name="{self.name}" type="cylinder" size="{self.radius} {half}" rgba="{self.rgba}"
        friction="1 0.005 0.0001" {WORLD_GEOM}/>
  <geom name="{self.name}_knob" type="cylinder" size="{KNOB_RADIUS} {KNOB_HEIGHT / 2}"
        pos="0 0 {half + KNOB_HEIGHT / 2}" rgba="0.15 0.15 0.15 1" {GRIP_CONTACT} {WORLD_GEOM}/>{feet}
</body>"""


@dataclass(frozen=True)
class Bar:
    """A flat bar of ``length`` lying along x with square holes at ``holes`` (m from its left end), of
    ``mass`` (kg) and moment of inertia ``inertia`` (kg m²) about the vertical through its centre of mass,
    which lies ``com_x`` (m) from its left end."""

    name: str
    length: float
    holes: tuple[float, ...]
    mass: float
    inertia: float
    com_x: float
    knob: float = 0.0975
    """Where its knob stands on top (m from its left end), between two holes."""
    width: float = 0.032
    height: float = 0.01
    hole: float = 0.0074

    @property
    def com(self) -> tuple[float, float, float]:
        return (self.com_x - self.length / 2, 0.0, 0.0)

    @property
    def grip_height(self) -> float:
        return self.height + KNOB_HEIGHT

    @property
    def origin_height(self) -> float:
        return self.height / 2

    def xml(self) -> str:
        x, y = LOAD_PLACES[self.name]
        half_l, half_h = self.length / 2, self.height / 2
        rail = (self.width - self.hole) / 4
        geoms = [
            f'  <geom name="{self.name}_{side}" type="box" size="{half_l} {rail!r} {half_h}" '
            f'pos="0 {sign * (self.hole / 2 + rail)!r} 0" rgba="0.7 0.72 0.75 1" '
            f"{GRIP_CONTACT} {WORLD_GEOM}/>"
            for side, sign in (("front", -1), ("back", 1))
        ]
        edges = [0.0, *(e for h in self.holes for e in (h - self.hole / 2, h + self.hole / 2)), self.length]
        for k in range(0, len(edges), 2):
            start, end = edges[k], edges[k + 1]
            geoms.append(
                f'  <geom name="{self.name}_web_{k // 2}" type="box" size="{(end - start) / 2!r} '
                f'{self.hole / 2} {half_h}" pos="{(start + end) / 2 - half_l!r} 0 0" rgba="0.7 0.72 0.75 1" '
                f"{GRIP_CONTACT} {WORLD_GEOM}/>"
            )
        geoms.append(
            f'  <geom name="{self.name}_knob" type="cylinder" size="{KNOB_RADIUS} {KNOB_HEIGHT / 2}" '
            f'pos="{self.knob - half_l!r} 0 {half_h + KNOB_HEIGHT / 2}" rgba="0.15 0.15 0.15 1" '
            f"{GRIP_CONTACT} {WORLD_GEOM}/>"
        )
        cx = self.com_x - half_l
        across = self.mass * self.width**2 / 12
        body = "\n".join(geoms)
        return f"""
<body name="{self.name}" pos="{x} {y} {TABLE_TOP_Z + half_h + 0.0005:.5f}">
  <freejoint name="{self.name}_free"/>
  <inertial pos="{cx!r} 0 0" mass="{self.mass!r}" diaginertia="{across!r} {self.inertia!r} {self.inertia!r}"/>
{body}
</body>"""


def turntable_parts() -> tuple[Part, ...]:
    """The turntable's fixed parts and controls, as the card describes them (the loads are the
    experiment's)."""
    return (
        Part(
            "turntable",
            f"a horizontal turntable {2000 * TABLE_RADIUS:g} mm across on a vertical torsion wire; a load "
            "set on its centre mark turns with it",
            restore="any",
        ),
        Part("handle", "a peg on the turntable's rim, towards the robot, to twist it by", restore="any"),
        Part(
            "photogate",
            "a light gate at the turntable's rim: a flag on the rim crosses its beam at rest, twice a "
            "period; from the third crossing on, its LCD shows the time since the crossing two before (one "
            "period), in seconds",
            restore="fixed",
        ),
        Part(
            "log_key",
            f"a key on the meter box's top (left): starts and stops the logger, which records the "
            f"photogate's period {LOG_HZ:g} times a second",
            restore="any",
        ),
        Part(
            "brake_key",
            "a key on the meter box's top (right): locks the turntable at rest, or frees it",
            restore="any",
        ),
    )


def rotate(x: float, y: float, angle: float) -> tuple[float, float]:
    """(x, y) turned about the origin by ``angle`` (rad), with the pure-Python sine."""
    s, c = sin(angle), sin(angle + math.pi / 2)
    return c * x - s * y, s * x + c * y


def turned(v: tuple[float, float, float], q: tuple[float, float, float, float]) -> tuple[float, float, float]:
    """``v`` turned by the unit quaternion ``q`` (w, x, y, z): v + w t + q × t with t = 2 q × v."""
    w, a, b, c = q
    tx, ty, tz = 2 * (b * v[2] - c * v[1]), 2 * (c * v[0] - a * v[2]), 2 * (a * v[1] - b * v[0])
    return (
        v[0] + w * tx + (b * tz - c * ty),
        v[1] + w * ty + (c * tx - a * tz),
        v[2] + w * tz + (a * ty - b * tx),
    )


class Turntable(FacedPlatform):
    """The turntable of one instance: the wire's ``stiffness`` (N m/rad) and ``damping``, the turntable's
    own moment of inertia ``own_inertia`` (kg m²), and the ``loads`` beside it."""

    face_centres = FACE_CENTRES

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        "turntable": ("turntable", "turntable_mark", "flag"),
        "photogate": ("photogate", "photogate_inner", "photogate_outer", "meter_box", "period_lcd"),
        "log_key": ("key_log",),
        "brake_key": ("key_brake",),
    }

    def __init__(
        self, stiffness: float, damping: float, own_inertia: float, loads: Sequence[Rider], pin: bool = False
    ) -> None:
        self.wire = TorsionWire(stiffness, damping, DT)
        self.own_inertia = own_inertia
        self.loads = tuple(loads)
        self.pin = pin
        """Whether a centring pin stands on the turntable's centre (for a bar's holes)."""
        self.swing = [0.0, 0.0]
        """The turntable's angle (rad, anticlockwise seen from above) and rate while it turns freely."""
        self.braked = False
        self.logging = False
        self.shown_period = 0.0
        self.period_free = False
        """Whether the period shown was timed free (untouched, unbraked, its load unchanged)."""
        self.period_load: frozenset[str] = frozenset()
        """What rode on the turntable through the period shown."""
        self.period_holes: dict[str, float] = {}
        """Each bar riding through the period shown whose hole stood on the axis: that hole (m from its left
        end)."""
        self.riders: frozenset[str] = frozenset()
        self._riding: dict[str, tuple[float, float, float, tuple[float, float, float, float], float]] = {}
        """Each rider's pose when it came to ride: (angle then, x, y from the axis, its quaternion, its centre
        of mass's distance from the axis)."""
        self._crossings: list[tuple[float, bool]] = []
        """The last three crossings: (time, whether the turntable was free since the one before)."""
        self._free_since_crossing = False
        self._steps = 0
        self._log_key = PressEdge()
        self._brake_key = PressEdge()
        self._ids: dict[str, int] = {}

    # --- MJCF ---
    def bodies_xml(self) -> str:
        cx, cy = CENTRE
        z = TABLE_TOP_Z
        column_half = (TOP_Z - 2 * PLATE_HALF - z) / 2
        hx, hy = HANDLE
        mx, my = METER_BOX
        keys = "\n".join(
            key_xml(name, x, y, z + 2 * METER_HALF[2], rgba)
            for name, (x, y), rgba in (
                ("log", LOG_KEY, "0.2 0.6 0.3 1"),
                ("brake", BRAKE_KEY, "0.8 0.2 0.15 1"),
            )
        )
        loads = "\n".join(load.xml() for load in self.loads)
        across = self.own_inertia / 2
        gate_half = (TOP_Z - 2 * PLATE_HALF - 0.03 - z) / 2
        arms = "\n".join(
            f'  <geom name="photogate_{side}" type="box" size="0.003 0.008 0.012" '
            f'pos="{FLAG_X + dx:.4f} 0 {2 * gate_half + 0.012:.4f}" rgba="0.15 0.3 0.6 1" {WORLD_GEOM}/>'
            for side, dx in (("inner", -0.016), ("outer", 0.016))
        )
        return f"""
<body name="turntable_base" pos="{cx} {cy} {z}">
  <geom name="turntable_foot" type="cylinder" size="0.06 0.006" pos="0 0 0.006" rgba="0.25 0.25 0.28 1"
        {WORLD_GEOM}/>
  <geom name="turntable_column" type="cylinder" size="0.015 {column_half:.4f}" pos="0 0 {column_half:.4f}"
        rgba="0.6 0.6 0.62 1" {WORLD_GEOM}/>
  <geom name="photogate" type="box" size="0.02 0.008 {gate_half:.4f}" pos="{FLAG_X:.4f} 0 {gate_half:.4f}"
        rgba="0.15 0.3 0.6 1" {WORLD_GEOM}/>
{arms}
</body>
<body name="turntable" pos="{cx} {cy} {TOP_Z - PLATE_HALF}">
  <joint name="turntable" type="hinge" axis="0 0 1" stiffness="{self.wire.stiffness!r}"
         damping="{self.wire.damping!r}"/>
  <inertial pos="0 0 0" mass="0.8" diaginertia="{across!r} {across!r} {self.own_inertia!r}"/>
  <geom name="turntable" type="cylinder" size="{TABLE_RADIUS} {PLATE_HALF}" rgba="0.55 0.57 0.6 1"
        mass="0" friction="1 0.005 0.0001" {WORLD_GEOM}/>
  <geom name="turntable_mark" type="cylinder" size="0.004 0.0002" pos="0 0 {PLATE_HALF:.4f}"
        rgba="0.9 0.1 0.1 1" contype="0" conaffinity="0" mass="0"/>
  <geom name="handle" type="cylinder" size="{HANDLE_RADIUS} {HANDLE_HEIGHT / 2}"
        pos="{hx} {hy} {PLATE_HALF + HANDLE_HEIGHT / 2:.4f}" rgba="0.15 0.15 0.15 1" mass="0" {GRIP_CONTACT}
        {WORLD_GEOM}/>
{self._pin_xml()}
  <geom name="flag" type="box" size="0.008 0.0008 0.012" pos="{FLAG_X:.4f} 0 -0.014" rgba="0.1 0.1 0.1 1"
        contype="0" conaffinity="0" mass="0"/>
</body>
<body name="meter_box" pos="{mx} {my} {z}">
  <geom name="meter_box" type="box" size="{" ".join(map(str, METER_HALF))}" pos="0 0 {METER_HALF[2]}"
        rgba="0.85 0.84 0.8 1" {WORLD_GEOM}/>
</body>
<body name="faces">
{FACE.geom_xml(" ".join(map(str, FACE_CENTRES[FACE.texture])))}
</body>
{keys}
{loads}"""

    def _pin_xml(self) -> str:
        if not self.pin:
            return ""
        return (
            f'  <geom name="pin" type="capsule" size="{PIN_RADIUS}" fromto="0 0 {PLATE_HALF} 0 0 '
            f'{PLATE_HALF + PIN_HEIGHT - PIN_RADIUS:.4f}" rgba="0.2 0.2 0.22 1" mass="0" friction="0.1 0.005 '
            f'0.0001" priority="3" {WORLD_GEOM}/>'
        )

    def sections_xml(self) -> str:
        pairs = [("turntable", "turntable_base"), ("key_log", "meter_box"), ("key_brake", "meter_box")]
        excluded = "".join(f'<exclude body1="{a}" body2="{b}"/>' for a, b in pairs)
        return f"<contact>{excluded}</contact>"

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        joint = model.joint("turntable")
        self._ids = {
            "q": int(joint.qposadr[0]),
            "v": int(joint.dofadr[0]),
            "key_log": int(model.joint("key_log").qposadr[0]),
            "key_brake": int(model.joint("key_brake").qposadr[0]),
        }
        for load in self.loads:
            free = model.joint(f"{load.name}_free")
            self._ids[f"{load.name}_q"] = int(free.qposadr[0])
            self._ids[f"{load.name}_v"] = int(free.dofadr[0])
        self._contacts = ContactWatch(model)
        (self._top,) = self._contacts.geoms("turntable")
        self._turning = self._contacts.geoms_of_bodies("turntable")
        self._load_geoms = {load.name: self._contacts.geoms_of_bodies(load.name) for load in self.loads}

    def inertia(self) -> float:
        """The moment of inertia turning on the wire now (kg m²): the turntable's and its riders'."""
        total = self.own_inertia
        for load in self.loads:
            if load.name in self._riding:
                total += about_axis(load.inertia, load.mass, self._riding[load.name][4])
        return total

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """The keys; the turntable and its riders one step on (exactly while untouched, unbraked); the
        photogate's crossings."""
        self._steps += 1
        if self._log_key.pressed(-float(data.qpos[self._ids["key_log"]])):
            self.logging = not self.logging
        if self._brake_key.pressed(-float(data.qpos[self._ids["key_brake"]])):
            self.braked = not self.braked
        q, v = self._ids["q"], self._ids["v"]
        before = self.swing[0]
        riders = self._riders_now(data)
        touched = not self._contacts.touched(data).isdisjoint(
            self._turning.union(*(self._load_geoms[name] for name in riders))
        )
        free = not (touched or self.braked) and riders == self.riders
        if self.braked:
            self.swing = [0.0, 0.0]
            data.qpos[q], data.qvel[v] = 0.0, 0.0
            self._move_riders(data)  # the brake takes the turntable back to rest, what rides on it with it
        elif touched:
            self.swing = [float(data.qpos[q]), float(data.qvel[v])]
        if not free:
            self._free_since_crossing = False
            self._riding.clear()
            self.riders = riders
            if touched or self.braked:
                return self._time_crossing(before)
        self._ride(data, riders)
        theta, rate = self.wire.step(self.swing[0], self.swing[1], self.inertia())
        self.swing = [theta, rate]
        data.qpos[q], data.qvel[v] = theta, rate
        self._move_riders(data)
        self._time_crossing(before)

    def _riders_now(self, data: mujoco.MjData) -> frozenset[str]:
        links = self._contacts.links(data)
        carried = carried_by(self._top, set().union(*self._load_geoms.values()), links)
        return frozenset(name for name, geoms in self._load_geoms.items() if not geoms.isdisjoint(carried))

    def _ride(self, data: mujoco.MjData, riders: frozenset[str]) -> None:
        """Note where each new rider came to ride, relative to the turntable's angle now."""
        for name in riders:
            if name not in self._riding:
                at = self._ids[f"{name}_q"]
                x, y = float(data.qpos[at]) - CENTRE[0], float(data.qpos[at + 1]) - CENTRE[1]
                w, a, b, c = (float(v) for v in data.qpos[at + 3 : at + 7])
                dx, dy, _ = turned(next(x.com for x in self.loads if x.name == name), (w, a, b, c))
                offset = math.sqrt((x + dx) ** 2 + (y + dy) ** 2)
                self._riding[name] = (self.swing[0], x, y, (w, a, b, c), offset)

    def _holes_on_axis(self) -> dict[str, float]:
        """The hole of each riding bar that stood within :data:`ON_AXIS_M` of the axis as it came to ride."""
        found = {}
        for load in self.loads:
            if not isinstance(load, Bar) or load.name not in self._riding:
                continue
            _, x, y, quat, _ = self._riding[load.name]
            for hole in load.holes:
                dx, dy, _ = turned((hole - load.length / 2, 0.0, 0.0), quat)
                if math.hypot(x + dx, y + dy) <= ON_AXIS_M:
                    found[load.name] = hole
        return found

    def _move_riders(self, data: mujoco.MjData) -> None:
        theta, rate = self.swing
        for name, (then, x0, y0, (w, a, b, c), _) in self._riding.items():
            turn = theta - then
            x, y = rotate(x0, y0, turn)
            half_s, half_c = sin(turn / 2), sin(turn / 2 + math.pi / 2)
            at, dof = self._ids[f"{name}_q"], self._ids[f"{name}_v"]
            data.qpos[at], data.qpos[at + 1] = CENTRE[0] + x, CENTRE[1] + y
            data.qpos[at + 3 : at + 7] = (
                half_c * w - half_s * c,
                half_c * a - half_s * b,
                half_c * b + half_s * a,
                half_c * c + half_s * w,
            )
            data.qvel[dof : dof + 6] = (-rate * y, rate * x, 0.0, 0.0, 0.0, rate)

    def _time_crossing(self, before: float) -> None:
        """Time a crossing of the beam in this step; from the third on, show the period it completes."""
        after = self.swing[0]
        if (before >= 0.0) == (after >= 0.0):
            return
        now = self._steps * DT
        self._crossings = [
            *self._crossings[-2:],
            (now - DT * after / (after - before), self._free_since_crossing),
        ]
        self._free_since_crossing = True
        if len(self._crossings) == 3:
            (start, _), (_, first_half), (end, second_half) = self._crossings
            self.shown_period = end - start
            self.period_free = first_half and second_half
            self.period_load = self.riders
            self.period_holes = self._holes_on_axis()

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The turntable's centre (its top), its radius, the handle (from the centre, and its top above the
        turntable's), the centring pin's top (when fitted), each load's place on the bench (its centre on the
        table) and its knob's top above the table, a bar's knob (from its left end), the LCD's window, and the
        keys (each centre and the top of its cap)."""
        top = key_top(TABLE_TOP_Z + 2 * METER_HALF[2])
        return published(
            {
                "turntable": [*CENTRE, TOP_Z],
                "turntable_radius": [TABLE_RADIUS],
                "handle": [*HANDLE, HANDLE_HEIGHT],
                **{f"{load.name}_place": [*LOAD_PLACES[load.name], TABLE_TOP_Z] for load in self.loads},
                **{f"{load.name}_grip_top": [load.grip_height] for load in self.loads},
                **({"pin_top": [TOP_Z + PIN_HEIGHT]} if self.pin else {}),
                **{f"{x.name}_knob": [x.knob] for x in self.loads if isinstance(x, Bar)},
                **front_windows((FACE,), FACE_CENTRES),
                "log_key": [*LOG_KEY, top],
                "brake_key": [*BRAKE_KEY, top],
            }
        )

    # --- instruments ---
    def faces(self) -> Iterable[DisplayFace]:
        return (FACE,)

    def instruments(self) -> list[InstrumentSpec]:
        return [PERIOD]

    def loggers(self) -> list[LoggerSpec]:
        return [LoggerSpec(LOGGER, (PERIOD.name,), LOG_HZ)]

    def recording(self) -> set[str]:
        return {LOGGER} if self.logging else set()

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        return {PERIOD.name: self.shown_period}
