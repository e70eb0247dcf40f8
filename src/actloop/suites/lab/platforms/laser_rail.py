"""The optical rail with a laser instead of the lamp: slides that diffract its beam (a grating, a single
slit) are seated in carriage holders like lenses, and a wide screen shows the far-field pattern.

The laser's exit aperture is over the object index mark; its beam runs along the optical axis. The screen
shows, a distance L = screen index - the slide's plane downstream, a grating's orders as spots where the
grating equation puts them (L tan θ from the axis, sin θ = m λ N) or a single slit's Fraunhofer intensity
(:mod:`physics.optics`); with nothing seated, the bare beam's spot on the axis. Brightness saturates like
film (1 − exp(−I / I_sat)), so the central spot is white-hot while a slit's faint side lobes and the dark
fringes between them stay visible; a dark fringe is exactly dark.

The screen's back (the side away from the laser, where the post is) carries a printed millimetre scale
below the axis, readable from behind; its zero lies near the screen's left edge seen from behind, off its
nominal place by the instance's hidden ``screen_scale_offset``, and it counts towards the rail's front
(world +y). The features of the pattern are instruments read on that scale: ``order_<m>`` is the centre of
a grating's order m (m > 0 towards rising numbers), ``dark_<m>`` a slit's dark fringe m (m ≠ 0), each in mm
from the scale's zero; a feature is readable only while its slide is seated and it falls on the screen.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import mujoco
import numpy as np

from actloop.sim.scene import WORLD_GEOM
from actloop.suites.lab.instruments import InstrumentSpec, Shown
from actloop.suites.lab.physics.optics import Diffracting, Grating, Slit
from actloop.suites.lab.platforms.base import ReadingSite
from actloop.suites.lab.platforms.optical_rail import (
    AXIS_Z,
    INDEX,
    OBJECT_X,
    POINTER_Y,
    RAIL_TOP,
    RAIL_Y,
    SCREEN,
    Carriage,
    Item,
    OpticalRail,
    carriage_parts,
    pointer_xml,
    rail_parts,
)
from actloop.suites.lab.platforms.spring_stand import ruler_texture
from actloop.suites.lab.spec import Parameter, Part, uniform

SCREEN_HALF_WIDTH = 0.08
SCREEN_HALF_HEIGHT = 0.03
SCREEN_PX_PER_MM = 8
SCREEN_SCALE_MM = 150
"""The screen's scale: 0-150 mm printed on a 160 mm wide screen."""
SCREEN_SCALE_NOMINAL_ZERO = RAIL_Y - 0.075
"""World y of the screen scale's zero without its offset."""
SCALE_LINE_Z = -0.014
"""The screen scale's tick line, below the axis (its ticks hang down from it, its numbers under them)."""
FACE_HALF_X = 0.00075
"""Each of the screen's two faces (front, back) is a sheet this half thick."""
BEAM_SIGMA = 0.0006
"""The laser beam's spot on the screen: a Gaussian of this standard deviation (m) across and up."""
PAPER = 0.5
"""The screen's brightness (of full white) in the room's light."""
SATURATION = 0.01
"""Intensity (of the straight-through beam's peak) at which the screen's brightness is 63 % of full."""
FEATURE_MARGIN = 0.003
"""A feature closer than this to the screen's side edge is off the screen (not readable)."""
ORDERS = 2
FRINGES = 6


def wavelength_rgb(wavelength: float) -> tuple[float, float, float]:
    """The colour (0-1 RGB) of monochromatic light of ``wavelength`` (m), a piecewise-linear spectrum."""
    nm = wavelength * 1e9
    stops = ((440.0, (0.4, 0.0, 1.0)), (490.0, (0.0, 0.6, 1.0)), (530.0, (0.1, 1.0, 0.1)),
             (580.0, (1.0, 0.9, 0.0)), (620.0, (1.0, 0.25, 0.0)), (700.0, (1.0, 0.0, 0.0)))  # fmt: skip
    if nm <= stops[0][0]:
        return stops[0][1]
    for (n0, c0), (n1, c1) in itertools.pairwise(stops):
        if nm <= n1:
            t = (nm - n0) / (n1 - n0)
            return (c0[0] + t * (c1[0] - c0[0]), c0[1] + t * (c1[1] - c0[1]), c0[2] + t * (c1[2] - c0[2]))
    return stops[-1][1]


@dataclass(frozen=True, kw_only=True)
class GratingSlide(Item):
    """A transmission grating on a slide in a lens-sized frame, ruled at ``lines_per_m``."""

    lines_per_m: float

    def element(self, plane: float) -> Grating:
        return Grating(plane, self.lines_per_m)


@dataclass(frozen=True, kw_only=True)
class SlitSlide(Item):
    """A single slit of ``width`` (m) on a slide in a lens-sized frame."""

    width: float

    def element(self, plane: float) -> Slit:
        return Slit(plane, self.width)


def laser_rail_parts(wavelength_text: str, slide: str, slide_text: str) -> tuple[Part, ...]:
    """The card's parts of a laser rail with one slide: the rail and its scale, the laser (``wavelength_text``
    says what is known of its wavelength), the wide screen's scale, the slide (``slide_text`` says what it
    is), its stand and its carriage, and the screen carriage."""
    return (
        Part("rail", "a rail along the bench carrying the laser and the carriages", restore="fixed"),
        rail_parts()[1],
        Part(
            "laser",
            f"a laser fixed at the rail's left end, its beam along the rail at the height of the carriages' "
            f"holders; {wavelength_text}; its index mark (object_index) is under its exit aperture",
            restore="fixed",
        ),
        Part(
            "screen_scale",
            f"a millimetre scale printed on the screen's back (the side away from the laser), below the "
            f"beam, read from behind the screen: its zero (not numbered) is near the screen's left edge "
            f"seen from behind and it counts to the right (towards the front of the rail) to "
            f"{SCREEN_SCALE_MM} mm; a longer tick every 5 mm and a number every 10 mm that counts "
            f"centimetres (the tick numbered 12 is 120 mm); a reading of a spot or fringe on it is cited in "
            f"mm",
            restore="fixed",
        ),
        Part(
            slide,
            f"{slide_text} in a lens-sized frame with a grip on top; stands in the {slide} stand; the "
            f"{slide}'s plane is somewhere in the frame's thickness, not marked",
        ),
        Part(f"{slide}_stand", f"holds the {slide} beside the right end of the rail", restore="fixed"),
        Part(
            f"{slide}_carriage",
            f"slides on the rail, pushed or pulled by the grip block in front of it; the {slide} set in its "
            f"holder is seated with its frame's centre on the beam above the index mark ({slide}_index)",
            restore="any",
        ),
        carriage_parts()[2],
    )


def offset_parameters(slide: str, plane_offset: float) -> tuple[Parameter, ...]:
    """The laser rail's hidden offsets: the rail scale's zero, the screen scale's zero (4 mm either way) and
    the ``slide``'s plane from its frame's centre (``plane_offset`` either way)."""
    return (
        Parameter(
            "scale_offset", "position of the rail scale's zero along the rail", "m", uniform(-0.004, 0.004)
        ),
        Parameter(
            "screen_scale_offset",
            "position of the screen scale's zero across the screen",
            "m",
            uniform(-0.004, 0.004),
        ),
        Parameter(
            "principal_offset",
            f"distance of the {slide}'s plane from its frame's centre, towards the screen",
            "m",
            uniform(-plane_offset, plane_offset),
        ),
    )


def feature_names(items: tuple[Item, ...]) -> list[str]:
    """The pattern features read on the screen's scale for the slides among ``items``: a grating's orders
    −2 to +2, a slit's dark fringes ±1 to ±6."""
    names: list[str] = []
    if any(isinstance(item, GratingSlide) for item in items):
        names += [f"order_{m:+d}" if m else "order_0" for m in range(-ORDERS, ORDERS + 1)]
    if any(isinstance(item, SlitSlide) for item in items):
        names += [f"dark_{m:+d}" for m in range(-FRINGES, FRINGES + 1) if m]
    return names


class LaserRail(OpticalRail):
    """The optical rail with a laser of ``wavelength`` (m), diffracting slides and the wide screen (see the
    module docstring)."""

    drawn_as: ClassVar[dict[str, tuple[str, ...]]] = {
        "scale": ("rail_scale",),
        "screen_scale": ("screen_back",),
    }
    screen_half: ClassVar[tuple[float, float]] = (SCREEN_HALF_WIDTH, SCREEN_HALF_HEIGHT)

    def __init__(
        self,
        items: tuple[Item, ...],
        carriages: tuple[Carriage, ...],
        scale_offset: float,
        wavelength: float,
        screen_scale_offset: float,
    ) -> None:
        super().__init__(items, carriages, scale_offset)
        self.wavelength = wavelength
        self.screen_scale_zero_y = SCREEN_SCALE_NOMINAL_ZERO + screen_scale_offset
        """World y of the screen scale's printed zero."""
        self.features = feature_names(items)
        self._screen_x = SCREEN.start_x

    # --- the pattern ---
    def distance(self, element: Diffracting) -> float:
        """L: from the slide's plane to the screen (m)."""
        return self._screen_x - element.position

    def feature_offsets(self) -> dict[str, float | None]:
        """Each feature's offset from the axis on the screen (m), None while it does not exist (its slide
        not seated, or no such order or fringe)."""
        offsets: dict[str, float | None] = dict.fromkeys(self.features)
        for element in self.diffracting:
            length = self.distance(element)
            if isinstance(element, Grating) and length > 0.0:
                for m, y, _ in element.orders(self.wavelength, length):
                    if abs(m) <= ORDERS:
                        offsets[f"order_{m:+d}" if m else "order_0"] = y
            elif isinstance(element, Slit) and length > 0.0:
                for m in range(-FRINGES, FRINGES + 1):
                    if m and abs(m) * self.wavelength < element.width:
                        offsets[f"dark_{m:+d}"] = element.dark_fringe(m, self.wavelength, length)
        return offsets

    def intensity(self, y: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Intensity on the screen at offsets (y across, z up, m) from the axis, relative to the bare beam's
        peak."""
        beam_z = np.exp(-(z * z) / (2 * BEAM_SIGMA * BEAM_SIGMA))

        def spot(centre: float) -> np.ndarray:
            return np.exp(-((y - centre) ** 2) / (2 * BEAM_SIGMA * BEAM_SIGMA)) * beam_z

        elements = [e for e in self.diffracting if self.distance(e) > 0.0]
        if not elements:
            return spot(0.0)
        element = min(elements, key=self.distance)  # the slide nearest the screen makes the pattern
        length = self.distance(element)
        if isinstance(element, Grating):
            return sum((power * spot(centre) for _, centre, power in element.orders(self.wavelength, length)),
                       np.zeros(np.broadcast_shapes(y.shape, z.shape)))  # fmt: skip
        x = element.width * (y / np.hypot(y, length)) / self.wavelength
        return np.sinc(x) ** 2 * beam_z  # numpy's sinc is sin(πx)/(πx)

    def screen_faces(self) -> dict[str, np.ndarray]:
        """The screen's textures: its front seen from the laser, its back seen from behind with the
        scale."""
        half_y, half_z = self.screen_half
        pitch = 0.001 / SCREEN_PX_PER_MM
        y = ((np.arange(round(2 * half_y / pitch)) + 0.5) * pitch - half_y)[None, :]  # +y to the right
        z = (half_z - (np.arange(round(2 * half_z / pitch)) + 0.5) * pitch)[:, None]
        glow = 1.0 - np.exp(-self.intensity(y, z) / SATURATION)
        light = PAPER + (1.0 - PAPER) * glow[..., None] * np.array(wavelength_rgb(self.wavelength))
        back = (np.clip(light, 0.0, 1.0) * np.array([250, 248, 235])).astype(np.uint8)
        front = np.ascontiguousarray(back[:, ::-1])  # seen from the other side
        self._print_scale(back, pitch)
        return {"screen_tex": front, "screen_back_tex": back}

    def _print_scale(self, face: np.ndarray, pitch: float) -> None:
        """Print the scale's ticks and numbers onto ``face`` (the back, seen from behind)."""
        ruler = ruler_texture(SCREEN_SCALE_MM, px_per_mm=SCREEN_PX_PER_MM, font_px=2 * SCREEN_PX_PER_MM)
        ink = np.rot90(ruler, -1).mean(axis=2) < 128  # ticks hang from the top, the zero tick leftmost
        half_y, half_z = self.screen_half
        left = round((self.screen_scale_zero_y - RAIL_Y + half_y) / pitch)
        top = round((half_z - SCALE_LINE_Z) / pitch)
        rows, columns = min(ink.shape[0], face.shape[0] - top), min(ink.shape[1], face.shape[1] - left)
        face[top : top + rows, left : left + columns][ink[:rows, :columns]] = 20

    # --- scene ---
    def assets_xml(self) -> str:
        return (
            '<material name="rail_scale_mat" texture="rail_scale_tex"/>'
            '<material name="screen_mat" texture="screen_tex" emission="1"/>'
            '<material name="screen_back_mat" texture="screen_back_tex" emission="1"/>'
        )

    def textures(self) -> dict[str, np.ndarray]:
        return {"rail_scale_tex": super().textures()["rail_scale_tex"], **self.screen_faces()}

    def redraw(self, shown: Callable[[str], Shown | None]) -> dict[str, np.ndarray]:
        return self.screen_faces()

    def _source_xml(self) -> str:
        """The laser: a housing on a post, its exit aperture on the axis over the object index mark."""
        post = (AXIS_Z - RAIL_TOP - 0.015) / 2
        return f"""
<body name="laser" pos="{OBJECT_X} {RAIL_Y} {RAIL_TOP}">
  <geom name="laser_base" type="box" size="0.03 0.03 0.01" pos="-0.03 0 0.01" rgba="0.25 0.25 0.28 1"
        {WORLD_GEOM}/>
  <geom name="laser_post" type="cylinder" size="0.008 {post:.4f}" pos="-0.03 0 {post:.4f}"
        rgba="0.6 0.6 0.62 1" {WORLD_GEOM}/>
  <geom name="laser_housing" type="box" size="0.04 0.015 0.015" pos="-0.041 0 {AXIS_Z - RAIL_TOP}"
        rgba="0.12 0.12 0.14 1" {WORLD_GEOM}/>
  <geom name="laser_aperture" type="cylinder" size="0.003 0.0005" zaxis="1 0 0"
        pos="-0.0005 0 {AXIS_Z - RAIL_TOP}" rgba="0.9 0.2 0.1 1" contype="0" conaffinity="0"/>
  <geom name="laser_bracket" type="box" size="0.0015 0.003 0.003"
        pos="0 {POINTER_Y - RAIL_Y + 0.0035:.4f} 0.003" rgba="0.25 0.25 0.28 1" contype="0" conaffinity="0"/>
  {pointer_xml("object", 0.0, 0.006)}
</body>"""

    def _screen_face_xml(self) -> str:
        half_y, half_z = self.screen_half
        z = AXIS_Z - RAIL_TOP
        return f"""
  <geom name="screen_face" type="box" size="{FACE_HALF_X} {half_y} {half_z}" pos="{-FACE_HALF_X} 0 {z}"
        material="screen_mat" {WORLD_GEOM}/>
  <geom name="screen_back" type="box" size="{FACE_HALF_X} {half_y} {half_z}" pos="{FACE_HALF_X} 0 {z}"
        material="screen_back_mat" {WORLD_GEOM}/>"""

    # --- state and instruments ---
    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        super().after_step(model, data)
        self._screen_x = self.carriage_x(data, SCREEN.name)

    def instruments(self) -> list[InstrumentSpec]:
        return [
            *super().instruments(),
            *(InstrumentSpec(n, "mm", INDEX, refresh_hz=240.0) for n in self.features),
        ]

    def true_values(self, data: mujoco.MjData) -> dict[str, float]:
        """The rail's indexes, and each feature's place on the screen's scale (where the axis meets it while
        the feature does not exist)."""
        values = super().true_values(data)
        for name, offset in self.feature_offsets().items():
            values[name] = 1000.0 * (RAIL_Y + (offset or 0.0) - self.screen_scale_zero_y)
        return values

    def reading_sites(self, data: mujoco.MjData) -> dict[str, ReadingSite]:
        """The rail's indexes, and each feature on the screen's back at the scale's tick line (a feature
        that does not exist or falls off the screen is read nowhere)."""
        sites = super().reading_sites(data)
        back_x = self._screen_x + 2 * FACE_HALF_X + 0.0001
        for name, offset in self.feature_offsets().items():
            on_screen = offset is not None and abs(offset) < self.screen_half[0] - FEATURE_MARGIN
            point = np.array([back_x, RAIL_Y + (offset or 0.0), AXIS_Z + SCALE_LINE_Z])
            sites[name] = ReadingSite(
                point, np.array([0.0, 0.001, 0.0]), ("screen_back",) if on_screen else ()
            )
        return sites
