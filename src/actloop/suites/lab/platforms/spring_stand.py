"""The spring stand (Hooke's law): a coil spring on a stand carrying a tray with a pointer, slotted
weights in a rack, and a vertical millimetre ruler beside the pointer.

The spring is close-wound, as a laboratory's extension springs are: its coils press together with an initial
tension F0, so it does not open until the load on it exceeds F0, and beyond that it extends by (load - F0)/k.
In MuJoCo it is the tray's vertical slide joint: the joint's lower limit is the closed-coil stop, at the
instance's unloaded length below the anchor (where the empty tray hangs, its weight below F0), and its
spring (the instance's stiffness, with a reference length F0/k short of the stop) pulls up with
k (q - unloaded length) + F0 once the coils open. The ruler's printed zero sits at its nominal height plus
the instance's hidden offset.

The kit's standard parts (:func:`stand_parts`, :func:`weight_parts`) carry the card's texts; an experiment
names its loads (the weights' printed mass and count are the stand's parameters).
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import InstrumentSpec, ScaleDisplay
from actloop.suites.lab.physics.oscillator import HangingSpring
from actloop.suites.lab.platforms.base import NUMBER_WORDS, Platform, ReadingSite, published
from actloop.suites.lab.spec import Part
from actloop.suites.lab.watch import ContactWatch, carried_by

G = 9.81
ANCHOR = (0.0, 0.10, 1.20)
RULER_X = ANCHOR[0] + 0.07
RULER_BOTTOM_Z = 0.90
RULER_LENGTH_M = 0.30
RULER_HALF_WIDTH = 0.012
RULER_HALF_DEPTH = 0.003
"""The ruler's face: its marks run from its left edge; its front faces the robot."""
POINTER_Y = -0.0045
POINTER_Z = -0.012
"""The pointer runs from the hanger just in front of the ruler's face (as on a real stand), crossing its
marks 18 mm above the tray plate's top, so a level view of it passes over the plate."""
TRAY_HALF = (0.055, 0.04)
TRAY_PLATE_Z = -0.033
TRAY_PLATE_HALF_HEIGHT = 0.003
"""The tray plate's centre below the tray's origin (the spring's end), and its half thickness."""
TRAY_OFFSET_Y = 0.09
"""The tray plate hangs in front of the spring (towards the robot), so nothing is above it."""
WEIGHT_RADIUS = 0.014
WEIGHT_HEIGHT = 0.024
RACK_CENTRE = (0.20, -0.12)
RACK_PITCH = 0.055
WEIGHTS = 5
"""The rack's usual number of weights."""
DAMPING_RATIO = 0.12
"""Of the tray with one weight on the open spring (the empty tray rests on the shut coils): readings need the
tray to come to rest, which takes a few seconds."""
STOP_SOLREF = "0.01 1"
STOP_SOLIMP = "0.999 0.9999 0.001"
"""The closed-coil stop's constraint (time constant and damping ratio; impedance): stiff enough that the
empty tray, pressed up against it by up to F0 - m g, sits within a micrometre of it."""
PX_PER_MM = 4
MARK_CENTRE_M = 0.5 / PX_PER_MM / 1000
"""A printed mark's centre sits half a texel above its texel row's lower edge: the ruler is mounted so the
zero mark's centre, not the ruler's lower edge, is at the printed zero."""
RULER = InstrumentSpec(
    "ruler",
    "mm",
    ScaleDisplay(graduation=1.0, reading_fraction=0.5, min_graduation_px=3.0, style="ruler"),
    refresh_hz=240.0,
)
"""The ruler read at the pointer: 1 mm graduations, read to half a millimetre, legible from 3 px apart."""
TRAY_PLATE = "tray_plate"
"""The geom a load rests on."""


def weight_name(i: int) -> str:
    return f"weight_{i}"


def stand_parts(loads: tuple[Part, ...]) -> tuple[Part, ...]:
    """The stand, its close-wound spring, the tray, the experiment's ``loads`` and the ruler, as the card
    describes them."""
    return (
        Part("stand", "holds the spring and the ruler", restore="fixed"),
        Part(
            "spring",
            "a close-wound coil spring, its coils pressed together until the load it carries exceeds its "
            "initial tension; hangs from the stand and carries the tray",
            restore="fixed",
        ),
        Part(
            "tray",
            "hangs from the spring; weights set on it load the spring; "
            "its pointer marks its height on the ruler",
            restore="any",
        ),
        *loads,
        Part("ruler", "a vertical scale graduated in millimetres beside the pointer", restore="fixed"),
    )


def weight_parts(count: int = WEIGHTS) -> tuple[Part, ...]:
    """``count`` slotted weights of the printed mass, each in its place in the rack, and the rack."""
    return (
        *(
            Part(weight_name(i), "a slotted weight of the printed mass; stands in the rack")
            for i in range(1, count + 1)
        ),
        Part("rack", f"holds the {NUMBER_WORDS[count]} weights", restore="fixed"),
    )


def ruler_texture(
    length_mm: int = int(RULER_LENGTH_M * 1000), px_per_mm: int = PX_PER_MM, font_px: int | None = None
) -> np.ndarray:
    """A printed ruler: a tick every millimetre, longer at 5 and 10 mm, a number every centimetre, in the
    printer's default face (``font_px`` pixels high and spaced a third of that apart, if given)."""
    width, height = 96, length_mm * px_per_mm
    image = Image.new("RGB", (width, height), (236, 230, 196))
    draw = ImageDraw.Draw(image)
    font = None if font_px is None else ImageFont.load_default(size=font_px)
    for mm in range(length_mm + 1):
        y = min(height - 1, height - 1 - mm * px_per_mm)
        size = 34 if mm % 10 == 0 else 22 if mm % 5 == 0 else 12
        draw.line([(0, y), (size, y)], fill=(0, 0, 0), width=1)
        if mm % 10 == 0 and 0 < mm < length_mm:
            if font_px is None:
                draw.text((40, y - 5), str(mm // 10), fill=(0, 0, 0))
                continue
            x = 40.0
            for digit in str(mm // 10):
                draw.text((x, y - font_px // 2 - 1), digit, fill=(0, 0, 0), font=font)
                x += draw.textlength(digit, font=font) + font_px / 3
    return np.asarray(image)


class SpringStand(Platform):
    """The stand of one instance (see the module docstring), with ``weights`` weights in the rack."""

    def __init__(
        self,
        k: float,
        initial_tension: float,
        unloaded_length: float,
        tray_mass: float,
        ruler_offset: float,
        weight_mass: float,
        weights: int = WEIGHTS,
        motion: HangingSpring | None = None,
    ) -> None:
        self.k = k
        self.motion = motion
        """When given, the tray's free motion is this exactly stepped spring (see :meth:`after_step`)."""
        self.state = [0.0, 0.0]
        """The tray's drop below the anchor and its rate while it moves freely (with ``motion``)."""
        self._contacts: ContactWatch | None = None
        self._plate = -1
        self._loads: frozenset[int] = frozenset()
        self._riding: dict[int, float] = {}
        """The weights riding on the freely moving tray: body id -> height of its centre above the tray's
        origin."""
        self.initial_tension = initial_tension
        self.unloaded_length = unloaded_length
        self.tray_mass = tray_mass
        self.ruler_offset = ruler_offset
        self.weight_mass = weight_mass
        self.weights = tuple(weight_name(i) for i in range(1, weights + 1))
        self.tray_joint = -1
        self.tray_dof = -1

    def hanging_length(self, weights: int) -> float:
        """How far below the anchor the tray hangs at rest with ``weights`` weights on it (m): at the
        closed-coil stop while the load is at most the initial tension, else (load - F0)/k below it."""
        load = (self.tray_mass + weights * self.weight_mass) * G
        return self.unloaded_length + max(0.0, load - self.initial_tension) / self.k

    def opens_coils(self, weights: int) -> bool:
        """Whether ``weights`` weights (with the tray) pull harder than the spring's initial tension, so its
        coils open and the tray hangs on the line of slope g / k."""
        return (self.tray_mass + weights * self.weight_mass) * G > self.initial_tension

    @property
    def ruler_zero_z(self) -> float:
        """World height of the ruler's printed zero."""
        return RULER_BOTTOM_Z + self.ruler_offset

    def assets_xml(self) -> str:
        return '<material name="ruler_mat" texture="ruler_tex"/>'

    def textures(self) -> dict[str, np.ndarray]:
        return {"ruler_tex": ruler_texture()}

    def bodies_xml(self) -> str:
        ax, ay, az = ANCHOR
        # joint q is the tray's drop below the anchor. The coils shut at q = unloaded_length (the lower limit,
        # stiff, so the empty tray pressed up against it by F0 - m g sits on it within a micrometre); past it
        # the spring pulls up with k (q - springref) = k (q - unloaded_length) + F0.
        springref = self.unloaded_length - self.initial_tension / self.k
        damping = 2 * DAMPING_RATIO * math.sqrt(self.k * (self.tray_mass + self.weight_mass))
        ruler_half = RULER_LENGTH_M / 2
        bar_half = (TRAY_OFFSET_Y - TRAY_HALF[1]) / 2
        weights = "\n".join(self._weight_xml(i) for i in range(1, len(self.weights) + 1))
        rack_x, rack_y = RACK_CENTRE[0], RACK_CENTRE[1]
        return f"""
<body name="rack" pos="{rack_x} {rack_y} {TABLE_TOP_Z}">
  <geom name="rack_base" type="box" size="{len(self.weights) / 2 * RACK_PITCH:.4f} 0.026 0.0008"
        pos="0 0 0.0008"
        rgba="0.35 0.22 0.12 1" contype="0" conaffinity="0"/>
</body>
<body name="stand" pos="{ax - 0.12} {ay} {TABLE_TOP_Z}">
  <geom name="stand_foot" type="box" size="0.07 0.07 0.01" pos="0 0 0.01" rgba="0.25 0.25 0.28 1"
        {WORLD_GEOM}/>
  <geom name="stand_post" type="cylinder" size="0.012 {(az - TABLE_TOP_Z) / 2:.4f}"
        pos="0 0 {(az - TABLE_TOP_Z) / 2:.4f}" rgba="0.6 0.6 0.62 1" {WORLD_GEOM}/>
  <geom name="stand_arm" type="box" size="0.075 0.008 0.008" pos="0.07 0 {az - TABLE_TOP_Z + 0.008:.4f}"
        rgba="0.6 0.6 0.62 1" {WORLD_GEOM}/>
  <site name="spring_top" pos="0.12 0 {az - TABLE_TOP_Z:.4f}" size="0.004"/>
</body>
<body name="ruler" pos="{RULER_X} {ay} {self.ruler_zero_z - MARK_CENTRE_M + ruler_half:.6f}">
  <geom name="ruler_face" type="box" size="{RULER_HALF_WIDTH} {RULER_HALF_DEPTH} {ruler_half}"
        material="ruler_mat" {WORLD_GEOM}/>
</body>
<body name="tray" pos="{ax} {ay} {az}">
  <joint name="spring" type="slide" axis="0 0 -1" stiffness="{self.k!r}" springref="{springref!r}"
         damping="{damping:.6g}" range="{self.unloaded_length!r} 0.45" limited="true"
         solreflimit="{STOP_SOLREF}" solimplimit="{STOP_SOLIMP}"/>
  <site name="spring_bottom" pos="0 0 -0.005" size="0.004"/>
  <geom name="tray_hanger" type="capsule" fromto="0 0 -0.005 0 0 -0.03" size="0.003"
        rgba="0.55 0.55 0.58 1" contype="0" conaffinity="0" mass="0"/>
  <geom name="tray_bar" type="box" size="0.006 {bar_half:.4f} {TRAY_PLATE_HALF_HEIGHT}"
        pos="0 {-bar_half:.4f} {TRAY_PLATE_Z}"
        rgba="0.55 0.55 0.58 1" mass="0" {WORLD_GEOM}/>
  <geom name="{TRAY_PLATE}" type="box" size="{TRAY_HALF[0]} {TRAY_HALF[1]} {TRAY_PLATE_HALF_HEIGHT}"
        pos="0 {-TRAY_OFFSET_Y} {TRAY_PLATE_Z}" rgba="0.7 0.7 0.72 1" mass="{self.tray_mass!r}" {WORLD_GEOM}/>
  <geom name="tray_pointer" type="box" size="0.033 0.0008 0.0008" pos="0.033 {POINTER_Y:.4f} {POINTER_Z}"
        rgba="0.85 0.1 0.1 1" contype="0" conaffinity="0" mass="0"/>
</body>
{weights}"""

    def rack_position(self, i: int) -> tuple[float, float, float]:
        """Where weight ``i`` stands in the rack (its centre), metres."""
        middle = (len(self.weights) + 1) / 2
        return (RACK_CENTRE[0] + (i - middle) * RACK_PITCH, RACK_CENTRE[1], TABLE_TOP_Z + WEIGHT_HEIGHT / 2)

    def _weight_xml(self, i: int) -> str:
        x, y, z = self.rack_position(i)
        return f"""
<body name="{weight_name(i)}" pos="{x:.4f} {y} {z + 0.0005:.5f}">
  <freejoint name="{weight_name(i)}_free"/>
  <geom name="{weight_name(i)}" type="cylinder" size="{WEIGHT_RADIUS} {WEIGHT_HEIGHT / 2}"
        mass="{self.weight_mass!r}" rgba="0.72 0.6 0.25 1" friction="1 0.005 0.0001" {WORLD_GEOM}/>
</body>"""

    def sections_xml(self) -> str:
        return (
            '<tendon><spatial name="spring_coil" width="0.006" rgba="0.3 0.3 0.32 1">'
            '<site site="spring_top"/><site site="spring_bottom"/></spatial></tendon>'
        )

    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self.tray_joint = int(model.jnt_qposadr[model.joint("spring").id])
        self.tray_dof = int(model.jnt_dofadr[model.joint("spring").id])
        data.qpos[self.tray_joint] = self.hanging_length(0)  # the empty tray starts at rest
        if self.motion is not None:
            self._contacts = ContactWatch(model)
            (self._plate,) = self._contacts.geoms(TRAY_PLATE)
            self._loads = self._contacts.geoms(*self.weights)
            self.state = [self.motion.equilibrium(self.tray_mass), 0.0]
            data.qpos[self.tray_joint] = self.state[0]

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """With ``motion``: while the robot touches neither the tray nor what it carries, the tray moves as
        the exactly stepped spring with the tray and its load hanging on it, written into the tray's joint
        (the weights on it ride with it at the heights they came to rest at, so none bounces); while the
        robot touches them, the engine moves it."""
        if self.motion is None or self._contacts is None:
            return
        carried = carried_by(self._plate, self._loads, self._contacts.links(data))
        if not self._contacts.touched(data).isdisjoint({self._plate, *carried}):
            self.state = [float(data.qpos[self.tray_joint]), float(data.qvel[self.tray_dof])]
            self._riding.clear()
            return
        riders = {int(model.geom_bodyid[g]) for g in carried}
        tray_z = ANCHOR[2] - self.state[0]
        self._riding = {
            body: self._riding.get(body, float(data.xpos[body][2]) - tray_z) for body in riders
        }  # each rider keeps the height above the tray it had when it came to ride
        load = self.tray_mass + len(riders) * self.weight_mass
        x, v = self.motion.step(self.state[0], self.state[1], load)
        self.state = [x, v]
        data.qpos[self.tray_joint] = x
        data.qvel[self.tray_dof] = v
        for body, height in self._riding.items():
            joint = int(model.body_jntadr[body])
            data.qpos[model.jnt_qposadr[joint] + 2] = ANCHOR[2] - x + height
            data.qvel[model.jnt_dofadr[joint] + 2] = -v

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The spring's top; each weight's place in the rack (the centre of its foot on the table); the tray
        plate's centre and the ruler's marked edge and face, across (x, y: their heights hang on the hidden
        spring and ruler mount); and the sizes a hand needs (a weight's diameter and height, the tray plate,
        the pointer's height above the plate's top)."""
        ax, ay, az = ANCHOR
        positions = {
            "spring_top": [ax, ay, az],
            **{
                f"{w}_place": [*self.rack_position(i)[:2], TABLE_TOP_Z] for i, w in enumerate(self.weights, 1)
            },
            "tray_plate": [ax, ay - TRAY_OFFSET_Y],
            "ruler_face": [RULER_X - RULER_HALF_WIDTH, ay - RULER_HALF_DEPTH],
            "weight_size": [2 * WEIGHT_RADIUS, WEIGHT_HEIGHT],
            "tray_plate_size": [2 * h for h in TRAY_HALF],
            "pointer_above_plate": [POINTER_Z - TRAY_PLATE_Z - TRAY_PLATE_HALF_HEIGHT],
        }
        return published(positions)

    # --- instruments ---
    def instruments(self) -> list[InstrumentSpec]:
        return [RULER]

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        return {"ruler": self.pointer_reading_mm(data)}

    def reading_sites(self, data: mujoco.MjData) -> dict[str, ReadingSite]:
        pointer_z = self._pointer_z(float(data.qpos[self.tray_joint]))
        face = np.array(
            [RULER_X - 0.006, ANCHOR[1] - 0.0031, pointer_z]
        )  # the scale's marked edge, front face
        return {"ruler": ReadingSite(face, np.array([0.0, 0.0, 0.001]), ("ruler_face", "tray_pointer"))}

    def pointer_reading_mm(self, data: mujoco.MjData) -> float:
        """Where the pointer stands on the ruler (mm above its printed zero): the true value of a reading."""
        return 1000.0 * (self._pointer_z(float(data.qpos[self.tray_joint])) - self.ruler_zero_z)

    def tray_speed(self, data: mujoco.MjData) -> float:
        """How fast the tray moves up or down (m/s)."""
        return abs(float(data.qvel[self.tray_dof]))

    def resting_reading_mm(self, weights: int) -> float:
        """Where the pointer stands on the ruler (mm) with the tray at rest carrying ``weights`` weights."""
        return 1000.0 * (self._pointer_z(self.hanging_length(weights)) - self.ruler_zero_z)

    @staticmethod
    def _pointer_z(drop: float) -> float:
        """World height of the pointer with the tray ``drop`` below the anchor."""
        return ANCHOR[2] - drop + POINTER_Z
