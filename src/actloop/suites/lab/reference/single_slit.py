"""The reference experimenter for the single slit's width, through the public client only.

It carries the slit from its stand into the carriage's holder and pushes the carriage 0.10 m from the
laser; it brings the wrist camera behind the screen where it is when the hand holds the screen's post (the
fingers open round the post, the screen left where it stands, about 0.40 m from the slit): level with the
beam, about 14 cm from the screen, it sees the whole of the screen's back, the pattern and the printed scale
under it. From that image it reads the scale's ticks (the leftmost is the zero, every tick a millimetre
further, the longer ones every fifth) and the dark fringes ±1 to ±6 on the beam's row (see
:func:`dark_fringes`), each column turned into millimetres between the ticks either side. It reads the
slit's and the screen's index marks from close-ups of the rail's scale, puts the slit back in its stand and
submits a from the fringes' positions y_m = c + L tan(asin(m λ / a)) fitted over m (c, the scale's number
at the central maximum, drops out), with L between the two index marks.

What it knows besides the card is the bench's published layout; every value comes from the images.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from actloop.suites.lab.reference.laser_rail import LaserRailOperator, screen_ticks
from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.optical_rail import _image

SLIT_AT = 0.10
"""The slit carriage's index this far from the laser's."""
FRINGES = 6
LEVEL = 0.3
"""A dark fringe's sides are taken where the light rises through this fraction of the dimmer lobe beside
it..."""
MIN_LEVEL = 1.0
"""...and at least this much red light above the paper's (of 255)."""


def beam_row(image: np.ndarray) -> int:
    """The image row through the middle of the pattern: among the rows near the one with the most red
    pixels (the lobes in a row; the table is far less red, the carriage's index mark a few pixels), the
    middle of those whose reddest pixel is nearly the reddest (the central maximum)."""
    red = image[..., 0].astype(float) - image[..., 1].astype(float)
    most = int(np.argmax((red > 30).sum(axis=1)))
    near = red[most - 6 : most + 7].max(axis=1)
    return most - 6 + round(float(np.nonzero(near >= near.max() - 3)[0].mean()))


def red_light(image: np.ndarray, row: int) -> np.ndarray:
    """The red light above the paper's along the beam's row (three rows averaged)."""
    band = image[row - 1 : row + 2].astype(float)
    return np.clip((band[..., 0] - band[..., 2]).mean(axis=0) - float(np.median(band[..., 0] - band[..., 2])),
                   0.0, None)  # fmt: skip


def crossing(light: np.ndarray, darkest: int, step: int, level: float) -> float:
    """The column (interpolated) where ``light`` rises through ``level`` going from ``darkest`` by
    ``step``."""
    c = darkest
    while light[c + step] <= level:
        c += step
    return c + step * (level - light[c]) / (light[c + step] - light[c])


def dark_fringes(image: np.ndarray) -> dict[int, float]:
    """The dark fringes ±1 to ±FRINGES on the beam's row: order → image column (sub-pixel).

    About each zero the light rises through a level (LEVEL of the dimmer lobe beside it) at two columns;
    the screen's saturation and the camera's blur change the light alike on both sides, but the sinc's
    envelope makes the outer flank the shallower: near a zero the amplitude is |y − y₀| / y (y from the
    central maximum), so equal light lies at equal (y − y₀) / y on both sides and y₀ is the harmonic
    mean of the two crossings' distances from the centre (midway between a pair of fringes ±m)."""
    light = red_light(image, beam_row(image))
    smooth = np.convolve(light, np.ones(3) / 3, mode="same")
    bright = np.nonzero(light > 0.8 * light.max())[0]
    centre = float(bright.mean())
    first = int(centre)
    while smooth[first + 1] < smooth[first] or smooth[first] > 0.5 * light.max():
        first += 1  # down the central lobe to its first zero
    spacing = first - centre
    crossings: dict[int, tuple[float, float]] = {}
    for side in (-1, 1):
        at, step = centre, spacing
        for m in range(1, FRINGES + 1):
            guess = at + side * step
            window = np.arange(round(guess - step / 3), round(guess + step / 3) + 1)
            darkest = int(window[np.argmin(smooth[window])])
            reach = round(0.9 * step)
            lobes = light[darkest - reach : darkest].max(), light[darkest + 1 : darkest + reach + 1].max()
            level = max(MIN_LEVEL, LEVEL * min(lobes))
            crossings[side * m] = (
                crossing(light, darkest, -side, level),
                crossing(light, darkest, side, level),
            )
            at = sum(crossings[side * m]) / 2
            step = abs(at - centre) / m
    centre = float(np.mean([sum(crossings[m]) + sum(crossings[-m]) for m in range(1, FRINGES + 1)])) / 4
    found = {}
    for m, (inner, outer) in crossings.items():
        near, far = abs(inner - centre), abs(outer - centre)
        found[m] = centre + math.copysign(2 * near * far / (near + far), m)
    return found


def fit_width(fringes: Mapping[int, float], distance_mm: float, wavelength: float) -> float:
    """The width a (m) from dark fringes (order → mm on the screen's scale) a distance (mm) from the slit:
    y_m = c + L tan(asin(m λ / a)), c eliminated by least squares, λ / a by golden section."""

    def residual(k: float) -> float:
        xs = [distance_mm * m * k / math.sqrt(1.0 - (m * k) ** 2) for m in fringes]
        ys = list(fringes.values())
        c = sum(y - x for x, y in zip(xs, ys, strict=True)) / len(ys)
        return sum((y - x - c) ** 2 for x, y in zip(xs, ys, strict=True))

    orders, ys = zip(*sorted(fringes.items()), strict=True)
    slope = float(np.polyfit(orders, ys, 1)[0])
    low, high = 0.9 * slope / distance_mm, 1.1 * slope / distance_mm
    for _ in range(80):
        one, two = low + (high - low) / 3, high - (high - low) / 3
        low, high = (low, two) if residual(one) < residual(two) else (one, high)
    return wavelength / ((low + high) / 2)


def to_mm(columns: Mapping[int, float], marks: np.ndarray, values: np.ndarray) -> dict[int, float]:
    """Image columns → mm on the screen's scale, between the ticks either side."""
    return {m: float(np.interp(c, marks, values)) for m, c in columns.items()}


def cite(seen: str, readings: Mapping[int, float]) -> list[dict[str, Any]]:
    """Citations of the dark fringes' readings (mm) in observation ``seen``."""
    return [{"observation_id": seen, "instrument": f"dark_{m:+d}", "value": round(v, 2)}
            for m, v in sorted(readings.items())]  # fmt: skip


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    me = LaserRailOperator(lab)
    me.seat("slit", "slit")
    me.move_carriage("slit", me.object_x + SLIT_AT)
    seen = me.look_at_screen()
    image = _image(seen)
    columns = dark_fringes(image)
    marks, values = screen_ticks(image, beam_row(image))
    fringes = to_mm(columns, marks, values)
    seen_slit, slit_mm, me.carriage_x["slit"] = me.read(me.carriage_x["slit"])
    seen_screen, screen_mm, me.screen_x = me.read(me.screen_x)
    citations: Sequence[dict[str, Any]] = [
        *cite(str(seen["observation_id"]), fringes),
        {"observation_id": seen_slit, "instrument": "slit_index", "value": slit_mm},
        {"observation_id": seen_screen, "instrument": "screen_index", "value": screen_mm},
    ]
    me.unseat("slit", "slit")
    a = fit_width(fringes, screen_mm - slit_mm, public["wavelength"])
    if not math.isfinite(a):
        raise RuntimeError("the fringes give no width")
    return lab.submit({"a": a}, list(citations))
