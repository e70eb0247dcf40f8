"""Reading a dial indicator from a camera image, as an experimenter would: find where the long red pointer
points among the graduations and which turn the small blue counter pointer is in.

The dial faces the camera with its zero up and its numbers growing clockwise; where it is comes from the
bench's published layout (its centre in the plane of each pointer), and the camera's pose from its
calibration, so every point of a pointer's sweep is projected into the image and the image sampled there
(between pixels, bilinearly): the pointer's angle is the centroid of how red (or blue) the image is around
the circle.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from actloop.suites.lab.reference.display import Camera, bilinear, project

SAMPLES = 1440
"""Points around each circle (a quarter of a degree apart)."""
NEEDLE_RADII = (0.4, 0.5, 0.6, 0.7)
"""Where the long pointer is sought, in graduation radii: beyond its hub, short of the graduations."""
COUNTER_RADII = (0.35, 0.5, 0.65)
"""Where the counter's pointer is sought, in the counter dial's radii."""
WINDOW_TURN = 1.0 / 72
"""Half the width of the window (5 degrees) around the strongest direction whose centroid is the angle."""


@dataclass(frozen=True)
class DialGeometry:
    """Where a dial is: its centre (in the long pointer's plane), its counter's centre (in the small
    pointer's plane), the radius of its graduations and of its counter dial (m); it faces −y, zero up."""

    centre: Sequence[float]
    counter_centre: Sequence[float]
    graduation_radius: float
    counter_radius: float


def pointer_turn(
    image: np.ndarray, camera: Camera, centre: Sequence[float], radii: Sequence[float], colour: int
) -> float:
    """Where a pointer of ``colour`` (0 red, 2 blue) around ``centre`` points, in turns clockwise from up
    (0 to 1)."""
    rgb = image.astype(float)
    others = [c for c in range(3) if c != colour]
    strength = np.clip(rgb[..., colour] - (rgb[..., others[0]] + rgb[..., others[1]]) / 2, 0, None)
    turns = np.arange(SAMPLES) / SAMPLES
    angles = 2 * np.pi * turns
    profile = np.zeros(SAMPLES)
    c = np.asarray(centre, dtype=float)
    for radius in radii:
        points = c + radius * np.column_stack([np.sin(angles), np.zeros(SAMPLES), np.cos(angles)])
        pixels = project(points, camera)
        if not np.isfinite(pixels).all():
            raise ValueError("the dial is not in front of the camera")
        profile += bilinear(strength, pixels)
    peak = int(np.argmax(profile))
    if profile[peak] <= 0:
        raise ValueError("no pointer of that colour on the dial")
    half = round(WINDOW_TURN * SAMPLES)
    offsets = np.arange(-half, half + 1)
    window = profile[(peak + offsets) % SAMPLES]
    weights = np.clip(window - np.median(profile), 0, None)
    turn = (peak + float((weights * offsets).sum() / weights.sum())) / SAMPLES
    return turn % 1.0


def read_dial(image: np.ndarray, camera: Camera, dial: DialGeometry, turn_value: float, turns: int) -> float:
    """The dial's reading: whole turns from the counter (``turns`` to its revolution) plus the long
    pointer's fraction of a turn, times ``turn_value`` (what one turn of the long pointer reads)."""
    fraction = pointer_turn(image, camera, dial.centre, [r * dial.graduation_radius for r in NEEDLE_RADII], 0)
    counter = turns * pointer_turn(
        image, camera, dial.counter_centre, [r * dial.counter_radius for r in COUNTER_RADII], 2
    )
    whole = math.floor(counter - fraction + 0.5) % turns
    return (whole + fraction) * turn_value
