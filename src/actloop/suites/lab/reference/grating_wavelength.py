"""The reference experimenter for the laser's wavelength from a grating, through the public client only.

It carries the grating from its stand into the carriage's holder and pushes the carriage to two places,
FAR and NEAR from the screen (which stays where it stands); at each it brings the wrist camera behind the
screen where it is when the hand holds the screen's post (see :class:`LaserRailOperator`), sees the spots and
the printed scale under them, reads the scale's ticks and the centres of orders −1 and +1 (see
:func:`spots`), each column turned into millimetres by a cubic fitted over all the ticks, and reads the
grating carriage's index mark from a close-up of the rail's scale (the screen's once). Half the distance
between the first orders, y = (L_mark − δ) tan θ, grows with the index marks' distance L_mark at the slope
tan θ: the difference of the two settings drops the screen scale's zero and the grating plane's unknown
distance δ from its mark. It puts the grating back in its stand and submits λ = sin(atan(tan θ)) / N.

What it knows besides the card is the bench's published layout; every value comes from the images.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from actloop.suites.lab.reference.laser_rail import LaserRailOperator, screen_ticks
from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.optical_rail import _image

FAR = 0.32
"""The grating's index mark this far from the screen's (both first orders on the screen's scale for every
wavelength up to 0.33 m)..."""
NEAR = 0.12
"""...then this far."""
LIGHT = 40.0
"""A spot's pixels are at least this much brighter than the paper (the three channels summed, of 765)."""
BEAM_ROWS = 40
SPOT_HALF_PX = 12
"""A spot's centre is the centroid of the light within this many columns of its brightest."""


def light(image: np.ndarray) -> np.ndarray:
    """How much brighter than the rest of its row each pixel is (the three channels summed, less the row's
    median: the paper's on the screen, where the spots take a few columns)."""
    total = image.astype(float).sum(axis=2)
    return np.clip(total - np.median(total, axis=1, keepdims=True), 0.0, None)


def beam_row(glow: np.ndarray) -> int:
    """The image row through the spots' centres: among the rows within BEAM_ROWS of the middle one (the
    camera is level with the beam), the middle of those with the most bright pixels."""
    top = glow.shape[0] // 2 - BEAM_ROWS
    counts = (glow[top : top + 2 * BEAM_ROWS + 1] > LIGHT).sum(axis=1)
    return top + round(float(np.nonzero(counts >= counts.max())[0].mean()))


def spots(image: np.ndarray) -> tuple[dict[int, float], int]:
    """Orders −1, 0 and +1 on the beam's row: order → image column (sub-pixel), and the row.

    Along the row (five rows averaged) the spots are runs of bright columns; order 0 is the one nearest the
    image's middle column (the camera is level with the beam over the screen's post) and orders ±1 the
    nearest either side. Each centre is the centroid of the light within SPOT_HALF_PX columns of the run's
    middle: the spot is symmetric, its saturated disc and its halo alike."""
    glow = light(image)
    row = beam_row(glow)
    profile = glow[row - 2 : row + 3].mean(axis=0)
    bright = np.nonzero(profile > LIGHT)[0]
    if bright.size == 0:
        raise RuntimeError("no spot on the screen")
    runs = np.split(bright, np.nonzero(np.diff(bright) > 1)[0] + 1)
    middles = sorted(float(run.mean()) for run in runs if run.size >= 3)
    zero = int(np.argmin([abs(m - image.shape[1] / 2) for m in middles]))
    if not 0 < zero < len(middles) - 1:
        raise RuntimeError("a first order is not on the screen")
    found = {}
    for order, middle in ((-1, middles[zero - 1]), (0, middles[zero]), (1, middles[zero + 1])):
        columns = np.arange(round(middle) - SPOT_HALF_PX, round(middle) + SPOT_HALF_PX + 1)
        weights = profile[columns]
        found[order] = float((columns * weights).sum() / weights.sum())
    return found, row


def to_mm(columns: Mapping[int, float], marks: np.ndarray, values: np.ndarray) -> dict[int, float]:
    """Image columns → mm on the screen's scale, by a cubic fitted to every tick: a tick's column is off by
    up to 0.3 px as its thin line falls on the camera's pixels (between two ticks, 0.05 mm), the fit over
    150 ticks by a few hundredths of a pixel; the cubic takes a slight perspective."""
    fit = np.polynomial.Polynomial.fit(marks, values, 3)
    return {m: float(fit(c)) for m, c in columns.items()}


def read_spots(seen: Mapping[str, Any]) -> dict[int, float]:
    """Orders −1, 0 and +1 (mm on the screen's scale) in a view of the screen's back."""
    image = _image(dict(seen))
    columns, row = spots(image)
    marks, values = screen_ticks(image, row)
    return to_mm(columns, marks, values)


def wavelength_nm(settings: list[tuple[float, float]], lines_per_mm: float) -> float:
    """λ (nm) from (index marks' distance, half the first orders' distance) at two settings, both in mm."""
    (far_l, far_y), (near_l, near_y) = settings
    slope = (far_y - near_y) / (far_l - near_l)
    return 1e6 * slope / math.hypot(1.0, slope) / lines_per_mm


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    me = LaserRailOperator(lab)
    me.seat("grating", "grating")
    seen_screen, screen_mm, me.screen_x = me.read(me.screen_x)
    citations: list[dict[str, Any]] = [
        {"observation_id": seen_screen, "instrument": "screen_index", "value": screen_mm}
    ]
    settings = []
    for distance in (FAR, NEAR):
        me.move_carriage("grating", me.screen_x - distance)
        seen = me.look_at_screen()
        orders = read_spots(seen)
        seen_grating, grating_mm, me.carriage_x["grating"] = me.read(me.carriage_x["grating"])
        citations += [
            *({"observation_id": str(seen["observation_id"]), "instrument": f"order_{m:+d}",
               "value": round(orders[m], 2)} for m in (-1, 1)),
            {"observation_id": seen_grating, "instrument": "grating_index", "value": grating_mm},
        ]  # fmt: skip
        settings.append((screen_mm - grating_mm, (orders[1] - orders[-1]) / 2))
    me.unseat("grating", "grating")
    answer = wavelength_nm(settings, public["lines_per_mm"])
    if not math.isfinite(answer):
        raise RuntimeError("the spots give no wavelength")
    return lab.submit({"lambda": answer}, citations)
