"""Reading a millimetre ruler at a red pointer from a close-up image, as an experimenter would: find the
ruler's printed marks, recognise the centimetre numbers by their shapes, and interpolate the pointer
between the marks around it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache

import numpy as np
from PIL import Image, ImageDraw

GLYPH_SIZE = (8, 12)
"""Width and height (px) every digit is resampled to before it is compared."""
EDGE_PX = 2
"""A mark may start this many pixels inside the face's edge: the edge pixel blends the face with what lies
beyond it."""


@dataclass(frozen=True)
class Reading:
    """A ruler reading (mm) and what it rests on."""

    value_mm: float
    pointer_row: float
    mm_per_px: float
    centimetre: int


def _rgb(image: np.ndarray) -> np.ndarray:
    return image.astype(np.int32)


def ruler_columns(image: np.ndarray) -> tuple[int, int]:
    """The image columns of the ruler's cream face (the widest run of mostly-cream columns)."""
    rgb = _rgb(image)
    cream = (rgb[..., 0] > 170) & (rgb[..., 1] > 165) & (rgb[..., 2] > 120) & (rgb[..., 0] - rgb[..., 2] > 25)
    share = cream.mean(axis=0) > 0.5
    best, start = (0, 0), None
    for x, inside in enumerate([*share.tolist(), False]):
        if inside and start is None:
            start = x
        elif not inside and start is not None:
            if x - start > best[1] - best[0]:
                best = (start, x)
            start = None
    if best[1] - best[0] < 20:
        raise ValueError("no ruler in view")
    return best


def pointer_row(image: np.ndarray, left: int) -> float:
    """The mean row of the red pointer just left of the ruler."""
    rgb = _rgb(image[:, max(0, left - 40) : left])
    red = (rgb[..., 0] > 150) & (rgb[..., 1] < 90) & (rgb[..., 2] < 90)
    rows = np.nonzero(red.any(axis=1))[0]
    if rows.size == 0:
        raise ValueError("no pointer beside the ruler")
    return float(rows.mean())


def marks(image: np.ndarray, left: int, right: int) -> list[tuple[float, int]]:
    """(row, length in px) of every printed mark, measured from the ruler's left edge."""
    face = _rgb(image[:, left:right])
    shade = face.sum(axis=2)
    grey = np.abs(face[..., 0] - face[..., 2]) < 60  # print is black; the red pointer is not a mark
    dark = (shade < 0.6 * float(np.median(shade))) & grey  # ink, or a mark blended into its pixel
    lengths = [_mark_length(row) for row in dark[:, :50]]
    found: list[tuple[float, int]] = []
    run: list[int] = []
    for y, length in enumerate([*lengths, 0]):
        if length >= 4:
            run.append(y)
        elif run:
            found.append((float(np.mean(run)), max(lengths[r] for r in run)))
            run = []
    return found


def _mark_length(dark: np.ndarray) -> int:
    """How far a dark run starting within EDGE_PX of the edge reaches into the face (0 without one)."""
    start = next((i for i in range(EDGE_PX + 1) if dark[i]), None)
    if start is None:
        return 0
    rest = dark[start:]
    return start + (int(np.argmin(rest)) if not rest.all() else rest.size)


@cache
def templates() -> dict[int, np.ndarray]:
    """Every digit as the ruler's printer draws it (the default face), resampled to GLYPH_SIZE."""
    out = {}
    for digit in range(10):
        canvas = Image.new("L", (20, 20), 255)
        ImageDraw.Draw(canvas).text((2, 2), str(digit), fill=0)
        out[digit] = _normalised(np.asarray(canvas) < 128)
    return out


def _match(glyph: np.ndarray) -> int:
    """The digit whose printed shape correlates best with ``glyph``, allowing the glyph's box to be a
    pixel off either way (a stray pixel at its edge)."""
    shifted = [np.roll(glyph, (dy, dx), axis=(0, 1)) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
    return max(templates(), key=lambda d: max(float((templates()[d] * g).sum()) for g in shifted))


def _normalised(ink: np.ndarray, shade: np.ndarray | None = None) -> np.ndarray:
    """A glyph's ``shade`` (how dark each pixel is, 0 to 1; ``ink`` itself if None) cropped to its ink,
    resampled to GLYPH_SIZE, zero mean and unit norm."""
    ys, xs = np.nonzero(ink)
    shade = ink if shade is None else shade
    crop = (np.clip(shade[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1], 0, 1) * 255).astype(np.uint8)
    glyph = np.asarray(Image.fromarray(crop).resize(GLYPH_SIZE, Image.Resampling.BILINEAR)).astype(float)
    glyph -= glyph.mean()
    return glyph / (np.linalg.norm(glyph) or 1.0)


def read_number(image: np.ndarray, row: float, column: int, height: int) -> int:
    """The number printed right of a centimetre mark: its digits left to right, each matched to the
    printer's digit shapes."""
    top, bottom = int(row - 2 * height), int(row + 2 * height + 1)
    rgb = _rgb(image[max(0, top) : bottom, column : column + 6 * height])
    patch = rgb.sum(axis=2)
    grey = np.abs(rgb[..., 0] - rgb[..., 2]) < 60  # print is black; the red pointer is not ink
    face = float(np.median(patch))
    ink = (patch < 0.83 * face) & grey  # darker than the cream face by a sixth
    shade = np.where(grey, 1.0 - patch / face, 0.0) * 1.5
    columns = ink.any(axis=0).tolist()
    digits, start = [], None
    for x, inked in enumerate([*columns, False]):
        if inked and start is None:
            start = x
        elif not inked and start is not None:
            glyph = _normalised(ink[:, start:x], shade[:, start:x])
            digits.append(_match(glyph))
            start = None
    if not digits:
        raise ValueError("no number beside the centimetre mark")
    return int("".join(map(str, digits)))


def _centimetre_below(
    image: np.ndarray, centimetre: list[float], pointer: float, column: int, height: int
) -> tuple[int, float]:
    """The number and row of the centimetre mark just below the pointer. Every readable label votes for
    that mark's number (its own number less the centimetres between), so one misread digit is outvoted."""
    spacing_cm = float(np.median(np.diff(centimetre))) if len(centimetre) > 1 else 1.0
    below = [row for row in centimetre if row >= pointer]
    anchor = min(below, key=lambda row: row - pointer) if below else max(centimetre)
    votes: Counter[int] = Counter()
    for row in centimetre:
        try:
            number = read_number(image, row, column, height)
        except ValueError:
            continue
        votes[number + round((row - anchor) / spacing_cm)] += 1
    if not votes:
        raise ValueError("no centimetre number could be read")
    return votes.most_common(1)[0][0], anchor


def read_ruler(image: np.ndarray) -> Reading:
    """Where the pointer stands on the ruler, in mm."""
    left, right = ruler_columns(image)
    pointer = pointer_row(image, left)
    found = marks(image, left, right)
    if len(found) < 12:
        raise ValueError("too few marks in view")
    longest = max(length for _, length in found)
    centimetre = [row for row, length in found if length > 0.8 * longest]
    rows = np.array([row for row, _ in found])
    spacing = float(np.median(np.diff(rows)))  # px per mm (rows grow downwards, values upwards)
    number, anchor = _centimetre_below(image, centimetre, pointer, left + longest + 1, round(1.6 * spacing))
    # px per mm from the centimetre marks (integer pixel rows make single-mm gaps alternate)
    gaps = np.diff(sorted(centimetre))
    gaps = gaps[gaps < 1.5 * float(np.median(gaps))] if gaps.size else gaps
    px_per_mm = float(np.median(gaps)) / 10 if gaps.size else spacing
    value = 10 * number + (anchor - pointer) / px_per_mm
    return Reading(float(value), pointer, 1.0 / px_per_mm, number)
