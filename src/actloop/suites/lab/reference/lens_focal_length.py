"""The reference experimenter for the lens focal length, through the public client only.

It carries the lens from its stand into the lens carriage's holder and pushes the carriage by its grip
block to a first distance from the slide; it holds the screen by the post behind it, watching the screen's
back through the wrist camera, and drags the screen along the rail to find the sharpest image (gradient
energy, coarse steps then fine ones, the focus taken midway between the half-maximum crossings); it lets
go and reads the object, lens and screen index marks on the rail's scale from level close-ups. From the
first focal length it sets the lens's index mark 2.5f and 2f from the slide's and focuses again. The card
says the lens's principal plane is not marked: the distances u and v read from the lens's index mark are
u + δ and v − δ about it for an unknown δ, so it fits f and δ to the conjugate pairs together
(1 / (u + δ) + 1 / (v − δ) = 1 / f at each), sets the lens once more where the fit puts its principal plane
just beyond 2f (near u = v a pair fixes f whatever δ: there (u + δ)(v − δ) / (u + v) changes little with δ),
focuses, fits the four pairs, puts the lens back in its stand and submits with the readings.

What it knows besides the card is the bench's published layout, as any experimenter at the bench would;
every value comes from the images.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.optical_rail import RailOperator

DELTA_RANGE = 0.03
"""The principal plane's offset from the index mark is sought within ±3 cm."""
LENS_AT = (2.5, 2.0)
"""After the first pair, the lens's index mark is set these multiples of the first focal length from the
slide's: magnifications from about 0.7 to 1."""
LAST_AT = 2.05
"""The last pair's principal plane (as the first three pairs' fit puts it) this multiple of their f from the
slide: a magnification just under 1, where the focus search is as sharp as at the others."""


def fit_focal_length(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    """(f, δ) from conjugate pairs (u, v) read from the lens's index mark (m): the offset δ of the lens's
    principal plane (towards the screen) that makes f = (u + δ)(v − δ) / (u + v) agree best over the pairs
    (least squares), and their mean f there. One pair gives δ = 0."""

    def focals(delta: float) -> list[float]:
        return [(u + delta) * (v - delta) / (u + v) for u, v in pairs]

    def spread(delta: float) -> float:
        values = focals(delta)
        mean = sum(values) / len(values)
        return sum((x - mean) ** 2 for x in values)

    delta = 0.0
    if len(pairs) > 1:
        delta = min((DELTA_RANGE * (k / 300 - 1) for k in range(601)), key=spread)
        low, high = delta - DELTA_RANGE / 300, delta + DELTA_RANGE / 300
        for _ in range(60):  # the spread is smooth and single-welled near the grid's best
            a, b = low + (high - low) / 3, high - (high - low) / 3
            low, high = (low, b) if spread(a) < spread(b) else (a, high)
        delta = (low + high) / 2
    values = focals(delta)
    return sum(values) / len(values), delta


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    me = RailOperator(lab)
    citations: list[dict[str, Any]] = []
    pairs: list[tuple[float, float]] = []
    f_first = math.nan
    object_mm: float | None = None
    u = 0.20
    for k in range(len(LENS_AT) + 2):  # 0.20 m, the LENS_AT multiples, the fitted last
        target = me.object_x + u
        if k == 0:
            me.seat("lens", "lens")
        me.move_carriage("lens", target)
        me.grip_screen()
        v_guess = None
        if k > 0:  # where the image should be: from the first pair, then from the first three's fit
            f_fit, delta = fit_focal_length(pairs) if len(pairs) >= 3 else (f_first, 0.0)
            v_guess = me.object_x + u + delta + (u + delta) * f_fit / (u + delta - f_fit)
        me.find_focus(v_guess)
        me.release_screen()
        if object_mm is None:
            seen, object_mm, _ = me.read(me.object_x)
            citations.append({"observation_id": seen, "instrument": "object_index", "value": object_mm})
        seen_lens, lens_mm, me.carriage_x["lens"] = me.read(me.carriage_x["lens"])
        seen_screen, screen_mm, me.screen_x = me.read(me.screen_x)
        citations.append({"observation_id": seen_lens, "instrument": "lens_index", "value": lens_mm})
        citations.append({"observation_id": seen_screen, "instrument": "screen_index", "value": screen_mm})
        u_mm, v_mm = lens_mm - object_mm, screen_mm - lens_mm
        pairs.append((u_mm / 1000.0, v_mm / 1000.0))
        if k == 0:
            f_first = u_mm * v_mm / (u_mm + v_mm) / 1000.0
        if k < len(LENS_AT):
            u = LENS_AT[k] * f_first
        elif k == len(LENS_AT):
            f_fit, delta = fit_focal_length(pairs)
            u = LAST_AT * f_fit - delta
    me.unseat("lens", "lens")
    f = fit_focal_length(pairs)[0]
    if not math.isfinite(f):
        raise RuntimeError("the readings give no focal length")
    return lab.submit({"f": f}, citations)
