"""A block on an incline under gravity and Coulomb friction with distinct static and kinetic coefficients
(stick–slip), advanced exactly over a step.

MuJoCo's contacts have one friction coefficient; this law runs on the block's one degree of freedom along
the slope instead. ``s`` is the distance down the slope, ``v`` its rate. At rest the block stays while the
slope's pull, g sin θ, is at most the static limit μs g cos θ, and starts to slide once it exceeds it;
sliding, it accelerates by g (sin θ ∓ μk cos θ) (friction against the motion) until it stops, when the
static limit decides again. Within a step the acceleration is constant, so the motion is the exact
parabola, cut where the block comes to rest or reaches an end of its track (a bumper that stops it).

Only arithmetic and square roots: the same bits on every machine. The slope is given by its sine and
cosine (from the apparatus's geometry, not from an angle).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

G = 9.81
"""m/s², as the physics engine's gravity."""


@dataclass(frozen=True)
class Friction:
    """The static and kinetic friction coefficients of a block on its track."""

    static: float
    kinetic: float

    def __post_init__(self) -> None:
        if not 0 < self.kinetic <= self.static:
            raise ValueError(f"friction needs 0 < kinetic <= static: {self}")

    def holds(self, sin_t: float, cos_t: float) -> bool:
        """Whether a block at rest stays at rest on the slope."""
        return sin_t <= self.static * cos_t

    def acceleration(self, v: float, sin_t: float, cos_t: float) -> float:
        """Down-slope acceleration of a block sliding at ``v`` (non-zero) or starting to slide (``v`` = 0:
        down the slope)."""
        against = -1.0 if v >= 0 else 1.0
        return G * (sin_t + against * self.kinetic * cos_t)


def slide_step(
    s: float, v: float, dt: float, sin_t: float, cos_t: float, friction: Friction, track: tuple[float, float]
) -> tuple[float, float]:
    """(s, v) after ``dt`` seconds from (s, v) on a slope of the given sine and cosine, the block kept
    between the bumpers at ``track`` = (top, bottom) positions."""
    left = dt
    while left > 0:
        if v == 0.0:
            if friction.holds(sin_t, cos_t):
                break
            a = friction.acceleration(0.0, sin_t, cos_t)
            s, v = s + 0.5 * a * left * left, a * left
            left = 0.0
            break
        a = friction.acceleration(v, sin_t, cos_t)
        stop = -v / a if a * v < 0 else math.inf
        if stop >= left:
            s, v = s + v * left + 0.5 * a * left * left, v + a * left
            left = 0.0
        else:
            s, v = s + 0.5 * v * stop, 0.0
            left -= stop
    top, bottom = track
    if s <= top:
        return top, 0.0
    if s >= bottom:
        return bottom, 0.0
    return s, v


def slope_of(rise: float, run: float) -> tuple[float, float]:
    """(sin θ, cos θ) of a slope rising ``rise`` over ``run``."""
    length = math.sqrt(rise * rise + run * run)
    return rise / length, run / length
