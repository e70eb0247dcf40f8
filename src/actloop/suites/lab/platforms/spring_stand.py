"""The spring stand (Hooke's law): a coil spring on a stand carrying a tray with a pointer, slotted
weights in a rack, and a vertical millimetre ruler beside the pointer.

The spring is close-wound, as a laboratory's extension springs are: its coils press together with an initial
tension F0, so it does not open until the load on it exceeds F0, and beyond that it extends by (load - F0)/k.
In MuJoCo it is the tray's vertical slide joint: the joint's lower limit is the closed-coil stop, at the
instance's unloaded length below the anchor (where the empty tray hangs, its weight below F0), and its
spring (the instance's stiffness, with a reference length F0/k short of the stop) pulls up with
k (q - unloaded length) + F0 once the coils open. The ruler's printed zero sits at its nominal height plus
the instance's hidden offset.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import InstrumentSpec, ScaleDisplay
from actloop.suites.lab.platforms.base import Platform, ReadingSite

G = 9.81
ANCHOR = (0.0, 0.10, 1.20)
RULER_X = ANCHOR[0] + 0.07
RULER_BOTTOM_Z = 0.90
RULER_LENGTH_M = 0.30
POINTER_Y = -0.0045
POINTER_Z = -0.012
"""The pointer runs from the hanger just in front of the ruler's face (as on a real stand), crossing its
marks 18 mm above the tray plate's top, so a level view of it passes over the plate."""
TRAY_HALF = (0.055, 0.04)
TRAY_OFFSET_Y = 0.09
"""The tray plate hangs in front of the spring (towards the robot), so nothing is above it."""
WEIGHT_RADIUS = 0.014
WEIGHT_HEIGHT = 0.024
RACK_CENTRE = (0.20, -0.12)
RACK_PITCH = 0.055
WEIGHTS = 5
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
    """The apparatus of one Hooke's-law instance (see the module docstring)."""

    def __init__(
        self,
        k: float,
        initial_tension: float,
        unloaded_length: float,
        tray_mass: float,
        ruler_offset: float,
        weight_mass: float,
    ) -> None:
        self.k = k
        self.initial_tension = initial_tension
        self.unloaded_length = unloaded_length
        self.tray_mass = tray_mass
        self.ruler_offset = ruler_offset
        self.weight_mass = weight_mass
        self.tray_joint = -1

    def hanging_length(self, weights: int) -> float:
        """How far below the anchor the tray hangs at rest with ``weights`` weights on it (m): at the
        closed-coil stop while the load is at most the initial tension, else (load - F0)/k below it."""
        load = (self.tray_mass + weights * self.weight_mass) * G
        return self.unloaded_length + max(0.0, load - self.initial_tension) / self.k

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
        weights = "\n".join(self._weight_xml(i) for i in range(1, WEIGHTS + 1))
        rack_x, rack_y = RACK_CENTRE[0], RACK_CENTRE[1]
        return f"""
<body name="rack" pos="{rack_x} {rack_y} {TABLE_TOP_Z}">
  <geom name="rack_base" type="box" size="{2.5 * RACK_PITCH:.4f} 0.026 0.0008" pos="0 0 0.0008"
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
  <geom name="ruler_face" type="box" size="0.012 0.003 {ruler_half}" material="ruler_mat" {WORLD_GEOM}/>
</body>
<body name="tray" pos="{ax} {ay} {az}">
  <joint name="spring" type="slide" axis="0 0 -1" stiffness="{self.k!r}" springref="{springref!r}"
         damping="{damping:.6g}" range="{self.unloaded_length!r} 0.45" limited="true"
         solreflimit="{STOP_SOLREF}" solimplimit="{STOP_SOLIMP}"/>
  <site name="spring_bottom" pos="0 0 -0.005" size="0.004"/>
  <geom name="tray_hanger" type="capsule" fromto="0 0 -0.005 0 0 -0.03" size="0.003"
        rgba="0.55 0.55 0.58 1" contype="0" conaffinity="0" mass="0"/>
  <geom name="tray_bar" type="box" size="0.006 {bar_half:.4f} 0.003" pos="0 {-bar_half:.4f} -0.033"
        rgba="0.55 0.55 0.58 1" mass="0" {WORLD_GEOM}/>
  <geom name="tray_plate" type="box" size="{TRAY_HALF[0]} {TRAY_HALF[1]} 0.003"
        pos="0 {-TRAY_OFFSET_Y} -0.033" rgba="0.7 0.7 0.72 1" mass="{self.tray_mass!r}" {WORLD_GEOM}/>
  <geom name="tray_pointer" type="box" size="0.033 0.0008 0.0008" pos="0.033 {POINTER_Y:.4f} {POINTER_Z}"
        rgba="0.85 0.1 0.1 1" contype="0" conaffinity="0" mass="0"/>
</body>
{weights}"""

    @staticmethod
    def rack_position(i: int) -> tuple[float, float, float]:
        """Where weight ``i`` stands in the rack (its centre), metres."""
        return (RACK_CENTRE[0] + (i - 3) * RACK_PITCH, RACK_CENTRE[1], TABLE_TOP_Z + WEIGHT_HEIGHT / 2)

    def _weight_xml(self, i: int) -> str:
        x, y, z = self.rack_position(i)
        return f"""
<body name="weight_{i}" pos="{x:.4f} {y} {z + 0.0005:.5f}">
  <freejoint name="weight_{i}_free"/>
  <geom name="weight_{i}" type="cylinder" size="{WEIGHT_RADIUS} {WEIGHT_HEIGHT / 2}"
        mass="{self.weight_mass!r}" rgba="0.72 0.6 0.25 1" friction="1 0.005 0.0001" {WORLD_GEOM}/>
</body>"""

    def sections_xml(self) -> str:
        return (
            '<tendon><spatial name="spring_coil" width="0.006" rgba="0.3 0.3 0.32 1">'
            '<site site="spring_top"/><site site="spring_bottom"/></spatial></tendon>'
        )

    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self.tray_joint = int(model.jnt_qposadr[model.joint("spring").id])
        data.qpos[self.tray_joint] = self.hanging_length(0)  # the empty tray starts at rest

    def instruments(self) -> list[InstrumentSpec]:
        return [RULER]

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        return {"ruler": self.pointer_reading_mm(data)}

    def reading_sites(self, data: mujoco.MjData) -> dict[str, ReadingSite]:
        pointer_z = ANCHOR[2] - float(data.qpos[self.tray_joint]) + POINTER_Z
        face = np.array(
            [RULER_X - 0.006, ANCHOR[1] - 0.0031, pointer_z]
        )  # the scale's marked edge, front face
        return {"ruler": ReadingSite(face, np.array([0.0, 0.0, 0.001]), ("ruler_face", "tray_pointer"))}

    def pointer_reading_mm(self, data: mujoco.MjData) -> float:
        """Where the pointer stands on the ruler (mm above its printed zero): the true value of a reading."""
        pointer_z = ANCHOR[2] - float(data.qpos[self.tray_joint]) + POINTER_Z
        return 1000.0 * (pointer_z - self.ruler_zero_z)
