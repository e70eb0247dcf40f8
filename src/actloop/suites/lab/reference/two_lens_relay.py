"""The reference experimenter's design of the two-lens relay: where the two lenses' principal planes and the
screen go for an upright image at magnification M, from each lens's identified focal length.

Two thin lenses in turn: the first images the slide at m1 = -v1 / u1 (a real, inverted intermediate
image), the second images that at m2 = -v2 / u2, so the screen shows m1 m2 = M upright. With u = f (1 - 1/m)
and v = f (1 - m) for each lens, the relay's length f1 (2 + a + 1/a) + f2 (2 + M/a + a/M) over a = |m1| is
least at a² = (f1 + f2 M) / (f1 + f2 / M): the compact relay, which leaves the rail's far end free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Relay:
    """Distances along the rail (m): slide to the first lens's principal plane, first to second, second to
    the screen; and the first stage's magnification."""

    u1: float
    gap: float
    v2: float
    m1: float


def relay(f1: float, f2: float, magnification: float) -> Relay:
    """The compact relay of lenses ``f1`` then ``f2`` for an upright image of ``magnification``."""
    a = math.sqrt((f1 + f2 * magnification) / (f1 + f2 / magnification))
    m1, m2 = -a, -magnification / a
    return Relay(f1 * (1 - 1 / m1), f1 * (1 - m1) + f2 * (1 - 1 / m2), f2 * (1 - m2), m1)
