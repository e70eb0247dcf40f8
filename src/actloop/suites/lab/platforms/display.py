"""Digital display faces on the bench: seven-segment LCD textures redrawn from what an instrument shows.

A face is a thin box whose front (local −y) carries the LCD window, upright along local +z; its texture is
drawn from the public layout in :mod:`actloop.suites.lab.reference.display` (the same cells a reader looks
for) with dark segments on a light window. Pixels depend on the text alone, so frames are deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import ClassVar

import mujoco
import numpy as np
from PIL import Image, ImageDraw

from actloop.errors import ConfigError
from actloop.sim.scene import WORLD_GEOM
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec, Shown
from actloop.suites.lab.platforms.base import Platform, ReadingSite
from actloop.suites.lab.reference.display import CHARACTERS, DIGIT_HEIGHT, Cell, cells_of, layout

TEXTURE_HEIGHT_PX = 96
"""Texels across a face's height (a digit is about 69 texels tall)."""
BACKGROUND = (196, 206, 182)
INK = (28, 34, 30)
CELL_ASPECT = (0.4, 0.9)
"""A cell's width in window heights: narrower or wider faces distort the digits."""
FACE_DEPTH_M = 0.001
"""Half the thickness of a face's box."""


@dataclass(frozen=True)
class DisplayFace:
    """The LCD of one instrument: its texture's name, the instrument whose shown value it draws, its cells
    (a sign or ``OL`` fits in them), the window's world size (m) and the digits after the point."""

    texture: str
    instrument: str
    digits: int
    width_m: float
    height_m: float
    decimals: int = 0

    def __post_init__(self) -> None:
        cell = self.width_m / self.height_m / self.digits if self.height_m > 0 and self.digits > 0 else 0.0
        if not CELL_ASPECT[0] <= cell <= CELL_ASPECT[1] or self.decimals < 0:
            raise ConfigError(
                f"display face {self.texture}: cells {cell:.2f} window heights wide; make them "
                f"{CELL_ASPECT[0]}-{CELL_ASPECT[1]} (width_m / height_m / digits)"
            )

    @classmethod
    def of(
        cls, texture: str, spec: InstrumentSpec, width_m: float, height_m: float, sign: bool = False
    ) -> DisplayFace:
        """The face of a digital instrument: one cell per digit, plus one for a minus sign if ``sign``."""
        if not isinstance(spec.display, DigitalDisplay):
            raise ConfigError(f"{spec.name} has no digital display")
        digits = spec.display.digits + (1 if sign else 0)
        return cls(texture, spec.name, digits, width_m, height_m, spec.display.decimals)

    @property
    def material(self) -> str:
        return f"{self.texture}_mat"

    @property
    def geom(self) -> str:
        """The name of the face's box geom."""
        return f"{self.texture}_face"

    def text(self, shown: Shown | None) -> str:
        """What the face shows for a displayed value (``""`` before the first refresh)."""
        if shown is None:
            return ""
        return shown if isinstance(shown, str) else f"{float(shown):.{self.decimals}f}"

    def texture_image(self, text: str) -> np.ndarray:
        """The face showing ``text`` (H×W×3 uint8; ``""`` is a blank window)."""
        height = TEXTURE_HEIGHT_PX
        width = round(height * self.width_m / self.height_m)
        image = Image.new("RGB", (width, height), BACKGROUND)
        draw = ImageDraw.Draw(image)
        for cell, (char, point) in zip(layout(self.digits), cells_of(text, self.digits), strict=True):
            for segment in CHARACTERS[char]:
                draw.polygon(_segment_polygon(cell, segment, width, height), fill=INK)
            if point:
                (cx, cy), (hx, hy) = cell.point, cell.point_half
                box = [(cx - hx) * width, (cy - hy) * height, (cx + hx) * width - 1, (cy + hy) * height - 1]
                draw.rectangle([round(v) for v in box], fill=INK)
        return np.asarray(image)

    def material_xml(self) -> str:
        """The ``<material>`` showing the face's texture (for :meth:`Platform.assets_xml`)."""
        return f'<material name="{self.material}" texture="{self.texture}"/>'

    def geom_xml(self, pos: str, euler: str = "0 0 0") -> str:
        """A thin box at ``pos`` (in its body) turned by ``euler`` (radians, as the scene compiles): the
        window faces local −y, upright along local +z."""
        return (
            f'<geom name="{self.geom}" type="box" size="{self.width_m / 2!r} {FACE_DEPTH_M} '
            f'{self.height_m / 2!r}" pos="{pos}" euler="{euler}" material="{self.material}" '
            'contype="0" conaffinity="0" mass="0"/>'
        )

    def digit_height_m(self) -> float:
        """The world height of one digit."""
        return DIGIT_HEIGHT * self.height_m

    def reading_site(self, centre: np.ndarray, up: np.ndarray) -> ReadingSite:
        """The face's reading site given its window's world centre and unit up direction."""
        return ReadingSite(
            np.asarray(centre, dtype=float), self.digit_height_m() * np.asarray(up), (self.geom,)
        )


def _segment_polygon(cell: Cell, name: str, width: int, height: int) -> list[tuple[int, int]]:
    """A segment as a bevelled bar along its centre line, in texels, with a small gap at each end."""
    (x0, y0), (x1, y1) = cell.segment(name)
    tx, ty = cell.thickness
    if y0 == y1:  # horizontal: half thickness ty/2, ends bevelled by tx/2
        h, gap = ty / 2, tx * 0.15
        xa, xb = x0 + gap, x1 - gap
        points = [
            (xa, y0),
            (xa + tx / 2, y0 - h),
            (xb - tx / 2, y0 - h),
            (xb, y0),
            (xb - tx / 2, y0 + h),
            (xa + tx / 2, y0 + h),
        ]
    else:
        w, gap = tx / 2, ty * 0.15
        ya, yb = y0 + gap, y1 - gap
        points = [
            (x0, ya),
            (x0 + w, ya + ty / 2),
            (x0 + w, yb - ty / 2),
            (x0, yb),
            (x0 - w, yb - ty / 2),
            (x0 - w, ya + ty / 2),
        ]
    return [(round(x * width), round(y * height)) for x, y in points]


def faces_textures(
    faces: Iterable[DisplayFace], shown: Callable[[str], Shown | None]
) -> dict[str, np.ndarray]:
    """Every face drawn from what its instrument shows now: what :meth:`Platform.redraw` returns."""
    return {face.texture: face.texture_image(face.text(shown(face.instrument))) for face in faces}


def faces_assets(faces: Iterable[DisplayFace]) -> str:
    """The materials of every face."""
    return "\n".join(face.material_xml() for face in faces)


def blank_textures(faces: Iterable[DisplayFace]) -> dict[str, np.ndarray]:
    """Every face blank: what :meth:`Platform.textures` gives before the first frame."""
    return {face.texture: face.texture_image("") for face in faces}


def front_windows(
    faces: Iterable[DisplayFace], centres: Mapping[str, tuple[float, float, float]]
) -> dict[str, list[float]]:
    """The published windows of faces that face the robot, each face's box centred at ``centres[texture]``:
    its window's centre (the box's front) and, as ``<texture>_size``, its width and height."""
    windows: dict[str, list[float]] = {}
    for face in faces:
        x, y, z = centres[face.texture]
        windows[face.texture] = [x, y - FACE_DEPTH_M, z]
        windows[f"{face.texture}_size"] = [face.width_m, face.height_m]
    return windows


def console_xml(
    centre: tuple[float, float, float],
    half: tuple[float, float, float],
    faces: Iterable[DisplayFace],
    centres: Mapping[str, tuple[float, float, float]],
) -> str:
    """A light grey console box (its geom ``console``) of half sizes ``half`` standing on ``centre`` (its
    foot's x, y and z), and the upright faces, each centred at ``centres[texture]``."""
    x, y, z = centre
    drawn = "\n".join(face.geom_xml(" ".join(map(str, centres[face.texture]))) for face in faces)
    return f"""<body name="console" pos="{x} {y} {z}">
  <geom name="console" type="box" size="{" ".join(map(str, half))}" pos="0 0 {half[2]}"
        rgba="0.85 0.84 0.8 1" {WORLD_GEOM}/>
</body>
<body name="faces">
{drawn}
</body>"""


def upright_reading_sites(
    faces: Iterable[DisplayFace], centres: Mapping[str, tuple[float, float, float]]
) -> dict[str, ReadingSite]:
    """Each upright face's reading site, by its instrument."""
    up = np.array([0.0, 0.0, 1.0])
    return {face.instrument: face.reading_site(np.array(centres[face.texture]), up) for face in faces}


class FacedPlatform(Platform):
    """A platform whose digital displays are :class:`DisplayFace` s: their materials, blank textures and
    per-frame faces come from :meth:`faces`; upright on a box's front, each face's box centred at
    ``face_centres[texture]``, they are read at their reading sites."""

    face_centres: ClassVar[Mapping[str, tuple[float, float, float]]] = {}

    def faces(self) -> Iterable[DisplayFace]:
        """The bench's display faces."""
        return ()

    def assets_xml(self) -> str:
        return faces_assets(self.faces())

    def textures(self) -> dict[str, np.ndarray]:
        return blank_textures(self.faces())

    def redraw(self, shown: Callable[[str], Shown | None]) -> dict[str, np.ndarray]:
        return faces_textures(self.faces(), shown)

    def reading_sites(self, data: mujoco.MjData) -> dict[str, ReadingSite]:
        return upright_reading_sites(self.faces(), self.face_centres)
