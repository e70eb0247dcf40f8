"""The expansion rig (#29): a metal rod lying in a water jacket warmed by the thermal bench's heater
controller, its left end against a fixed anchor and its right end pushing the spindle of a dial indicator;
the jacket's thermometer shows on an LCD beside the dial.

Heat (the kit's lumped network, :mod:`..physics.heat`, advanced exactly every :data:`THERMAL_STEPS`
physics steps): the jacket's water is the kit's heated body (the controller's loop holds it a little under
the setpoint); the rod exchanges heat with the water only, through a conductance set by its hidden time
constant, so it lags the thermometer while the water warms and settles at the water's temperature.

The dial reads how far its spindle is pushed in (mm): with the spindle lowered onto the rod, its preload
(hidden) plus the rod's growth ``L α (T_rod − 20 °C)``; with the spindle lifted by the lever on the dial's
top, the lifted stop. The long pointer turns once per :data:`TURN_MM` over 100 graduations; the small
pointer counts its turns. Both are drawn where the reading puts them (mocap bodies in front of the printed
face), so the dial is read from images like a real one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import ClassVar

import mujoco
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import InstrumentSpec, ScaleDisplay
from actloop.suites.lab.platforms.base import ReadingSite, published
from actloop.suites.lab.platforms.display import FACE_DEPTH_M, DisplayFace
from actloop.suites.lab.platforms.thermal_bench import (
    CONTROLLER,
    CONTROLLER_HALF,
    KELVIN,
    ROCKER_PIVOT_M,
    SETPOINT,
    THERMOMETER,
    HeatedBlockBench,
    heater_parts,
    rocker_xml,
    snap_rocker,
)
from actloop.suites.lab.spec import Part

ROD_LENGTH_MM = 600.0
"""The rod's length at 20 degC between the anchor and the spindle (the card's)."""
REFERENCE_C = 20.0
ROD_LEFT_X = -0.48
ROD_RIGHT_X = ROD_LEFT_X + ROD_LENGTH_MM / 1000.0
RIG_Y = 0.04
ROD_Z = TABLE_TOP_Z + 0.15
ROD_RADIUS = 0.006
JACKET_X = (ROD_LEFT_X + 0.03, ROD_RIGHT_X - 0.03)
JACKET_RADIUS = 0.022
LEG_X = (ROD_LEFT_X + 0.08, ROD_RIGHT_X - 0.1)
ROD_CAPACITY = 30.0
"""J/K: the rod's heat capacity (a thin rod; it lags the water by capacity / conductance)."""
FACE_HALF = 0.032
"""Half the width of the dial's printed face (a square plate; the dial is the circle in it)."""
DIAL_RADIUS = 0.029
"""The printed dial's radius on the face."""
GRADUATION_RADIUS = 0.9 * DIAL_RADIUS
"""Where the graduations' spacing is measured (the middle of the tick band)."""
STEM_M = 0.012
DIAL_X = ROD_RIGHT_X + STEM_M + FACE_HALF
BODY_HALF_DEPTH = 0.011
FACE_Y = RIG_Y - BODY_HALF_DEPTH - FACE_DEPTH_M
"""The face's centre plane (its front faces −y, towards the robot)."""
NEEDLE_Y = FACE_Y - FACE_DEPTH_M - 0.0009
COUNTER_Y = FACE_Y - FACE_DEPTH_M - 0.0004
NEEDLE_LENGTH = 0.85 * DIAL_RADIUS
COUNTER_OFFSET = 0.4 * DIAL_RADIUS
"""The counter dial's centre below the dial's."""
COUNTER_RADIUS = 0.22 * DIAL_RADIUS
COUNTER_HAND = 0.8 * COUNTER_RADIUS
TURN_MM = 0.2
GRADUATIONS = 100
COUNTER_TURNS = 10
LIFTED_MM = 1.9
"""What the dial reads with its spindle lifted off the rod."""
BEZEL_RADIUS = 0.034
LEVER_PIVOT_Z = ROD_Z + BEZEL_RADIUS + ROCKER_PIVOT_M
LCD_CASE_HALF = (0.042, 0.012, 0.02)
LCD_AT = (DIAL_X - 0.085, RIG_Y - LCD_CASE_HALF[1] - 0.001, ROD_Z + 0.05)
"""The thermometer's window: left of the dial and above the rod, its case on a post behind the jacket."""
LCD_POST_Y = 0.03
"""The case's post behind its centre (clear of the jacket)."""
FACE_TEXTURE = "dial_tex"
INK = (10, 10, 10)
FACE_PX = 768

DIAL = InstrumentSpec(
    "dial",
    "mm",
    ScaleDisplay(graduation=TURN_MM / GRADUATIONS, reading_fraction=0.5, min_graduation_px=3.0),
    refresh_hz=10.0,
    low=0.0,
    high=COUNTER_TURNS * TURN_MM,
)
"""The dial indicator: graduations of 0.002 mm, a reading counts within half of one."""
FACES = (
    DisplayFace.of("thermometer_lcd", THERMOMETER, 0.066, 0.022),
    DisplayFace.of("setpoint_lcd", SETPOINT, 0.03, 0.02),
)
FACE_CENTRES = {
    "thermometer_lcd": LCD_AT,
    "setpoint_lcd": (CONTROLLER[0], CONTROLLER[1] - CONTROLLER_HALF[1] - 0.001, TABLE_TOP_Z + 0.03),
}


def bench_parts() -> tuple[Part, ...]:
    """Every part of the rig, in the card's order."""
    return (
        Part(
            "rod",
            f"a metal rod, {ROD_LENGTH_MM:g} mm long at {REFERENCE_C:g} degC from the anchor to the dial's "
            "spindle; it lies in the water jacket, its left end against the anchor",
            restore="fixed",
        ),
        Part("anchor", "holds the rod's left end fixed", restore="fixed"),
        Part(
            "jacket",
            "a water jacket around the rod, warmed by the heater; the rod takes up the water's temperature",
            restore="fixed",
        ),
        Part(
            "dial",
            "a dial indicator against the rod's right end: it reads how far its spindle is pushed in, in mm; "
            f"the long pointer turns once per {TURN_MM:g} mm over {GRADUATIONS} graduations of "
            f"{TURN_MM / GRADUATIONS:g} mm (numbered in micrometres), the small pointer counts those turns "
            f"(0 to {COUNTER_TURNS})",
            restore="fixed",
        ),
        Part(
            "lift_lever",
            "a rocker on the dial's top: front half pressed down lowers the spindle onto the rod's end, back "
            "half down lifts it clear (as it starts)",
            restore="place",
        ),
        *heater_parts(),
        Part("thermometer", f"shows the water jacket's temperature in {THERMOMETER.unit}", restore="fixed"),
    )


def dial_texture(size_px: int = FACE_PX) -> np.ndarray:
    """The dial's printed face: 100 graduations (longer every 5 and 10), their numbers in micrometres every
    10, and the counter dial's 10 turns below the centre, on a white disc in a dark square plate."""
    image = Image.new("RGB", (size_px, size_px), (45, 47, 52))
    draw = ImageDraw.Draw(image)
    scale = size_px / (2 * FACE_HALF)
    centre = size_px / 2

    def at(radius_m: float, turn: float, below_m: float = 0.0) -> tuple[float, float]:
        angle = 2 * math.pi * turn
        return centre + radius_m * scale * math.sin(angle), centre + (
            below_m - radius_m * math.cos(angle)
        ) * scale

    r = DIAL_RADIUS * scale
    draw.ellipse([centre - r, centre - r, centre + r, centre + r], fill=(246, 246, 240))
    font = ImageFont.load_default(size=round(0.0036 * scale))
    for g in range(GRADUATIONS):
        inner = 0.80 if g % 10 == 0 else 0.85 if g % 5 == 0 else 0.88
        width = 3 if g % 10 == 0 else 2
        turn = g / GRADUATIONS
        draw.line([at(inner * DIAL_RADIUS, turn), at(0.97 * DIAL_RADIUS, turn)], fill=INK, width=width)
        if g % 10 == 0:
            text = str(round(1000 * TURN_MM * g / GRADUATIONS))
            x, y = at(0.68 * DIAL_RADIUS, g / GRADUATIONS)
            draw.text((x, y), text, fill=INK, font=font, anchor="mm")
    c = COUNTER_RADIUS * scale
    counter_y = centre + COUNTER_OFFSET * scale
    draw.ellipse([centre - c, counter_y - c, centre + c, counter_y + c], outline=INK, width=2)
    small = ImageFont.load_default(size=round(0.0018 * scale))
    for turn in range(COUNTER_TURNS):
        ends = [at(r * COUNTER_RADIUS, turn / COUNTER_TURNS, COUNTER_OFFSET) for r in (0.75, 1.0)]
        draw.line(ends, fill=INK, width=2)
        if turn % 2 == 0:
            x, y = at(1.45 * COUNTER_RADIUS, turn / COUNTER_TURNS, COUNTER_OFFSET)
            draw.text((x, y), str(turn), fill=INK, font=small, anchor="mm")
    label = ImageFont.load_default(size=round(0.0022 * scale))
    draw.text((centre, centre - 0.38 * DIAL_RADIUS * scale), "0.002 mm", fill=INK, font=label, anchor="mm")
    return np.asarray(image)


def _about_minus_y(turns: float) -> tuple[float, float, float, float]:
    """The rotation (w, x, y, z) turning +z clockwise as seen from −y (towards +x) by ``turns``."""
    half = math.pi * turns
    return (math.cos(half), 0.0, math.sin(half), 0.0)


class ExpansionRig(HeatedBlockBench):
    """The expansion rig of one instance (see the module docstring)."""

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        **HeatedBlockBench.drawn_as,
        "dial": ("dial", "dial_needle", "dial_counter_hand"),
        "thermometer": ("thermometer_lcd",),
    }
    face_centres = FACE_CENTRES

    def __init__(self, alpha: float, rod_lag_s: float, preload_mm: float, room_c: float) -> None:
        super().__init__(room_c)
        self.alpha = alpha
        self.preload_mm = preload_mm
        self.network.add_body("rod", ROD_CAPACITY, room_c + KELVIN)
        self.network.set_link("rod", "block", ROD_CAPACITY / rod_lag_s)
        self.lifted = True
        self._drawn_mm = math.nan

    # --- MJCF ---
    def stage_xml(self) -> str:
        z, y = TABLE_TOP_Z, RIG_Y
        leg_half = (ROD_Z - JACKET_RADIUS - z) / 2
        legs = "\n".join(
            f'  <geom name="jacket_leg_{i}" type="box" size="0.012 0.018 {leg_half:.4f}" '
            f'pos="{x} {y} {z + leg_half:.4f}" rgba="0.3 0.3 0.33 1" {WORLD_GEOM}/>'
            for i, x in enumerate(LEG_X)
        )
        anchor_half = (ROD_Z + 0.02 - z) / 2
        return f"""<body name="jacket">
  <geom name="jacket_tube" type="cylinder" fromto="{JACKET_X[0]} {y} {ROD_Z} {JACKET_X[1]} {y} {ROD_Z}"
        size="{JACKET_RADIUS}" rgba="0.55 0.6 0.68 1" {WORLD_GEOM}/>
{legs}
</body>
<body name="rod">
  <geom name="rod" type="cylinder" fromto="{ROD_LEFT_X} {y} {ROD_Z} {ROD_RIGHT_X} {y} {ROD_Z}"
        size="{ROD_RADIUS}" rgba="0.78 0.6 0.35 1" {WORLD_GEOM}/>
</body>
<body name="anchor" pos="{ROD_LEFT_X - 0.012} {y} {z + anchor_half:.4f}">
  <geom name="anchor" type="box" size="0.012 0.025 {anchor_half:.4f}" rgba="0.2 0.2 0.22 1" {WORLD_GEOM}/>
</body>
{self._dial_xml()}"""

    def _dial_xml(self) -> str:
        y, z = RIG_Y, TABLE_TOP_Z
        post_half = (ROD_Z - BEZEL_RADIUS - z) / 2
        lcd_x, _, lcd_z = LCD_AT
        case_y = RIG_Y
        lcd_post_half = (lcd_z - z) / 2
        return f"""<body name="dial" pos="{DIAL_X} {y} {ROD_Z}">
  <geom name="dial_body" type="cylinder" size="{BEZEL_RADIUS} {BODY_HALF_DEPTH}" euler="1.5708 0 0"
        rgba="0.25 0.26 0.3 1" {WORLD_GEOM}/>
  <geom name="dial_face" type="box" size="{FACE_HALF} {FACE_DEPTH_M} {FACE_HALF}"
        pos="0 {FACE_Y - y:.4f} 0" material="dial_mat" contype="0" conaffinity="0" mass="0"/>
  <geom name="dial_stem" type="cylinder" fromto="{ROD_RIGHT_X - DIAL_X} 0 0 {-FACE_HALF} 0 0" size="0.003"
        rgba="0.75 0.75 0.78 1" {WORLD_GEOM}/>
  <geom name="dial_post" type="box" size="0.008 0.008 {post_half:.4f}"
        pos="0 0.02 {-BEZEL_RADIUS - post_half:.4f}" rgba="0.2 0.2 0.22 1" {WORLD_GEOM}/>
</body>
<body name="dial_needle" mocap="true" pos="{DIAL_X} {NEEDLE_Y:.4f} {ROD_Z}">
  <geom name="dial_needle" type="box" size="0.0006 0.0002 {(NEEDLE_LENGTH + 0.004) / 2:.5f}"
        pos="0 0 {(NEEDLE_LENGTH - 0.004) / 2:.5f}" rgba="0.85 0.08 0.08 1" contype="0" conaffinity="0"
        mass="0"/>
  <geom name="dial_hub" type="cylinder" size="0.0022 0.0003" euler="1.5708 0 0" rgba="0.15 0.15 0.15 1"
        contype="0" conaffinity="0" mass="0"/>
</body>
<body name="dial_counter_hand" mocap="true" pos="{DIAL_X} {COUNTER_Y:.4f} {ROD_Z - COUNTER_OFFSET:.5f}">
  <geom name="dial_counter_hand" type="box" size="0.0005 0.0002 {COUNTER_HAND / 2:.5f}"
        pos="0 0 {COUNTER_HAND / 2:.5f}" rgba="0.1 0.2 0.8 1" contype="0" conaffinity="0" mass="0"/>
</body>
{rocker_xml("lift_lever", DIAL_X, y, LEVER_PIVOT_Z)}
<body name="thermometer_case" pos="{lcd_x} {case_y} {lcd_z}">
  <geom name="thermometer_case" type="box" size="{" ".join(map(str, LCD_CASE_HALF))}"
        rgba="0.85 0.84 0.8 1" {WORLD_GEOM}/>
  <geom name="thermometer_bracket" type="box" size="0.006 {LCD_POST_Y / 2} 0.006" pos="0 {LCD_POST_Y / 2} 0"
        rgba="0.2 0.2 0.22 1" {WORLD_GEOM}/>
  <geom name="thermometer_post" type="box" size="0.006 0.006 {lcd_post_half:.4f}"
        pos="0 {LCD_POST_Y} {-lcd_post_half:.4f}" rgba="0.2 0.2 0.22 1" {WORLD_GEOM}/>
</body>"""

    def panel_xml(self) -> str:
        return ""

    def assets_xml(self) -> str:
        return f'{super().assets_xml()}\n<material name="dial_mat" texture="{FACE_TEXTURE}"/>'

    def sections_xml(self) -> str:
        return (
            super()
            .sections_xml()
            .replace("</contact>", '<exclude body1="lift_lever" body2="dial"/></contact>')
        )

    def textures(self) -> dict[str, np.ndarray]:
        return {**super().textures(), FACE_TEXTURE: dial_texture()}

    def faces(self) -> Iterable[DisplayFace]:
        return FACES

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        super().attach(model, data)
        lever = model.joint("lift_lever")
        self._ids["lever_q"] = int(lever.qposadr[0])
        self._ids["lever_v"] = int(lever.dofadr[0])
        self._ids["needle"] = int(model.body("dial_needle").mocapid[0])
        self._ids["counter"] = int(model.body("dial_counter_hand").mocapid[0])
        data.qpos[self._ids["lever_q"]] = -0.2  # lifted: the back half down
        self._drawn_mm = math.nan
        self._draw(data)

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        super().after_step(model, data)
        self.lifted = not snap_rocker(data, self._ids["lever_q"], self._ids["lever_v"])
        self._draw(data)

    def _draw(self, data: mujoco.MjData) -> None:
        """Turn the pointers to the dial's reading (when it has changed)."""
        reading = self.dial_mm()
        if reading == self._drawn_mm:
            return
        self._drawn_mm = reading
        data.mocap_quat[self._ids["needle"]] = _about_minus_y(reading / TURN_MM)
        data.mocap_quat[self._ids["counter"]] = _about_minus_y(reading / (TURN_MM * COUNTER_TURNS))

    def rod_c(self) -> float:
        return self.network.temperature("rod") - KELVIN

    def jacket_c(self) -> float:
        return self.network.temperature("block") - KELVIN

    def dial_mm(self) -> float:
        """What the dial reads: the lifted stop, or the spindle's preload plus the rod's growth."""
        if self.lifted:
            return LIFTED_MM
        return self.preload_mm + ROD_LENGTH_MM * self.alpha * (self.rod_c() - REFERENCE_C)

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The controls (:meth:`HeatedBlockBench.controls_layout`), the lift lever's pivot, the dial's
        centre in the plane of its long pointer, the radius of its graduations, and the counter dial's centre
        in the plane of its pointer and its radius (the dial faces −y, its zero up)."""
        return {
            **self.controls_layout(),
            **published(
                {
                    "lift_lever_pivot": [DIAL_X, RIG_Y, LEVER_PIVOT_Z],
                    "dial_centre": [DIAL_X, NEEDLE_Y, ROD_Z],
                    "dial_graduation_radius": [GRADUATION_RADIUS],
                    "dial_counter_centre": [DIAL_X, COUNTER_Y, ROD_Z - COUNTER_OFFSET],
                    "dial_counter_radius": [COUNTER_RADIUS],
                }
            ),
        }

    def reading_sites(self, data: mujoco.MjData) -> dict[str, ReadingSite]:
        turn = 2 * math.pi * self.dial_mm() / TURN_MM
        radial = np.array([math.sin(turn), 0.0, math.cos(turn)])
        tangent = np.array([math.cos(turn), 0.0, -math.sin(turn)])
        tip = np.array([DIAL_X, NEEDLE_Y, ROD_Z]) + NEEDLE_LENGTH * radial
        step = 2 * math.pi * GRADUATION_RADIUS / GRADUATIONS
        return {
            **super().reading_sites(data),
            DIAL.name: ReadingSite(tip, step * tangent, ("dial_face", "dial_needle")),
        }

    # --- instruments ---
    def instruments(self) -> list[InstrumentSpec]:
        return [THERMOMETER, DIAL, SETPOINT]

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        return {
            THERMOMETER.name: self.jacket_c(),
            DIAL.name: self.dial_mm(),
            SETPOINT.name: self.setpoint,
        }
