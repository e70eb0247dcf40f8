"""Classical image analysis for the baseline agent: find coloured objects in a clean RGB frame.

Works on the pixels a model receives and nothing else. The table, floor and robot are low-saturation
greys and beiges, so task objects are found by colour: a pixel belongs to a named colour when it is
saturated enough and its hue falls in that colour's band (orange: only its bright part, since a lit brown
face can look orange).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import ndimage

SATURATION_MIN = 0.4
VALUE_MIN = 0.18
MIN_PIXELS = 12

# Hue bands in degrees (start inclusive, end exclusive; red wraps around 0).
HUE_BANDS: dict[str, tuple[float, float]] = {
    "red": (342.0, 12.0),
    "orange": (12.0, 34.0),
    "brown": (12.0, 40.0),
    "gold": (34.0, 46.0),
    "yellow": (46.0, 70.0),
    "green": (75.0, 165.0),
    "cyan": (165.0, 200.0),
    "blue": (200.0, 255.0),
    "purple": (255.0, 342.0),
}
BROWN_VALUE_MAX = 0.62
COLOUR_WORDS = tuple(HUE_BANDS)
TABLE_LIT_VALUE_MIN = 0.85
TABLE_LIT_SATURATION_MAX = 0.3
"""Seen from high above, the lit table top is nearly white (value 0.95-1.0, saturation at most 0.2)."""
TABLE_HUE = (25.0, 55.0)
TABLE_SATURATION = (0.1, 0.32)
TABLE_VALUE_MIN = 0.45
"""Seen from the side, it is a pale beige (hue about 38°, saturation about 0.2) whose brightness varies."""


@dataclass(frozen=True)
class Region:
    """A connected image region (u right, v down; pixels) and its minimum-area bounding rectangle."""

    u: float
    v: float
    length_px: float
    """The rectangle's longer side."""
    width_px: float
    """The rectangle's shorter side."""
    angle_rad: float
    """Direction of the longer side in image coordinates (u, v), in [0, pi)."""
    pixels: int
    points: np.ndarray
    """(N, 2) array of the region's (u, v) pixel coordinates."""

    @property
    def side_px(self) -> float:
        """Side of the square with the rectangle's area (the apparent size of a cube face)."""
        return float(np.sqrt(self.length_px * self.width_px))


def hsv(image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hue (degrees), saturation and value of an RGB uint8 image."""
    rgb = image[..., :3].astype(np.float32) / 255.0
    high = rgb.max(axis=-1)
    low = rgb.min(axis=-1)
    chroma = high - low
    saturation = np.where(high > 0, chroma / np.maximum(high, 1e-6), 0.0)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    safe = np.maximum(chroma, 1e-6)
    hue = np.select(
        [high == r, high == g],
        [(60.0 * (g - b) / safe) % 360.0, 60.0 * (b - r) / safe + 120.0],
        60.0 * (r - g) / safe + 240.0,
    )
    return hue, saturation, high


def saturated_mask(image: np.ndarray) -> np.ndarray:
    """Pixels saturated and bright enough to belong to a task object."""
    _, saturation, value = hsv(image)
    return (saturation > SATURATION_MIN) & (value > VALUE_MIN)


def colour_mask(image: np.ndarray, colour: str) -> np.ndarray:
    """Pixels of a named colour (one of ``COLOUR_WORDS``)."""
    if colour not in HUE_BANDS:
        raise ValueError(f"unknown colour {colour!r}; known: {', '.join(COLOUR_WORDS)}")
    hue, saturation, value = hsv(image)
    start, end = HUE_BANDS[colour]
    in_band = (hue >= start) & (hue < end) if start < end else (hue >= start) | (hue < end)
    mask = in_band & (saturation > SATURATION_MIN) & (value > VALUE_MIN)
    if colour == "orange":  # brown spans the same hues, lit faces included; orange is the bright part
        mask &= value > BROWN_VALUE_MAX
    return mask


def not_table_mask(image: np.ndarray, from_side: bool = False) -> np.ndarray:
    """Pixels that are not the bare table top: objects of any colour (grey steel, black leather, white
    canvas by its shading and sole), the robot, the floor beyond the table. From above, the lit table is
    nearly white, so white objects show only by their shading; from the side (``from_side``) it is beige
    throughout, and a white cap or upper stands out from it."""
    hue, saturation, value = hsv(image)
    table = (
        (hue >= TABLE_HUE[0])
        & (hue <= TABLE_HUE[1])
        & (saturation >= TABLE_SATURATION[0])
        & (saturation <= TABLE_SATURATION[1])
        & (value > TABLE_VALUE_MIN)
    )
    if not from_side:
        table |= (value > TABLE_LIT_VALUE_MIN) & (saturation < TABLE_LIT_SATURATION_MAX)
    return ~table


def without_colours(
    mask: np.ndarray, image: np.ndarray, colours: tuple[str, ...], margin_px: int = 2
) -> np.ndarray:
    """``mask`` less the pixels of ``colours`` and their blended edges (``margin_px`` around them)."""
    for colour in colours:
        mask = mask & ~ndimage.binary_dilation(colour_mask(image, colour), iterations=margin_px)
    return mask


def regions(mask: np.ndarray, min_pixels: int = MIN_PIXELS, inside: bool = False) -> list[Region]:
    """Connected regions of a mask (8-connectivity), largest first; with ``inside``, only those that do
    not touch the image border (objects seen whole, not the robot or floor reaching into the frame)."""
    labels, count = ndimage.label(mask, structure=np.ones((3, 3), dtype=bool))
    found = []
    for label in range(1, count + 1):
        rows, cols = np.nonzero(labels == label)
        if len(rows) < min_pixels:
            continue
        if inside and _touches_border(rows, cols, mask.shape):
            continue
        found.append(_region(np.stack([cols, rows], axis=1).astype(np.float64)))
    return sorted(found, key=lambda r: -r.pixels)


def region_containing(mask: np.ndarray, seed: Region) -> Region:
    """The connected region of ``mask`` that holds ``seed`` (whose pixels count as set): an object's whole
    silhouette grown from the part of it found by colour."""
    grown = mask.copy()
    cols, rows = seed.points[:, 0].astype(int), seed.points[:, 1].astype(int)
    grown[rows, cols] = True
    labels, _ = ndimage.label(grown, structure=np.ones((3, 3), dtype=bool))
    rows, cols = np.nonzero(labels == labels[rows[0], cols[0]])
    return _region(np.stack([cols, rows], axis=1).astype(np.float64))


END_BAND_PX = 2.0


def ends_along(points: np.ndarray, axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The middles of a region's two ends along the unit image direction ``axis``: the mean of the pixels
    within ``END_BAND_PX`` of each extreme, so a rounded or square end gives its centre, not a corner."""
    along = points @ axis
    low, high = float(along.min()), float(along.max())
    return points[along <= low + END_BAND_PX].mean(axis=0), points[along >= high - END_BAND_PX].mean(axis=0)


def ends_along_long_axis(region: Region) -> tuple[np.ndarray, np.ndarray]:
    """The middles of the region's two ends along its rectangle's long side."""
    return ends_along(region.points, np.array([math.cos(region.angle_rad), math.sin(region.angle_rad)]))


def _touches_border(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, ...]) -> bool:
    return bool(
        rows.min() == 0 or cols.min() == 0 or rows.max() == shape[0] - 1 or cols.max() == shape[1] - 1
    )


def largest_region(mask: np.ndarray) -> Region | None:
    found = regions(mask)
    return found[0] if found else None


def find_object(image: np.ndarray, colour: str | None = None) -> Region | None:
    """The largest region of ``colour`` (or of any saturated colour when ``colour`` is None)."""
    return largest_region(saturated_mask(image) if colour is None else colour_mask(image, colour))


def _region(points: np.ndarray) -> Region:
    centre = points.mean(axis=0)
    rel = points - centre
    best = (np.inf, 0.0, 0.0, 0.0)  # area, angle, extent along angle, extent across
    for deg in range(90):
        a = np.deg2rad(deg)
        along = rel @ np.array([np.cos(a), np.sin(a)])
        across = rel @ np.array([-np.sin(a), np.cos(a)])
        e1 = float(along.max() - along.min() + 1.0)
        e2 = float(across.max() - across.min() + 1.0)
        if e1 * e2 < best[0]:
            best = (e1 * e2, a, e1, e2)
    _, angle, e1, e2 = best
    if e2 > e1:
        angle, e1, e2 = angle + np.pi / 2, e2, e1
    return Region(
        u=float(centre[0]),
        v=float(centre[1]),
        length_px=e1,
        width_px=e2,
        angle_rad=float(angle % np.pi),
        pixels=len(points),
        points=points,
    )
