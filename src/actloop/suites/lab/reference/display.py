"""Seven-segment LCD faces: their layout, and reading one from a camera image.

The layout of a face is what anyone at the bench sees, so it is stated here once and the bench draws its
faces from it. A face is a light window of ``digits`` character cells in a row, dark segments on it; a
cell holds one character (a digit, ``-``, ``O``, ``L`` or nothing) and may light a decimal point at its
lower right. Face coordinates run from 0 to 1 across the window's width (x, to the right) and down its
height (y).

The reader maps every segment of every cell into the image through the homography the window's four corners
give, compares its darkness with the window's light background and refuses (``ValueError``) a face on which
no segment is clearly dark, any segment is neither clearly dark nor clearly light, any cell shows no known
character, or the text is not a number or ``OL``. A camera's world-to-pixel projection from the published
calibration is here too, so a reader can find a window's corners from where the bench puts it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

PAD_X, PAD_Y = 0.04, 0.14
"""Margins around the row of cells, in window widths and heights."""
DIGIT_HEIGHT = 1.0 - 2 * PAD_Y
"""A character's height, in window heights."""
GLYPH = (0.1, 0.66)
"""A character's left edge and width, in cell widths (the decimal point sits in the rest of the cell)."""
THICKNESS = (0.2, 0.08)
"""Segment thickness: vertical segments in glyph widths, horizontal ones in window heights."""
SEGMENTS = "abcdefg"
"""Top, upper right, lower right, bottom, lower left, upper left, middle."""
CHARACTERS: dict[str, frozenset[str]] = {
    " ": frozenset(),
    "0": frozenset("abcdef"),
    "1": frozenset("bc"),
    "2": frozenset("abdeg"),
    "3": frozenset("abcdg"),
    "4": frozenset("bcfg"),
    "5": frozenset("acdfg"),
    "6": frozenset("acdefg"),
    "7": frozenset("abc"),
    "8": frozenset("abcdefg"),
    "9": frozenset("abcdfg"),
    "-": frozenset("g"),
    "L": frozenset("def"),
}
"""The lit segments of every character a cell shows; ``O`` is drawn as ``0`` (a meter's ``0L``)."""
_BY_SEGMENTS = {segments: char for char, segments in CHARACTERS.items()}
_TEXT = re.compile(r"-?\d+(\.\d+)?|OL")
Vector = Sequence[float] | np.ndarray
MIN_DIGIT_PX = 8.0
"""Below this digit height (px) in the image the reader does not try."""
ON, OFF = 0.6, 0.3
"""A segment is lit when its darkness (0 = background, 1 = the darkest segment) is at least ON, and dark
when at most OFF; anything between is not read."""
MIN_CONTRAST = 0.3
"""The darkest segment must be this fraction darker than the background to be read."""


@dataclass(frozen=True)
class Cell:
    """One character cell in face coordinates: the glyph's box (left, top, width, height), the thickness of
    its vertical and horizontal segments, and the decimal point's centre and half size (x, y)."""

    left: float
    top: float
    width: float
    height: float
    thickness: tuple[float, float]
    point: tuple[float, float]
    point_half: tuple[float, float]

    def segment(self, name: str) -> tuple[tuple[float, float], tuple[float, float]]:
        """The centre line of segment ``name`` (its two ends), face coordinates."""
        tx, ty = self.thickness[0] / 2, self.thickness[1] / 2
        x0, x1 = self.left + tx, self.left + self.width - tx
        y0, y1, y2 = self.top + ty, self.top + self.height / 2, self.top + self.height - ty
        return {
            "a": ((x0, y0), (x1, y0)),
            "b": ((x1, y0), (x1, y1)),
            "c": ((x1, y1), (x1, y2)),
            "d": ((x0, y2), (x1, y2)),
            "e": ((x0, y1), (x0, y2)),
            "f": ((x0, y0), (x0, y1)),
            "g": ((x0, y1), (x1, y1)),
        }[name]

    def holes(self) -> list[tuple[float, float]]:
        """Points inside the glyph that no segment covers (the background between them)."""
        cx = self.left + self.width / 2
        return [(cx, self.top + self.height / 4), (cx, self.top + 3 * self.height / 4)]


def layout(digits: int) -> list[Cell]:
    """The cells of a face of ``digits`` cells, in face coordinates: x from 0 to 1 across the window's
    width, y from 0 to 1 down its height."""
    if digits < 1:
        raise ValueError(f"a face needs at least one cell, got {digits}")
    cell = (1 - 2 * PAD_X) / digits
    glyph = GLYPH[1] * cell
    tx, ty = THICKNESS[0] * glyph, THICKNESS[1]
    cells = []
    for i in range(digits):
        left = PAD_X + (i + GLYPH[0]) * cell
        point = (left + glyph + (1 - GLYPH[0] - GLYPH[1]) * cell / 2, PAD_Y + DIGIT_HEIGHT - ty / 2)
        cells.append(Cell(left, PAD_Y, glyph, DIGIT_HEIGHT, (tx, ty), point, (0.8 * tx, 0.8 * ty)))
    return cells


def cells_of(text: str, digits: int) -> list[tuple[str, bool]]:
    """``text`` as cells (character, decimal point lit), right-aligned in ``digits`` cells."""
    cells: list[tuple[str, bool]] = []
    for char in text:
        if char == ".":
            if not cells or cells[-1][1]:
                raise ValueError(f"a decimal point needs a character before it: {text!r}")
            cells[-1] = (cells[-1][0], True)
        elif char in CHARACTERS or char == "O":
            cells.append(("0" if char == "O" else char, False))
        else:
            raise ValueError(f"a seven-segment face cannot show {char!r} (in {text!r})")
    if len(cells) > digits:
        raise ValueError(f"{text!r} needs {len(cells)} cells; the face has {digits}")
    return [(" ", False)] * (digits - len(cells)) + cells


# --- reading ---
def homography(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The 3×3 projective map taking four ``source`` points to four ``target`` points."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(source, target, strict=True):
        rows += [[x, y, 1, 0, 0, 0, -u * x, -u * y], [0, 0, 0, x, y, 1, -v * x, -v * y]]
        rhs += [u, v]
    h = np.linalg.solve(np.array(rows, dtype=float), np.array(rhs, dtype=float))
    return np.append(h, 1.0).reshape(3, 3)


def _apply(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    mapped = np.column_stack([points, np.ones(len(points))]) @ h.T
    return mapped[:, :2] / mapped[:, 2:3]


def bilinear(grey: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``grey`` at pixel centres ``pixels`` (x, y); pixel (0, 0) covers [0, 1)²."""
    height, width = grey.shape
    x = np.clip(pixels[:, 0] - 0.5, 0, width - 1.001)
    y = np.clip(pixels[:, 1] - 0.5, 0, height - 1.001)
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    top = grey[y0, x0] * (1 - fx) + grey[y0, x0 + 1] * fx
    bottom = grey[y0 + 1, x0] * (1 - fx) + grey[y0 + 1, x0 + 1] * fx
    return top * (1 - fy) + bottom * fy


def _along(start: tuple[float, float], end: tuple[float, float], n: int = 5) -> np.ndarray:
    """``n`` points along the middle of a segment's centre line (clear of its neighbours' ends)."""
    s, e = np.array(start), np.array(end)
    return np.array([s + (e - s) * f for f in np.linspace(0.3, 0.7, n)])


def read_display(image: np.ndarray, corners_px: np.ndarray, digits: int) -> str:
    """The text an LCD face of ``digits`` cells shows in ``image`` (H×W×3 or H×W), given the image
        positions (x right, y down, pixels) of its window's corners: top left, top right, bottom right, bottom
        left. ``ValueError`` when the face cannot be read with confidence (a blank face included: it cannot be
    told from one too blurred to show its segments)."""
    corners = np.asarray(corners_px, dtype=float).reshape(4, 2)
    grey = image.astype(float).mean(axis=2) if image.ndim == 3 else image.astype(float)
    height, width = grey.shape
    if not ((corners >= 0).all() and (corners[:, 0] <= width).all() and (corners[:, 1] <= height).all()):
        raise ValueError("the face is not wholly in the image")
    left_height = float(np.linalg.norm(corners[3] - corners[0]))
    right_height = float(np.linalg.norm(corners[2] - corners[1]))
    digit_px = DIGIT_HEIGHT * min(left_height, right_height)
    if digit_px < MIN_DIGIT_PX:
        raise ValueError(f"digits {digit_px:.1f} px high are too small to read")
    cells = layout(digits)
    h = homography(np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float), corners)
    background = float(np.median(bilinear(grey, _apply(h, _background_points(cells)))))
    levels = {
        (i, name): float(bilinear(grey, _apply(h, _along(*cell.segment(name)))).mean())
        for i, cell in enumerate(cells)
        for name in SEGMENTS
    }
    points = {
        i: float(bilinear(grey, _apply(h, _patch(cell.point, cell.point_half))).mean())
        for i, cell in enumerate(cells)
    }
    ink = min([*levels.values(), *points.values()])
    if background - ink < MIN_CONTRAST * background:
        raise ValueError("no segment is clearly dark (a blank face, or one blurred or too small)")

    def lit(level: float, where: str) -> bool:
        darkness = (background - level) / (background - ink)
        if OFF < darkness < ON:
            raise ValueError(f"{where} is neither lit nor dark (darkness {darkness:.2f})")
        return darkness >= ON

    text = ""
    for i in range(digits):
        segments = frozenset(name for name in SEGMENTS if lit(levels[i, name], f"cell {i} segment {name}"))
        if segments not in _BY_SEGMENTS:
            raise ValueError(f"cell {i} shows no known character (segments {''.join(sorted(segments))})")
        text += _BY_SEGMENTS[segments] + ("." if lit(points[i], f"cell {i} decimal point") else "")
    text = text.strip()
    text = "OL" if text == "0L" else text
    if not _TEXT.fullmatch(text):
        raise ValueError(f"the face shows {text!r}, not a number")
    return text


def _patch(centre: tuple[float, float], half: tuple[float, float]) -> np.ndarray:
    """Nine points over the middle half of a box (its centre, half sizes)."""
    (cx, cy), (hx, hy) = centre, half
    return np.array([[cx + fx * hx / 2, cy + fy * hy / 2] for fx in (-1, 0, 1) for fy in (-1, 0, 1)])


def _background_points(cells: Sequence[Cell]) -> np.ndarray:
    """Points of the light window: inside each glyph's holes and along the margins above and below."""
    points = [p for cell in cells for p in cell.holes()]
    xs = np.linspace(PAD_X, 1 - PAD_X, 2 * len(cells) + 1)
    points += [(float(x), y) for x in xs for y in (PAD_Y / 2, 1 - PAD_Y / 2)]
    return np.array(points)


# --- cameras ---
@dataclass(frozen=True)
class Camera:
    """A camera's pose (position, camera-to-world rotation: columns right, up, backward) and intrinsics."""

    position: np.ndarray
    rotation: np.ndarray
    fx: float
    fy: float
    cx: float
    cy: float

    @classmethod
    def fixed(cls, calibration: Mapping[str, Any], name: str) -> Camera:
        """A fixed camera from the published calibration."""
        entry = calibration[name]
        extrinsics = entry["extrinsics"]
        return cls._of(entry, np.array(extrinsics["position"]), np.array(extrinsics["rotation"]))

    @classmethod
    def wrist(cls, calibration: Mapping[str, Any], hand_position: Vector, hand_quaternion: Vector) -> Camera:
        """The wrist camera for a hand pose (the robot state's ``hand_position`` and ``hand_quaternion``)."""
        entry = calibration["wrist"]
        hand = rotation_matrix(hand_quaternion)
        mount = entry["mount"]
        position = np.asarray(hand_position, dtype=float) + hand @ np.array(mount["position"], dtype=float)
        return cls._of(entry, position, hand @ np.array(mount["rotation_in_hand"], dtype=float))

    @classmethod
    def _of(cls, entry: Mapping[str, Any], position: np.ndarray, rotation: np.ndarray) -> Camera:
        k = entry["intrinsics"]
        return cls(position, rotation, float(k["fx"]), float(k["fy"]), float(k["cx"]), float(k["cy"]))


def rotation_matrix(quaternion: Vector) -> np.ndarray:
    """The rotation matrix of a quaternion (w, x, y, z)."""
    w, x, y, z = np.asarray(quaternion, dtype=float) / math.sqrt(sum(float(q) ** 2 for q in quaternion))
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def project(points_world: np.ndarray, camera: Camera) -> np.ndarray:
    """Pixel positions (x right, y down) of world points (N×3) in ``camera``'s image; points behind the
    camera come out as NaN."""
    local = (np.atleast_2d(np.asarray(points_world, dtype=float)) - camera.position) @ camera.rotation
    depth = -local[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        u = camera.cx + camera.fx * local[:, 0] / depth
        v = camera.cy - camera.fy * local[:, 1] / depth
    pixels = np.column_stack([u, v])
    pixels[depth <= 1e-9] = np.nan
    return pixels


def window_corners(centre: Vector, right: Vector, up: Vector, width_m: float, height_m: float) -> np.ndarray:
    """The world corners of a display window (top left, top right, bottom right, bottom left) from its
    centre and its unit right and up directions."""
    c, r, u = (np.asarray(v, dtype=float) for v in (centre, right, up))
    half_w, half_h = r * width_m / 2, u * height_m / 2
    return np.array([c - half_w + half_h, c + half_w + half_h, c + half_w - half_h, c - half_w - half_h])
