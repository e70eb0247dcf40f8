"""The titration bench: a burette of sodium hydroxide on a stand over a magnetic stirrer, beakers of sample
to carry onto it, a pH electrode to carry from its storage well into the sleeve that hangs it in the
beaker, and a meter panel showing the pH and the drops fallen, with a logger.

Mechanics: a beaker is a rigid body (a vessel, :mod:`.vessels`): it stands *on the stirrer* when it stands
upright on the stirrer's plate inside the locating ring under the burette's tip. The stopcock is a lever on
a vertical hinge below the burette: pointing right it is closed, turned towards the front it opens,
fully at a quarter turn (the flow rises with the opening, :mod:`..physics.burette`; the hinge's friction
holds the lever where it is left). Each drop that falls from the tip lands in the beaker whose mouth lies
under it, or on the bench: a spill. The electrode rests on its tip in its storage well; hung by its handle
in the sleeve beside the tip (a bore with a funnel on top), its bulb reaches down into a beaker on the
stirrer. The stirrer keeps that beaker mixed.

Physics: a beaker's contents are a :class:`~actloop.suites.lab.physics.solutions.Portion` of hydrochloric
acid, sodium hydroxide and a weak acid; its pH is the ideal-solution charge balance
(:func:`~actloop.suites.lab.physics.acid_base.ph`). The electrode reads the pH of the beaker its bulb is
immersed in, else its storage solution's; the meter shows it through the electrode's calibration error (a
slope and an offset about pH 7) with the electrode's lag. The drop counter at the tip counts every drop.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import mujoco
import numpy as np

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec, LoggerSpec, Shown
from actloop.suites.lab.physics.acid_base import Solution, ph
from actloop.suites.lab.physics.burette import Burette
from actloop.suites.lab.physics.solutions import HYDROXIDE, Portion
from actloop.suites.lab.platforms.base import NUMBER_WORDS, published
from actloop.suites.lab.platforms.display import (
    DisplayFace,
    FacedPlatform,
    front_windows,
)
from actloop.suites.lab.platforms.keys import PressEdge, key_top, key_xml
from actloop.suites.lab.platforms.vessels import Shape, Vessels
from actloop.suites.lab.platforms.wells import Well, well_xml
from actloop.suites.lab.spec import Part

HYDROCHLORIC_ACID = "hydrochloric_acid"
WEAK_ACID = "weak_acid"

# --- layout (world frame, metres) ---
STIRRER = (0.0, 0.08)
STIRRER_HALF = (0.06, 0.06, 0.035)
PLATE_Z = TABLE_TOP_Z + 2 * STIRRER_HALF[2]
"""The stirrer's plate, where a beaker stands."""
SEAT_INNER_HALF = 0.0305
SEAT_WALL = (0.002, 0.003)
"""The locating ring on the plate: a square of four walls (half thickness, half height) around the beaker."""
BEAKER_RADIUS = 0.028
BEAKER_HALF_HEIGHT = 0.03
BEAKER_MASS = 0.06
BEAKER_WALLS = 16
"""A beaker's wall is this many flat panels in a ring (a hollow for the electrode's stem)."""
BEAKER_SHAPE = Shape(0.026, 2 * BEAKER_HALF_HEIGHT - 0.003, -BEAKER_HALF_HEIGHT + 0.003, round=True)
BEAKER_CONTACT = 'friction="1.5 0.02 0.002" condim="4" priority="2" solref="0.004 1"'
"""A beaker's contacts: stiff, with torsional friction, so that it does not slip or pivot in the fingers."""
BEAKERS_Y = -0.08
BEAKERS_X0 = 0.08
BEAKER_PITCH = 0.09
"""Beaker k (from 1) stands at (BEAKERS_X0 + (k - 1) BEAKER_PITCH, BEAKERS_Y) on the beaker stand."""
BEAKER_STAND_HALF = (0.13, 0.045, STIRRER_HALF[2])
BEAKER_STAND_TOP = PLATE_Z
"""The beakers stand on a block as high as the stirrer's plate, so a hand can take one from the side."""
TIP = (STIRRER[0] + 0.016, STIRRER[1], PLATE_Z + 0.08)
"""The burette's tip: drops fall from here."""
SLEEVE = (STIRRER[0] - 0.016, STIRRER[1])
SLEEVE_HALF = (0.009, 0.009, 0.008)
SLEEVE_BASE_Z = PLATE_Z + 0.08
SLEEVE_WELL = Well(half=0.006, depth=2 * SLEEVE_HALF[2], funnel=0.006)
"""The electrode's sleeve: a bore right through a short block, a funnel on top."""
STORE = (-0.15, -0.04)
STORE_HALF = (0.02, 0.02, 0.035)
STORE_WELL = Well(half=0.0065, depth=0.06, funnel=0.008)
STEM_RADIUS = 0.004
STEM_LENGTH = 0.089
HANDLE_RADIUS = 0.009
HANDLE_LENGTH = 0.05
ELECTRODE_MASS = 0.05
ELECTRODE_CONTACT = 'friction="1.2 0.02 0.002" condim="4" priority="2" solref="0.004 1"'
"""The electrode's contacts: with torsional friction, so that it does not swing in the fingers like a
pendulum while it is carried."""
HUNG_TIP_Z = SLEEVE_BASE_Z + 2 * SLEEVE_HALF[2] + 0.004 - STEM_LENGTH
"""Where the electrode's tip hangs when its handle rests in the sleeve's funnel (4 mm up it, where the
funnel is as wide as the handle): its bulb 8 mm above a beaker's inner floor."""
IN_SLEEVE_M = (0.005, 0.006)
"""The electrode hangs in the sleeve when its tip is within these of the sleeve's axis (across) and of
HUNG_TIP_Z (height)."""
IMMERSED_M = 0.004
"""The bulb reads a solution whose surface stands this far above the electrode's tip."""
UPRIGHT_COS = math.cos(math.radians(10.0))
SEATED_XY_M = 0.004
SEATED_Z_M = 0.003
STAND = (STIRRER[0], STIRRER[1] + 0.13)
STAND_TOP_Z = TABLE_TOP_Z + 0.56
BURETTE_RADIUS = 0.006
BURETTE_BOTTOM_Z = PLATE_Z + 0.11
BURETTE_TOP_Z = TABLE_TOP_Z + 0.54
BURETTE_ML = 50.0
DROP_ML = 0.05
STOPCOCK_Z = PLATE_Z + 0.10
LEVER_LENGTH = 0.07
PEG_RADIUS = 0.004
PEG_HALF_HEIGHT = 0.0075
OPEN_RAD = math.pi / 2
"""The stopcock's travel: closed at 0 (the lever pointing to +x), fully open at a quarter turn (to −y,
towards the robot)."""
CLOSED_RAD = 0.05 * OPEN_RAD
"""Below this the stopcock passes nothing (the burette's threshold opening)."""
PANEL = (0.42, 0.10)
PANEL_HALF = (0.07, 0.02, 0.09)
LOG_KEY = (PANEL[0] + 0.04, PANEL[1])
STORAGE_PH = 7.0
"""The storage solution's pH: what the electrode reads out of any beaker."""

PH_METER = InstrumentSpec(
    "ph",
    "pH",
    DigitalDisplay(digits=4, decimals=2, min_digit_px=12.0),
    refresh_hz=2.0,
    time_constant_s=2.0,
    noise_sd=0.003,
    low=0.0,
    high=14.0,
)
DROP_COUNTER = InstrumentSpec("drops", "drops", DigitalDisplay(digits=4, decimals=0, min_digit_px=12.0), 10.0)
FACES = (
    DisplayFace.of("ph_lcd", PH_METER, 0.066, 0.022),
    DisplayFace.of("drops_lcd", DROP_COUNTER, 0.066, 0.022),
)
FACE_CENTRES = {
    "ph_lcd": (PANEL[0] - 0.02, PANEL[1] - PANEL_HALF[1] - 0.001, TABLE_TOP_Z + 0.15),
    "drops_lcd": (PANEL[0] - 0.02, PANEL[1] - PANEL_HALF[1] - 0.001, TABLE_TOP_Z + 0.11),
}
"""Window centres of the faces (world), each facing −y (towards the robot)."""
LOGGER = "logger"
LOG_HZ = 2.0


def beaker_spot(k: int) -> tuple[float, float, float]:
    """Where beaker ``k`` (from 1) stands on the table (its centre), metres."""
    return (BEAKERS_X0 + (k - 1) * BEAKER_PITCH, BEAKERS_Y, BEAKER_STAND_TOP + BEAKER_HALF_HEIGHT)


def bench_parts(beakers: int) -> tuple[Part, ...]:
    """The titration bench's fixed parts and the electrode, as the card describes them."""
    return (
        Part(
            "burette",
            f"{BURETTE_ML:g} mL of titrant on a stand, its tip over the stirrer; each drop is "
            f"{DROP_ML:.3f} mL and a counter at the tip counts every drop",
            "fixed",
        ),
        Part(
            "stopcock",
            "a lever on a vertical hinge below the burette: pointing right it is closed; turned towards the "
            "front it opens, fully at a quarter turn, the flow rising from a slow drip to a stream; "
            "it stays where it is left",
            "closed",
        ),
        Part(
            "stirrer",
            "a magnetic stirrer with a locating ring on its plate under the burette's tip; it keeps a "
            "beaker standing in the ring mixed",
            "fixed",
        ),
        Part(
            "electrode",
            "a combination pH electrode: a glass stem with its bulb at the tip below a handle; it rests on "
            "its tip in its storage well, and hung by its handle in the sleeve beside the burette's tip its "
            "bulb reaches into a beaker on the stirrer",
        ),
        Part("storage_well", "the electrode's well of storage solution, on the bench", "fixed"),
        Part("sleeve", "a bore with a funnel on top, held by the stand beside the burette's tip", "fixed"),
        Part(
            "ph_meter",
            "shows the pH the electrode reads, to 0.01, settling over a few seconds after a change; out of "
            f"a beaker the electrode reads its storage solution (pH {STORAGE_PH:.2f})",
            "fixed",
        ),
        Part("drop_counter", "shows the drops fallen from the burette's tip since the start", "fixed"),
        Part(
            "key_log",
            "push key on the meter panel: starts or stops the logger, which records the pH and the drop "
            f"count at {LOG_HZ:g} rows a second into a file the bench exports",
            "fixed",
        ),
        Part(
            "beaker_stand",
            f"a block with {NUMBER_WORDS[beakers]} spots marked on its top, where the beakers stand",
            "fixed",
        ),
    )


@dataclass(frozen=True)
class Electrode:
    """The electrode's calibration error: what it reads is ``7 + slope (pH − 7) + offset``."""

    slope: float = 1.0
    offset: float = 0.0

    def reads(self, true_ph: float) -> float:
        return STORAGE_PH + self.slope * (true_ph - STORAGE_PH) + self.offset


def solution_of(portion: Portion, pkas: Mapping[str, float]) -> Solution:
    """A beaker's contents as the pH solver takes them (L and mol), ``pkas`` naming the weak acids' solutes
    and their pKa."""
    weak = tuple(
        (portion.moles(name), pka) for name, pka in sorted(pkas.items()) if portion.moles(name) > 0.0
    )
    return Solution(
        portion.volume_ml / 1000.0,
        strong_acid_mol=portion.moles(HYDROCHLORIC_ACID),
        strong_base_mol=portion.moles(HYDROXIDE),
        other_acids=weak,
    )


def beaker_colour(portion: Portion) -> tuple[float, float, float]:
    """Every solution on the bench is colourless: drawn a pale blue."""
    return (0.82, 0.9, 0.97)


class TitrationBench(FacedPlatform):
    """The titration bench with ``samples`` in its beakers (beaker_1 ...), a burette of sodium hydroxide at
    ``titrant_m`` (mol/L), the weak acids' pKa by their solutes' names (``pkas``) and the electrode's
    calibration error."""

    face_centres = FACE_CENTRES

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        "ph_meter": ("panel", "ph_lcd"),
        "drop_counter": ("panel", "drops_lcd"),
    }

    def __init__(
        self,
        samples: Sequence[Portion],
        titrant_m: float,
        electrode: Electrode,
        pkas: Mapping[str, float] | None = None,
    ) -> None:
        self.beakers = tuple(f"beaker_{k}" for k in range(1, len(samples) + 1))
        self.vessels = Vessels(self.beakers, [BEAKER_SHAPE] * len(samples), samples, beaker_colour)
        self.burette = Burette(BURETTE_ML, DROP_ML)
        self.titrant_m = titrant_m
        self.electrode = electrode
        self.pkas = dict(pkas or {})
        self.logging = False
        self.on_stirrer: int | None = None
        """The beaker standing on the stirrer, if any (updated every step)."""
        self.hung = False
        """Whether the electrode hangs in the sleeve (updated every step)."""
        self._log_key = PressEdge()
        self._ids: dict[str, int] = {}
        self._beaker_bodies: list[int] = []
        self._dt = 1.0
        self._time = 0.0
        self._model: mujoco.MjModel | None = None
        self._ph_cache: tuple[tuple[float, tuple[tuple[str, float], ...]], float] | None = None

    # --- scene ---
    def faces(self) -> Iterable[DisplayFace]:
        return FACES

    def bodies_xml(self) -> str:
        return "\n".join(
            [
                self._stirrer_xml(),
                self._stand_xml(),
                self._stopcock_xml(),
                well_xml("sleeve", SLEEVE, SLEEVE_HALF, "0.3 0.3 0.33 1", SLEEVE_WELL, SLEEVE_BASE_Z),
                well_xml("storage_well", STORE, STORE_HALF, "0.25 0.35 0.3 1", STORE_WELL),
                self._electrode_xml(),
                self._panel_xml(),
                self._beaker_stand_xml(len(self.beakers)),
                *(self._beaker_xml(k) for k in range(1, len(self.beakers) + 1)),
            ]
        )

    @staticmethod
    def _stirrer_xml() -> str:
        hx, hy, hz = STIRRER_HALF
        t, h = SEAT_WALL
        reach = SEAT_INNER_HALF + t
        walls = [
            ("n", 0.0, reach, reach + t, t),
            ("s", 0.0, -reach, reach + t, t),
            ("e", reach, 0.0, t, SEAT_INNER_HALF),
            ("w", -reach, 0.0, t, SEAT_INNER_HALF),
        ]
        ring = "\n  ".join(
            f'<geom name="seat_{n}" type="box" size="{sx} {sy} {h}" pos="{x} {y} {hz + h}" '
            f'rgba="0.85 0.85 0.85 1" {WORLD_GEOM}/>'
            for n, x, y, sx, sy in walls
        )
        return f"""
<body name="stirrer" pos="{STIRRER[0]} {STIRRER[1]} {TABLE_TOP_Z + hz}">
  <geom name="stirrer_case" type="box" size="{hx} {hy} {hz}" rgba="0.92 0.92 0.9 1" {WORLD_GEOM}/>
  {ring}
</body>"""

    @staticmethod
    def _stand_xml() -> str:
        sx, sy = STAND
        rod = (STAND_TOP_Z - TABLE_TOP_Z) / 2
        arm_z = BURETTE_TOP_Z - 0.04
        burette_len = (BURETTE_TOP_Z - BURETTE_BOTTOM_Z) / 2
        tube = (BURETTE_TOP_Z + BURETTE_BOTTOM_Z) / 2
        sleeve_arm = SLEEVE_BASE_Z + SLEEVE_HALF[2]
        side = SLEEVE[0] - SLEEVE_HALF[0] - 0.025 - sx  # the sleeve's arm runs up the left, clear of the tip
        face = SLEEVE[0] - SLEEVE_HALF[0] - sx
        burette_x = TIP[0] - sx
        return f"""
<body name="stand" pos="{sx} {sy} {TABLE_TOP_Z}">
  <geom name="stand_base" type="box" size="0.05 0.04 0.005" pos="0 0 0.005" rgba="0.2 0.2 0.22 1"
        {WORLD_GEOM}/>
  <geom name="stand_rod" type="cylinder" size="0.006 {rod:.4f}" pos="0 0 {rod:.4f}" rgba="0.7 0.7 0.72 1"
        {WORLD_GEOM}/>
  <geom name="stand_clamp" type="box" size="0.004 {(sy - TIP[1]) / 2:.4f} 0.006"
        pos="{burette_x} {(TIP[1] - sy) / 2:.4f} {arm_z - TABLE_TOP_Z:.4f}" rgba="0.2 0.2 0.22 1"
        {WORLD_GEOM}/>
  <geom name="stand_clamp_boss" type="box" size="{burette_x / 2 + 0.004:.4f} 0.006 0.006"
        pos="{burette_x / 2:.4f} 0 {arm_z - TABLE_TOP_Z:.4f}" rgba="0.2 0.2 0.22 1" {WORLD_GEOM}/>
  <geom name="sleeve_arm_back" type="box" size="{abs(side) / 2:.4f} 0.004 0.004"
        pos="{side / 2:.4f} 0 {sleeve_arm - TABLE_TOP_Z:.4f}" rgba="0.2 0.2 0.22 1" {WORLD_GEOM}/>
  <geom name="sleeve_arm" type="box" size="0.004 {(sy - SLEEVE[1]) / 2:.4f} 0.004"
        pos="{side:.4f} {(SLEEVE[1] - sy) / 2:.4f} {sleeve_arm - TABLE_TOP_Z:.4f}" rgba="0.2 0.2 0.22 1"
        {WORLD_GEOM}/>
  <geom name="sleeve_arm_front" type="box" size="{abs(face - side) / 2:.4f} 0.004 0.004"
        pos="{(side + face) / 2:.4f} {SLEEVE[1] - sy:.4f} {sleeve_arm - TABLE_TOP_Z:.4f}"
        rgba="0.2 0.2 0.22 1" {WORLD_GEOM}/>
</body>
<body name="burette" pos="{TIP[0]} {TIP[1]} {tube:.4f}">
  <geom name="burette_tube" type="cylinder" size="{BURETTE_RADIUS} {burette_len:.4f}"
        rgba="0.9 0.94 0.97 0.35" {WORLD_GEOM}/>
  <geom name="burette_liquid" type="cylinder" size="{BURETTE_RADIUS - 0.0015} {burette_len - 0.01:.4f}"
        pos="0 0 -0.01" rgba="0.82 0.9 0.97 1" contype="0" conaffinity="0"/>
  <geom name="burette_barrel" type="cylinder" size="0.005 0.008" pos="0 0 {STOPCOCK_Z - tube:.4f}"
        euler="0 1.5707963 0" rgba="0.9 0.94 0.97 0.6" {WORLD_GEOM}/>
  <geom name="burette_neck" type="cylinder" size="0.0025 {(BURETTE_BOTTOM_Z - STOPCOCK_Z) / 2:.4f}"
        pos="0 0 {(BURETTE_BOTTOM_Z + STOPCOCK_Z) / 2 - tube:.4f}" rgba="0.9 0.94 0.97 0.6" {WORLD_GEOM}/>
  <geom name="burette_tip" type="cylinder" size="0.002 {(STOPCOCK_Z - TIP[2]) / 2:.4f}"
        pos="0 0 {(STOPCOCK_Z + TIP[2]) / 2 - tube:.4f}" rgba="0.9 0.94 0.97 0.6" {WORLD_GEOM}/>
</body>"""

    @staticmethod
    def _stopcock_xml() -> str:
        return f"""
<body name="stopcock" pos="{TIP[0]} {TIP[1]} {STOPCOCK_Z}">
  <joint name="stopcock" type="hinge" axis="0 0 -1" range="0 {OPEN_RAD:.6f}" frictionloss="0.004"
         damping="0.002" armature="0.0001" solreflimit="0.005 1"/>
  <geom name="stopcock_lever" type="box" size="{LEVER_LENGTH / 2} 0.003 0.002" pos="{LEVER_LENGTH / 2} 0 0"
        rgba="0.2 0.3 0.7 1" mass="0.004" {WORLD_GEOM}/>
  <geom name="stopcock_peg" type="cylinder" size="{PEG_RADIUS} {PEG_HALF_HEIGHT}"
        pos="{LEVER_LENGTH} 0 {PEG_HALF_HEIGHT}" rgba="0.2 0.3 0.7 1" mass="0.002" {WORLD_GEOM}/>
</body>"""

    @staticmethod
    def _electrode_xml() -> str:
        floor = TABLE_TOP_Z + 2 * STORE_HALF[2] - STORE_WELL.depth
        return f"""
<body name="electrode" pos="{STORE[0]} {STORE[1]} {floor + 0.0005:.5f}">
  <freejoint name="electrode_free"/>
  <geom name="electrode_stem" type="capsule" fromto="0 0 {STEM_RADIUS} 0 0 {STEM_LENGTH}" size="{STEM_RADIUS}"
        rgba="0.88 0.92 0.95 0.7" mass="{ELECTRODE_MASS / 3:.4f}" {ELECTRODE_CONTACT} {WORLD_GEOM}/>
  <geom name="electrode_handle" type="cylinder" size="{HANDLE_RADIUS} {HANDLE_LENGTH / 2}"
        pos="0 0 {STEM_LENGTH + HANDLE_LENGTH / 2}" rgba="0.1 0.1 0.12 1" mass="{2 * ELECTRODE_MASS / 3:.4f}"
        {ELECTRODE_CONTACT} {WORLD_GEOM}/>
</body>"""

    @staticmethod
    def _panel_xml() -> str:
        px, py = PANEL
        faces = "\n".join(face.geom_xml(" ".join(map(str, FACE_CENTRES[face.texture]))) for face in FACES)
        top = TABLE_TOP_Z + 2 * PANEL_HALF[2]
        return f"""
<body name="panel" pos="{px} {py} {TABLE_TOP_Z}">
  <geom name="panel_case" type="box" size="{PANEL_HALF[0]} {PANEL_HALF[1]} {PANEL_HALF[2]}"
        pos="0 0 {PANEL_HALF[2]}" rgba="0.85 0.84 0.8 1" {WORLD_GEOM}/>
</body>
<body name="faces">
{faces}
</body>
{key_xml("log", *LOG_KEY, top, "0.25 0.6 0.3 1")}"""

    @staticmethod
    def _beaker_stand_xml(beakers: int) -> str:
        middle = BEAKERS_X0 + (beakers - 1) * BEAKER_PITCH / 2
        return f"""
<body name="beaker_stand" pos="{middle:.4f} {BEAKERS_Y} {TABLE_TOP_Z + BEAKER_STAND_HALF[2]}">
  <geom name="beaker_stand" type="box" size="{" ".join(map(str, BEAKER_STAND_HALF))}" rgba="0.35 0.3 0.25 1"
        {WORLD_GEOM}/>
</body>"""

    @staticmethod
    def _beaker_xml(k: int) -> str:
        x, y, z = beaker_spot(k)
        shape = BEAKER_SHAPE
        wall = (BEAKER_RADIUS - shape.inner_half) / 2
        middle = shape.inner_half + wall
        chord = middle * math.tan(math.pi / BEAKER_WALLS) + 0.0002
        wall_z = (shape.floor_z + BEAKER_HALF_HEIGHT) / 2  # from the floor's top to the rim
        wall_half = (BEAKER_HALF_HEIGHT - shape.floor_z) / 2
        mass = BEAKER_MASS / (BEAKER_WALLS + 1)
        walls = "\n  ".join(
            f'<geom name="beaker_{k}_wall_{i}" type="box" size="{wall} {chord:.5f} {wall_half:.5f}" '
            f'pos="{middle * math.cos(a):.5f} {middle * math.sin(a):.5f} {wall_z:.5f}" euler="0 0 {a:.5f}" '
            f'mass="{mass:.5f}" rgba="0.9 0.94 0.97 0.35" {BEAKER_CONTACT} {WORLD_GEOM}/>'
            for i, a in ((i, 2 * math.pi * i / BEAKER_WALLS) for i in range(BEAKER_WALLS))
        )
        floor = (shape.floor_z + BEAKER_HALF_HEIGHT) / 2
        return f"""
<body name="beaker_{k}" pos="{x:.4f} {y} {z + 0.0005:.5f}">
  <freejoint name="beaker_{k}_free"/>
  <geom name="beaker_{k}_floor" type="cylinder" size="{BEAKER_RADIUS} {floor:.5f}"
        pos="0 0 {-BEAKER_HALF_HEIGHT + floor:.5f}" mass="{mass:.5f}" rgba="0.9 0.94 0.97 0.35"
        {BEAKER_CONTACT} {WORLD_GEOM}/>
  {walls}
  <geom name="beaker_{k}_liquid" type="cylinder" size="{shape.inner_half} {shape.depth / 2:.4f}"
        pos="0 0 {shape.floor_z + shape.depth / 2:.4f}" rgba="0.82 0.9 0.97 1" contype="0" conaffinity="0"
        mass="0"/>
</body>
<body name="beaker_spot_{k}" pos="{x:.4f} {y} {BEAKER_STAND_TOP}">
  <geom name="beaker_spot_{k}" type="cylinder" size="{BEAKER_RADIUS + 0.004} 0.0002" rgba="0.6 0.62 0.66 1"
        contype="0" conaffinity="0"/>
</body>"""

    def sections_xml(self) -> str:
        # the stopcock turns inside the burette's barrel; the key sinks into the panel's top
        return (
            '<contact><exclude body1="stopcock" body2="burette"/><exclude body1="key_log" body2="panel"/>'
            "</contact>"
        )

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self._ids = {
            "stopcock": int(model.joint("stopcock").qposadr[0]),
            "key_log": int(model.joint("key_log").qposadr[0]),
            "electrode": model.body("electrode").id,
            "burette_liquid": model.geom("burette_liquid").id,
        }
        self._beaker_bodies = [model.body(name).id for name in self.beakers]
        self._dt = float(model.opt.timestep)
        self._model = model
        self.vessels.attach(model)
        self._update(data)
        self._draw(model)

    def stopcock_rad(self, data: mujoco.MjData) -> float:
        """The stopcock lever's turn from closed (rad)."""
        return float(data.qpos[self._ids["stopcock"]])

    def opening(self, data: mujoco.MjData) -> float:
        """The stopcock's opening, 0 (closed) to 1 (fully open)."""
        return min(max(self.stopcock_rad(data) / OPEN_RAD, 0.0), 1.0)

    def electrode_tip(self, data: mujoco.MjData) -> np.ndarray:
        """World position of the electrode's tip (its body's origin)."""
        return np.array(data.xpos[self._ids["electrode"]])

    def _hangs_in_sleeve(self, data: mujoco.MjData) -> bool:
        x, y, z = data.xpos[self._ids["electrode"]].tolist()
        across, height = IN_SLEEVE_M
        return (
            math.hypot(x - SLEEVE[0], y - SLEEVE[1]) <= across
            and abs(z - HUNG_TIP_Z) <= height
            and float(data.xmat[self._ids["electrode"], 8]) >= UPRIGHT_COS
        )

    def electrode_in_store(self, data: mujoco.MjData) -> bool:
        """The electrode's tip is down in its storage well."""
        x, y, z = data.xpos[self._ids["electrode"]].tolist()
        top = TABLE_TOP_Z + 2 * STORE_HALF[2]
        return (
            math.hypot(x - STORE[0], y - STORE[1]) <= IN_SLEEVE_M[0] + 0.001
            and z <= top - STORE_WELL.depth / 2
        )

    def _seated(self, data: mujoco.MjData) -> int | None:
        """The beaker standing upright on the stirrer's plate inside the ring (a loop over a few bodies)."""
        for i, body in enumerate(self._beaker_bodies):
            x, y, z = data.xpos[body].tolist()
            if (
                abs(x - STIRRER[0]) <= SEATED_XY_M
                and abs(y - STIRRER[1]) <= SEATED_XY_M
                and abs(z - (PLATE_Z + BEAKER_HALF_HEIGHT)) <= SEATED_Z_M
                and float(data.xmat[body, 8]) >= UPRIGHT_COS
            ):
                return i
        return None

    def _update(self, data: mujoco.MjData) -> None:
        self.on_stirrer = self._seated(data)
        self.hung = self._hangs_in_sleeve(data)

    def immersed_in(self) -> int | None:
        """The beaker on the stirrer whose solution covers the bulb of the electrode hung in the sleeve."""
        if self.on_stirrer is None or not self.hung:
            return None
        portion = self.vessels.stored(self.on_stirrer)
        surface = (
            PLATE_Z + BEAKER_HALF_HEIGHT + BEAKER_SHAPE.floor_z + BEAKER_SHAPE.fill_height(portion.volume_ml)
        )
        return self.on_stirrer if surface >= HUNG_TIP_Z + IMMERSED_M else None

    def beaker_ph(self, i: int) -> float:
        """The true pH of beaker ``i``'s contents (computed once per change of contents)."""
        portion = self.vessels.stored(i)
        key = (portion.volume_ml, portion.solutes)
        if self._ph_cache is None or self._ph_cache[0] != key:
            self._ph_cache = (key, ph(solution_of(portion, self.pkas)))
        return self._ph_cache[1]

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self._time = time_s = round(float(data.time) / self._dt) * self._dt
        self._update(data)
        if self._log_key.pressed(-float(data.qpos[self._ids["key_log"]])):
            self.logging = not self.logging
        fallen = self.burette.advance(self._dt, self.opening(data))
        if fallen:
            drops = Portion.of(fallen * DROP_ML, {HYDROXIDE: self.titrant_m})
            self.vessels.fall(data, np.array(TIP), drops, time_s, "burette")
        self.vessels.step(data, self._dt, time_s)

    def _draw(self, model: mujoco.MjModel) -> None:
        self.vessels.draw(model, self._time)
        geom = self._ids["burette_liquid"]
        full = (BURETTE_TOP_Z - BURETTE_BOTTOM_Z) / 2 - 0.01
        half = max(full * self.burette.remaining_ml / BURETTE_ML, 1e-5)
        model.geom_size[geom][1] = half
        model.geom_pos[geom][2] = -(BURETTE_TOP_Z - BURETTE_BOTTOM_Z) / 2 + half

    def redraw(self, shown: Callable[[str], Shown | None]) -> dict[str, np.ndarray]:
        """The LCDs' faces, every beaker's liquid and the titrant left in the burette, as they are now."""
        if self._model is not None:
            self._draw(self._model)
        return super().redraw(shown)

    # --- the logger ---
    def loggers(self) -> list[LoggerSpec]:
        return [LoggerSpec(LOGGER, (PH_METER.name, DROP_COUNTER.name), LOG_HZ)]

    def recording(self) -> set[str]:
        return {LOGGER} if self.logging else set()

    # --- instruments ---
    def instruments(self) -> list[InstrumentSpec]:
        return [PH_METER, DROP_COUNTER]

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        beaker = self.immersed_in()
        true_ph = STORAGE_PH if beaker is None else self.beaker_ph(beaker)
        return {PH_METER.name: self.electrode.reads(true_ph), DROP_COUNTER.name: float(self.burette.drops)}

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The stirrer's ring (its centre on the plate), each beaker's spot (the table under its centre) and a
        beaker's size (diameter, diameter, height); the electrode's storage well and the sleeve (axis and the
        top of the block), the storage well's floor, the height of the electrode's tip hung in the sleeve,
        the electrode (its handle's bottom and top above the tip); the burette's tip; the
        stopcock's hinge, its lever's length and its peg's top above the hinge; the LOG key's cap top; each
        LCD's window (the centre of its face, and its width and height)."""
        windows = front_windows(FACES, FACE_CENTRES)
        top = TABLE_TOP_Z + 2 * PANEL_HALF[2]
        positions = {
            "stirrer_ring": [*STIRRER, PLATE_Z],
            **{f"{b}_spot": [*beaker_spot(k)[:2], BEAKER_STAND_TOP] for k, b in enumerate(self.beakers, 1)},
            "beaker_size": [2 * BEAKER_RADIUS, 2 * BEAKER_RADIUS, 2 * BEAKER_HALF_HEIGHT],
            "storage_well": [*STORE, TABLE_TOP_Z + 2 * STORE_HALF[2]],
            "storage_well_floor": [TABLE_TOP_Z + 2 * STORE_HALF[2] - STORE_WELL.depth],
            "sleeve": [*SLEEVE, SLEEVE_BASE_Z + 2 * SLEEVE_HALF[2]],
            "electrode_hung_tip": [HUNG_TIP_Z],
            "electrode_handle": [STEM_LENGTH, STEM_LENGTH + HANDLE_LENGTH],
            "burette_tip": list(TIP),
            "stopcock_hinge": [TIP[0], TIP[1], STOPCOCK_Z],
            "stopcock_lever": [LEVER_LENGTH, 2 * PEG_HALF_HEIGHT],
            "key_log": [*LOG_KEY, key_top(top)],
            **windows,
        }
        return published(positions)
