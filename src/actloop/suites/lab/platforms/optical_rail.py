"""The optical rail: a raised rail along x with a printed millimetre scale, a lamp housing with an
illuminated slide (the object) at its left end, carriages sliding on the rail (each a slide joint held by
friction, with a red index mark hanging over the scale), holders that items (lenses, glass blocks) are
seated in (each holder takes items of one size), the items' stands in front of the rail, and a translucent
screen on its own carriage.

The image on the screen comes from the paraxial model (:mod:`physics.optics`): every lens seated in a
carriage's holder is a thin lens at its principal plane, every glass block a plate; the screen's texture is
redrawn before each frame from the model's state after the last physics step, the slide's pattern scaled by
the chief-ray magnification, blurred by the blur circle and dimmed as the illuminance falls with the
magnification. A lens counts as seated while it stands upright in a holder's slot, and then its frame's centre
is over the holder's index mark (the slot's clearance only lets it in). A lens's principal plane (its two
coincide: the lens is thin against the distances on the rail) sits its own distance from the frame's centre
towards the screen, as it does in a real mount, where the glass's optical centre is not marked: object and
image distances measured from the index mark are off by that distance, one longer and the other shorter. A
holder carriage is moved by a grip block in front of the rail.

Readings are the positions of the index marks on the scale (the slide's plane for the lamp, the holder's
centre for a lens carriage, the screen's plane for the screen carriage), in millimetres from the scale's
printed zero, which sits at its nominal place plus the instance's hidden offset.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import mujoco
import numpy as np
from scipy.ndimage import gaussian_filter

from actloop.sim.scene import TABLE_TOP_Z, WORLD_GEOM
from actloop.suites.lab.instruments import InstrumentSpec, ScaleDisplay, Shown
from actloop.suites.lab.physics.optics import Diffracting, Element, Grating, Plate, Rail, Slit, ThinLens
from actloop.suites.lab.platforms.base import Platform, ReadingSite, published
from actloop.suites.lab.platforms.spring_stand import MARK_CENTRE_M, ruler_texture
from actloop.suites.lab.spec import Part

RAIL_Y = 0.0
RAIL_TOP = TABLE_TOP_Z + 0.16
"""The rail stands on two narrow feet at its ends, high enough that a hand can sit under the level of its
scale while the wrist camera above it reads the scale."""
RAIL_HALF_Y = 0.02
RAIL_X = (-0.31, 0.40)
SCALE_NOMINAL_ZERO_X = -0.30
SCALE_LENGTH_MM = 690
SCALE_FONT_PX = 12
"""The scale's numbers are printed larger than a stand ruler's: it is read from a little farther away."""
SCALE_FACE_Y = RAIL_Y - RAIL_HALF_Y - 0.003
"""The scale's printed face (a strip on the rail's front, its marks hanging from its top edge)."""
SCALE_EDGE_Z = RAIL_TOP - 0.002
AXIS_Z = RAIL_TOP + 0.17
"""Height of the optical axis: the slide's centre, a seated lens's centre, the screen's centre (high
enough that a hand holding the screen's post keeps its wrist clear of the rail)."""
OBJECT_X = -0.25
"""The slide's plane (the lamp housing is fixed to the rail)."""
POINTER_Y = SCALE_FACE_Y - 0.0025
LENS_HALF = (0.003, 0.025, 0.025)
"""A lens's frame (half sizes): 6 mm thick along the rail, 50 mm square."""
LENS_APERTURE = 0.036
STEM_HALF = (0.01, 0.014, 0.012)
"""The grip on top of a lens's frame: a block thick enough for fingers closing on it to squeeze it
firmly."""
SLOT_CLEARANCE = 0.001
WALL_HALF_X = 0.002
BLOCK_HALF_YZ = 0.02
"""A glass block's cross-section (half sizes across the rail and up): 40 mm square."""
STAND_Y = -0.10
STAND_FLOOR_Z = 0.80
KNOB_Y = RAIL_Y - 0.07
KNOB_HALF = (0.01, 0.008, 0.02)
"""A holder carriage's grip: a block in front of the rail above the scale, reached from above without
passing over the rail."""
SCREEN_HALF = 0.035
SCREEN_POST_X = 0.04
SCREEN_POST_TOP = 0.10
"""The screen carriage's grip: a square post 40 mm behind the screen, below the screen's lower edge, so a
hand holding it from behind has its wrist camera level with the screen's centre."""
SCREEN_PX = 512
SUPERSAMPLE = 2
ANTIALIAS_PX = 0.7
"""The screen's image is drawn at 2 × 2 points per pixel, blurred by at least ANTIALIAS_PX pixels (σ) and
averaged over each pixel's area: its sharp edges do not alias, so its contrast changes smoothly (not by
the pixel phase of each edge) as the image's scale changes."""
SLIDE_HALF = 0.016
SLIDE_SQUARE = 0.0025
SLIDE_PX = 128
CARRIAGE_FRICTION_N = 0.6
SEAT_TOLERANCE = (0.0015, 0.020, 0.003)
SEAT_TILT_RAD = 0.08
"""A lens is seated in a slot (a holder's or its stand's) while its centre is within SEAT_TOLERANCE of the
slot's seat (x, y, z; anywhere along the slot with its centre over the floor) and it leans less than
SEAT_TILT_RAD."""
AMBIENT = 0.35
"""The screen's exposure from the room and stray lamp light."""
EXPOSURE = 0.8
"""A screen exposed to E shows 1 − exp(−E / EXPOSURE) of full white: brighter as the illuminance grows,
saturating smoothly (a hard clip would give the image sharp edges of its own)."""
UNIT_ILLUMINANCE = math.pi * ThinLens(0.0, 0.1, LENS_APERTURE).transmission * (LENS_APERTURE / 0.4) ** 2
"""The illuminance π τ u'² (for unit luminance) of one lens imaging at unit magnification 0.2 m from it;
the image is drawn at 80 % of full white there, brighter or dimmer as the illuminance changes."""

INDEX = ScaleDisplay(graduation=1.0, reading_fraction=0.5, min_graduation_px=3.0, style="ruler")
"""The rail's scale read at an index mark: 1 mm graduations, read to half a millimetre."""
FOCUS_BLUR_M = 0.0005
"""An image is in focus while its blur circle is at most 0.5 mm across: about two pixels of a camera 14 cm
from the screen, to which the slide's 2.5 mm squares then look sharp-edged."""


def rail_parts() -> tuple[Part, ...]:
    """The rail, its scale and the lamp with its slide, as the card describes them."""
    return (
        Part("rail", "a rail along the bench carrying the lamp and the carriages", restore="fixed"),
        Part(
            "scale",
            "a millimetre scale printed along the rail's front, read under each red index mark: its zero "
            "(not numbered) is near the rail's left (lamp) end, and it counts to the right; a longer tick "
            "every 5 mm and a number every 10 mm that counts centimetres (the tick numbered 12 is 120 mm); "
            "readings are cited in mm",
            restore="fixed",
        ),
        Part(
            "lamp",
            "a lamp housing fixed at the rail's left end lighting a slide (the object); its index mark "
            "(object_index) is under the slide's plane",
            restore="fixed",
        ),
    )


def carriage_parts(lens: str = "lens") -> tuple[Part, ...]:
    """The stand of ``lens``, the lens carriage and the screen carriage, as the card describes them."""
    return (
        Part(f"{lens}_stand", f"holds the {lens} beside the right end of the rail", restore="fixed"),
        Part(
            "lens_carriage",
            "slides on the rail, pushed or pulled by the grip block in front of it; a lens set in its holder "
            "is seated with its frame's centre on the optical axis above the index mark (lens_index)",
            restore="any",
        ),
        Part(
            "screen_carriage",
            "slides on the rail, pushed or pulled by the post behind its screen; the translucent screen "
            "shows the image from either side; its index mark (screen_index) is under the screen's plane",
            restore="any",
        ),
    )


def focus_rule() -> str:
    """The card's rule saying what "in focus" means for scoring."""
    return (
        f"In focus means, for scoring, that the blur circle on the screen (the patch one point of the slide "
        f"lights) is at most {1000 * FOCUS_BLUR_M:g} mm across. A screen a distance d from the sharp "
        f"image, which lies a distance v behind the lens, has a blur circle of {1000 * LENS_APERTURE:g} mm "
        f"(the lens's clear aperture) times d / v; a pattern that merely looks sharpest to a contrast or "
        f"gradient measure may lie outside that bound."
    )


def holder_floor(slot: tuple[float, float, float]) -> float:
    """A holder's floor above the rail top for items of half sizes ``slot``: a seated item's centre is on
    the axis."""
    return AXIS_Z - slot[2] - RAIL_TOP


@dataclass(frozen=True)
class Carriage:
    """A carriage on the rail: its name (its index instrument is ``<name>_index``), where it starts (world
    x of its index) and the half sizes of the items its holder takes (None for the screen carriage, which
    carries the screen)."""

    name: str
    start_x: float
    slot: tuple[float, float, float] | None = LENS_HALF


@dataclass(frozen=True, kw_only=True)
class Item:
    """Something that starts upright in its own stand beside the rail and acts on the light once seated in a
    carriage's holder of its size: its name, the stand's x, and where its optical plane lies from its
    frame's centre along the rail, towards the screen (m)."""

    name: str
    stand_x: float
    principal_offset: float = 0.0

    @property
    def half(self) -> tuple[float, float, float]:
        """The frame's half sizes (along the rail, across it, up)."""
        return LENS_HALF

    def element(self, plane: float) -> Element | Diffracting:
        """The optical element it is with its optical plane at world x ``plane``."""
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class Lens(Item):
    """A thin converging lens of focal length (m) in a square frame."""

    focal_length: float

    def element(self, plane: float) -> Element:
        return ThinLens(plane, self.focal_length, LENS_APERTURE)


@dataclass(frozen=True, kw_only=True)
class Block(Item):
    """A plane-parallel glass block of thickness (m) and refractive index along the rail; its optical
    plane is its centre."""

    thickness: float
    index: float

    @property
    def half(self) -> tuple[float, float, float]:
        return (self.thickness / 2, BLOCK_HALF_YZ, BLOCK_HALF_YZ)

    def element(self, plane: float) -> Element:
        return Plate(plane - self.thickness / 2, self.thickness, self.index)


SCREEN = Carriage("screen", 0.25, slot=None)


def slide_pattern(px: int = SLIDE_PX) -> np.ndarray:
    """The slide's transmission (0 dark to 1 clear) over ±SLIDE_HALF: a checkerboard with a clear arrow."""
    x = (np.arange(px) + 0.5) / px * 2 * SLIDE_HALF - SLIDE_HALF
    return _pattern(x[None, :], -x[:, None])


def _pattern(y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Transmission of the slide at (y, z) from its centre (m): outside the slide the housing is dark."""
    inside = (np.abs(y) < SLIDE_HALF - 0.002) & (np.abs(z) < SLIDE_HALF - 0.002)
    checks = (np.floor(y / SLIDE_SQUARE) + np.floor(z / SLIDE_SQUARE)) % 2 == 0
    arrow = (np.abs(y) < 0.0015) & (z > -0.008) & (z < 0.006) | (z >= 0.006) & (np.abs(y) < 0.011 - z)
    return np.where(inside, np.where(arrow & (z < 0.011), 1.0, np.where(checks, 0.85, 0.15)), 0.0)


def screen_image(rail: Rail | None, px: int = SCREEN_PX) -> np.ndarray:
    """What the screen shows (RGB uint8, seen from its front, +y to the right, up at the top): the slide's
    image through the seated lenses, or only the ambient light when no lens forms one.

    The blur is Gaussian with the blur circle's second moment (σ = diameter / 4): unlike a uniform disc,
    whose spectrum changes sign, it lowers the contrast of every spatial frequency monotonically as the
    blur circle grows, so no pattern sharpens again away from the image plane; an anti-aliasing blur and
    area sampling (SUPERSAMPLE) keep the pixels from adding contrast of their own."""
    brightness = np.full((px, px), AMBIENT)
    if rail is not None and math.isfinite(rail.blur_diameter()) and rail.screen_scale() != 0.0:
        fine = px * SUPERSAMPLE
        pitch = 2 * SCREEN_HALF / fine
        scale = rail.screen_scale()
        gain = 0.8 * rail.illuminance(1.0) / UNIT_ILLUMINANCE
        sigma = math.hypot(min(rail.blur_diameter() / 4 / pitch, fine / 2), ANTIALIAS_PX * SUPERSAMPLE)
        margin = SUPERSAMPLE * (math.ceil(4 * sigma / SUPERSAMPLE) + 1)
        n = fine + 2 * margin
        coords = ((np.arange(n) + 0.5) - n / 2) * pitch
        image = _pattern(coords[None, :] / scale, -coords[:, None] / scale)
        image = gaussian_filter(image, sigma, mode="nearest", truncate=4.0)[margin:-margin, margin:-margin]
        pixels = image.reshape(px, SUPERSAMPLE, px, SUPERSAMPLE).mean(axis=(1, 3))  # each pixel's area
        brightness = brightness + gain * pixels
    level = 1.0 - np.exp(-brightness / EXPOSURE)  # saturates smoothly, like film
    rgb = np.stack([level * 250, level * 248, level * 235], axis=-1)
    return rgb.astype(np.uint8)


def _cradle_xml(prefix: str, z: float, slot: tuple[float, float, float]) -> str:
    """A holder whose floor's top is at height ``z`` in its body: a slot across the rail, open at the top
    and at its ends, 2 mm wider than the frames of half sizes ``slot``."""
    gap = slot[0] + SLOT_CLEARANCE + WALL_HALF_X
    half_y = slot[1] + 0.004
    colour = 'rgba="0.3 0.3 0.33 1"'
    return f"""
  <geom name="{prefix}_floor" type="box" size="{gap + WALL_HALF_X:.4f} {half_y} 0.003"
        pos="0 0 {z - 0.003:.4f}" {colour} {WORLD_GEOM}/>
  <geom name="{prefix}_wall_a" type="box" size="{WALL_HALF_X} {half_y} 0.01" pos="{-gap:.4f} 0 {z + 0.01:.4f}"
        {colour} {WORLD_GEOM}/>
  <geom name="{prefix}_wall_b" type="box" size="{WALL_HALF_X} {half_y} 0.01" pos="{gap:.4f} 0 {z + 0.01:.4f}"
        {colour} {WORLD_GEOM}/>"""


def pointer_xml(name: str, x: float, z_top: float) -> str:
    """A red index mark at ``x`` (in its body) hanging from ``z_top`` over the scale's marks."""
    half = (z_top - (SCALE_EDGE_Z - RAIL_TOP - 0.008)) / 2
    return (
        f'<geom name="{name}_pointer" type="box" size="0.0006 0.0006 {half:.4f}" '
        f'pos="{x} {POINTER_Y - RAIL_Y:.4f} {z_top - half:.4f}" rgba="0.85 0.1 0.1 1" contype="0" '
        f'conaffinity="0" mass="0"/>'
    )


class OpticalRail(Platform):
    """The optical rail of one instance (see the module docstring): the lamp and its slide, ``items``
    (lenses, glass blocks) in their stands, ``carriages`` with holders, and the screen carriage."""

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        "scale": ("rail_scale",),
        "lens": ("lens_frame", "lens_glass", "lens_stem"),
    }
    screen_half: ClassVar[tuple[float, float]] = (SCREEN_HALF, SCREEN_HALF)
    """The screen face's half width (across the rail) and half height."""

    def __init__(self, items: tuple[Item, ...], carriages: tuple[Carriage, ...], scale_offset: float) -> None:
        self.items = items
        self.carriages = carriages
        self.sliders = (*carriages, SCREEN)
        """Every carriage on the rail, the screen's last."""
        self.scale_offset = scale_offset
        self.rail: Rail | None = None
        """The imaging optics of the bench after the last physics step (None before the first)."""
        self.diffracting: tuple[Diffracting, ...] = ()
        """The gratings and slits seated after the last physics step."""
        self.seats: dict[str, str | None] = {item.name: None for item in items}
        """The carriage each item is seated in after the last physics step."""
        self._joints: dict[str, int] = {}
        self._item_joints: dict[str, int] = {}

    @property
    def scale_zero_x(self) -> float:
        """World x of the scale's printed zero."""
        return SCALE_NOMINAL_ZERO_X + self.scale_offset

    @staticmethod
    def stand_seat(item: Item) -> tuple[float, float, float]:
        """Where an item's centre stands when it is seated in its stand."""
        return (item.stand_x, STAND_Y, STAND_FLOOR_Z + item.half[2])

    # --- scene ---
    def assets_xml(self) -> str:
        return (
            '<material name="rail_scale_mat" texture="rail_scale_tex"/>'
            '<material name="slide_mat" texture="slide_tex" emission="1"/>'
            '<material name="screen_mat" texture="screen_tex" emission="1"/>'
        )

    def textures(self) -> dict[str, np.ndarray]:
        slide = (np.clip(slide_pattern(), 0.0, 1.0) * 235 + 20).astype(np.uint8)
        return {
            "rail_scale_tex": ruler_texture(SCALE_LENGTH_MM, font_px=SCALE_FONT_PX),
            "slide_tex": np.stack([slide, slide, (slide * 0.9).astype(np.uint8)], axis=-1),
            "screen_tex": screen_image(None),
        }

    def redraw(self, shown: Callable[[str], Shown | None]) -> dict[str, np.ndarray]:
        return {"screen_tex": screen_image(self.rail)}

    def bodies_xml(self) -> str:
        x0, x1 = RAIL_X
        half_len = SCALE_LENGTH_MM / 2000
        scale_x = self.scale_zero_x - MARK_CENTRE_M + half_len
        foot = (RAIL_TOP - 0.04 - TABLE_TOP_Z) / 2
        feet = "\n".join(
            f'<geom name="rail_foot_{i}" type="box" size="0.015 0.012 {foot:.4f}" '
            f'pos="{x:.3f} {RAIL_Y} {TABLE_TOP_Z + foot:.4f}" rgba="0.25 0.25 0.28 1" {WORLD_GEOM}/>'
            for i, x in enumerate((x0 + 0.02, x1 - 0.02))
        )
        carriages = "\n".join(self._carriage_xml(c) for c in self.sliders)
        items = "\n".join(self._item_xml(item) for item in self.items)
        return f"""
<body name="rail" pos="0 0 0">
  {feet}
  <geom name="rail_bar" type="box" size="{(x1 - x0) / 2:.4f} {RAIL_HALF_Y} 0.02"
        pos="{(x0 + x1) / 2:.4f} {RAIL_Y} {RAIL_TOP - 0.02:.4f}" rgba="0.55 0.56 0.6 1" {WORLD_GEOM}/>
</body>
<body name="rail_scale" pos="{scale_x:.6f} {SCALE_FACE_Y + 0.0015:.4f} {SCALE_EDGE_Z - 0.012:.4f}"
      quat="0.70710678 0 0.70710678 0">
  <geom name="rail_scale_face" type="box" size="0.012 0.0015 {half_len}" material="rail_scale_mat"
        {WORLD_GEOM}/>
</body>
{self._source_xml()}
{carriages}
{items}"""

    def _source_xml(self) -> str:
        """The lamp housing fixed to the rail with the slide (the object) at its right face."""
        lamp_half = 0.03
        return f"""
<body name="lamp" pos="{OBJECT_X} {RAIL_Y} {RAIL_TOP}">
  <geom name="lamp_base" type="box" size="0.03 0.03 0.01" pos="-0.02 0 0.01" rgba="0.25 0.25 0.28 1"
        {WORLD_GEOM}/>
  <geom name="lamp_post" type="cylinder" size="0.008 {(AXIS_Z - RAIL_TOP - lamp_half) / 2:.4f}"
        pos="-0.03 0 {(AXIS_Z - RAIL_TOP - lamp_half) / 2:.4f}" rgba="0.6 0.6 0.62 1" {WORLD_GEOM}/>
  <geom name="lamp_housing" type="box" size="{lamp_half} {lamp_half} {lamp_half}"
        pos="{-lamp_half - 0.001} 0 {AXIS_Z - RAIL_TOP}" rgba="0.2 0.22 0.3 1" {WORLD_GEOM}/>
  <geom name="lamp_slide" type="box" size="0.0005 {SLIDE_HALF} {SLIDE_HALF}"
        pos="-0.0005 0 {AXIS_Z - RAIL_TOP}" material="slide_mat" contype="0" conaffinity="0"/>
  <geom name="lamp_bracket" type="box" size="0.0015 0.003 0.003"
        pos="0 {POINTER_Y - RAIL_Y + 0.0035:.4f} 0.003" rgba="0.25 0.25 0.28 1" contype="0" conaffinity="0"/>
  {pointer_xml("object", 0.0, 0.006)}
</body>"""

    def _screen_xml(self) -> str:
        """The screen's face on the axis, the post behind it that a hand holds and its foot."""
        return f"""{self._screen_face_xml()}
  <geom name="screen_post" type="box" size="0.012 0.012 {(SCREEN_POST_TOP - 0.02) / 2:.4f}"
        pos="{SCREEN_POST_X} 0 {(SCREEN_POST_TOP + 0.02) / 2:.4f}" rgba="0.35 0.35 0.4 1" {WORLD_GEOM}/>
  <geom name="screen_foot" type="box" size="{SCREEN_POST_X / 2 + 0.006:.4f} 0.01 0.004"
        pos="{SCREEN_POST_X / 2} 0 0.016" rgba="0.35 0.35 0.4 1" {WORLD_GEOM}/>"""

    def _screen_face_xml(self) -> str:
        half_y, half_z = self.screen_half
        return f"""
  <geom name="screen_face" type="box" size="0.0015 {half_y} {half_z}" pos="0 0 {AXIS_Z - RAIL_TOP}"
        material="screen_mat" {WORLD_GEOM}/>"""

    def _carriage_xml(self, carriage: Carriage) -> str:
        x0, x1 = RAIL_X
        name = carriage.name
        if carriage.slot is not None:
            floor = holder_floor(carriage.slot)
            top = floor - 0.006
            carried = (
                _cradle_xml(f"{name}_holder", floor, carriage.slot)
                + f"""
  <geom name="{name}_arm" type="box" size="0.006 {(RAIL_Y - KNOB_Y - 0.027) / 2:.4f} 0.005"
        pos="0 {(KNOB_Y - RAIL_Y - 0.027) / 2:.4f} 0.015" rgba="0.4 0.4 0.45 1" {WORLD_GEOM}/>
  <geom name="{name}_knob" type="box" size="{KNOB_HALF[0]} {KNOB_HALF[1]} {KNOB_HALF[2]}"
        pos="0 {KNOB_Y - RAIL_Y:.4f} {KNOB_HALF[2] + 0.01:.4f}" rgba="0.3 0.3 0.35 1" {WORLD_GEOM}/>"""
            )
        else:
            top = AXIS_Z - RAIL_TOP - self.screen_half[1]
            carried = self._screen_xml()
        return f"""
<body name="{name}_carriage" pos="{carriage.start_x} {RAIL_Y} {RAIL_TOP}">
  <joint name="{name}_slide" type="slide" axis="1 0 0" frictionloss="{CARRIAGE_FRICTION_N}" damping="5"
         armature="0.2" range="{x0 + 0.09 - carriage.start_x:.4f} {x1 - 0.03 - carriage.start_x:.4f}"
         limited="true"/>
  <geom name="{name}_base" type="box" size="0.018 0.027 0.01" pos="0 0 0.01" mass="0.3"
        rgba="0.4 0.4 0.45 1" {WORLD_GEOM}/>
  <geom name="{name}_rod" type="cylinder" size="0.006 {(top - 0.02) / 2:.4f}" pos="0 0 {(top + 0.02) / 2:.4f}"
        rgba="0.6 0.6 0.62 1" mass="0.05" {WORLD_GEOM}/>
  {carried}
  {pointer_xml(name, 0.0, 0.0)}
</body>"""

    def _item_xml(self, item: Item) -> str:
        x, y, z = self.stand_seat(item)
        name, (hx, hy, hz) = item.name, item.half
        stand_half = (STAND_FLOOR_Z - 0.006 - TABLE_TOP_Z) / 2
        if isinstance(item, Lens):
            body = f"""
  <geom name="{name}_frame" type="box" size="{hx} {hy} {hz}" mass="0.03" rgba="0.15 0.17 0.2 1"
        friction="1 0.005 0.0001" {WORLD_GEOM}/>
  <geom name="{name}_glass" type="cylinder" size="{LENS_APERTURE / 2} {hx + 0.0003}" zaxis="1 0 0"
        rgba="0.7 0.85 0.95 0.6" contype="0" conaffinity="0" mass="0"/>"""
        else:
            body = f"""
  <geom name="{name}_glass" type="box" size="{hx:.4f} {hy} {hz}" mass="0.1" rgba="0.75 0.88 0.95 0.55"
        friction="1 0.005 0.0001" {WORLD_GEOM}/>"""
        return f"""
<body name="{name}_stand" pos="{x} {y} 0">
  <geom name="{name}_stand_block" type="box" size="{max(0.02, hx + 0.006):.4f} 0.035 {stand_half:.4f}"
        pos="0 0 {TABLE_TOP_Z + stand_half:.4f}" rgba="0.3 0.3 0.33 1" {WORLD_GEOM}/>
  {_cradle_xml(f"{name}_stand", STAND_FLOOR_Z, item.half)}
</body>
<body name="{name}" pos="{x} {y} {z + 0.0005:.4f}">
  <freejoint name="{name}_free"/>
  {body}
  <geom name="{name}_stem" type="box" size="{STEM_HALF[0]} {STEM_HALF[1]} {STEM_HALF[2]}"
        pos="0 0 {hz + STEM_HALF[2]:.4f}" mass="0.005" rgba="0.15 0.17 0.2 1"
        friction="1 0.005 0.0001" {WORLD_GEOM}/>
</body>"""

    def sections_xml(self) -> str:
        pairs = [f'<exclude body1="rail" body2="{c.name}_carriage"/>' for c in self.sliders]
        return "<contact>" + "".join(pairs) + "</contact>"

    # --- state ---
    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self._joints = {
            c.name: int(model.jnt_qposadr[model.joint(f"{c.name}_slide").id]) for c in self.sliders
        }
        self._item_joints = {
            item.name: int(model.jnt_qposadr[model.joint(f"{item.name}_free").id]) for item in self.items
        }
        self.after_step(model, data)

    def carriage_x(self, data: mujoco.MjData, name: str) -> float:
        """World x of a carriage's index mark."""
        start = next(c.start_x for c in self.sliders if c.name == name)
        return start + float(data.qpos[self._joints[name]])

    def item_pose(self, data: mujoco.MjData, name: str) -> tuple[np.ndarray, float]:
        """An item's centre (world) and its tilt from upright (rad)."""
        adr = self._item_joints[name]
        w, qx, qy, _ = (float(v) for v in data.qpos[adr + 3 : adr + 7])
        up_z = 1.0 - 2.0 * (qx * qx + qy * qy)  # the body z axis's world z component
        norm = w * w + qx * qx + qy * qy + float(data.qpos[adr + 6]) ** 2
        tilt = math.acos(max(-1.0, min(1.0, up_z / norm)))
        return np.array(data.qpos[adr : adr + 3], dtype=float), tilt

    def _upright_at(self, data: mujoco.MjData, item: Item, seat: tuple[float, float, float]) -> bool:
        centre, tilt = self.item_pose(data, item.name)
        near = all(abs(float(c) - s) <= tol for c, s, tol in zip(centre, seat, SEAT_TOLERANCE, strict=True))
        return near and tilt <= SEAT_TILT_RAD

    def seated_in(self, data: mujoco.MjData, item: Item) -> str | None:
        """The carriage whose holder (of the item's size) the item stands in, or None."""
        for carriage in self.carriages:
            if carriage.slot == item.half:
                seat_z = RAIL_TOP + holder_floor(carriage.slot) + item.half[2]
                if self._upright_at(data, item, (self.carriage_x(data, carriage.name), RAIL_Y, seat_z)):
                    return carriage.name
        return None

    def in_stand(self, data: mujoco.MjData, item: Item) -> bool:
        """Whether the item stands upright in its own stand."""
        return self._upright_at(data, item, self.stand_seat(item))

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        imaging: list[Element] = []
        diffracting: list[Diffracting] = []
        for item in self.items:
            self.seats[item.name] = holder = self.seated_in(data, item)
            if holder is not None:  # the slot centres a seated item's frame over the index
                element = item.element(self.carriage_x(data, holder) + item.principal_offset)
                if isinstance(element, Grating | Slit):
                    diffracting.append(element)
                else:
                    imaging.append(element)
        self.rail = Rail(OBJECT_X, tuple(imaging), self.carriage_x(data, SCREEN.name))
        self.diffracting = tuple(diffracting)

    def blur_diameter(self) -> float:
        """The blur circle on the screen (m) after the last step; infinite when no seated lens images."""
        return math.inf if self.rail is None else self.rail.blur_diameter()

    # --- published layout ---
    def layout(self) -> dict[str, list[float]]:
        """The slide's centre (the object on the optical axis), each carriage's index at the start (on the
        rail's top), each holder carriage's grip block centre and the screen post's top at the start, each
        item's stand's slot floor, each item's frame size and how far its grip's centre is above the
        frame's, the scale face (y, and z of its marked top edge) and the screen post's distance behind
        the screen. The scale's zero is not published (it is read)."""
        positions = {
            "slide": [OBJECT_X, RAIL_Y, AXIS_Z],
            **{f"{c.name}_carriage": [c.start_x, RAIL_Y, RAIL_TOP] for c in self.sliders},
            **{
                f"{c.name}_grip": [c.start_x, KNOB_Y, RAIL_TOP + KNOB_HALF[2] + 0.01]
                for c in self.carriages
                if c.slot is not None
            },
            "screen_post": [SCREEN.start_x + SCREEN_POST_X, RAIL_Y, RAIL_TOP + SCREEN_POST_TOP],
            **{f"{item.name}_stand": [item.stand_x, STAND_Y, STAND_FLOOR_Z] for item in self.items},
            **{f"{item.name}_size": [2 * h for h in item.half] for item in self.items},
            **{f"{item.name}_grip_above_centre": [item.half[2] + STEM_HALF[2]] for item in self.items},
            "scale_face": [SCALE_FACE_Y, SCALE_EDGE_Z],
            "screen_post_behind": [SCREEN_POST_X],
        }
        return published(positions)

    # --- instruments ---
    def index_names(self) -> list[str]:
        return ["object_index", *(f"{c.name}_index" for c in self.sliders)]

    def instruments(self) -> list[InstrumentSpec]:
        return [InstrumentSpec(name, "mm", INDEX, refresh_hz=240.0) for name in self.index_names()]

    def _index_x(self, data: mujoco.MjData) -> dict[str, float]:
        xs = {"object_index": OBJECT_X}
        for c in self.sliders:
            xs[f"{c.name}_index"] = self.carriage_x(data, c.name)
        return xs

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        return {name: 1000.0 * (x - self.scale_zero_x) for name, x in self._index_x(data).items()}

    def reading_sites(self, data: mujoco.MjData) -> dict[str, ReadingSite]:
        sites = {}
        for name, x in self._index_x(data).items():
            point = np.array([x, SCALE_FACE_Y - 0.0001, SCALE_EDGE_Z - 0.004])
            pointer = f"{name.removesuffix('_index')}_pointer"
            sites[name] = ReadingSite(point, np.array([0.001, 0.0, 0.0]), ("rail_scale_face", pointer))
        return sites
