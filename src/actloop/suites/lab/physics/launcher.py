"""The spring launcher's shot: the muzzle speed a notch gives and the ball's flight, in closed form.

The latch at notch n holds the spring compressed by x_n. Released, the spring (constant k) throws the piston
(hidden mass m_p) and the ball (mass m) together up the barrel, set at elevation θ, against gravity along it
and a dry friction F; the ball leaves the piston at the spring's natural length, at the muzzle, with::

    v² = (k x² − 2 (m_p + m) g x sin θ − 2 F x) / (m_p + m)

so v² is a quadratic in x with a linear term (no proportion to x²), and the piston's share of the energy is
hidden. The flight is a parabola with no drag (a 17 mm steel ball at 2-3 m/s loses under 0.1 % of its range
to the air), evaluated in closed form from the moment of release, p(t) = p0 + v0 t − g t² ẑ / 2: exact at
every physics step, with no integration at all; the elevation's sine and cosine are the pure-Python ones of
:mod:`.linear`, so every shot is bit-identical on every machine. The ball lands when its centre comes down to
the landing plane; the landing time solves z(t) = z_land in closed form (:func:`landing_time`), so a landing
between two physics steps is placed exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from actloop.suites.lab.physics.linear import sin

G = 9.81
"""The bench's gravity (m/s²): the engine's own."""


def direction(elevation: float) -> tuple[float, float]:
    """(cos, sin) of ``elevation`` (rad), with the pure-Python sine: the same bits on every machine."""
    return sin(math.pi / 2 - elevation), sin(elevation)


def muzzle_speed_squared(
    compression: float, spring_k: float, ball_kg: float, piston_kg: float, friction_n: float, elevation: float
) -> float:
    """v² (m²/s²) of the ball leaving the muzzle from a spring compressed ``compression`` (m); 0 when the
    spring cannot lift the ball to the muzzle."""
    moving = ball_kg + piston_kg
    work = spring_k * compression**2 - 2 * (moving * G * direction(elevation)[1] + friction_n) * compression
    return max(work / moving, 0.0)


def landing_time(vz: float, height: float) -> float:
    """When a ball launched upwards at ``vz`` (m/s) from ``height`` (m) above the landing plane reaches it
    (s)."""
    return (vz + math.sqrt(vz * vz + 2 * G * height)) / G


def ballistic_range(speed: float, elevation: float, height: float) -> float:
    """The horizontal distance a ball launched at ``speed`` (m/s) and ``elevation`` (rad) from ``height`` (m)
    above the landing plane travels before it lands (m)."""
    cos_e, sin_e = direction(elevation)
    vx, vz = speed * cos_e, speed * sin_e
    return vx * landing_time(vz, height)


@dataclass(frozen=True)
class Flight:
    """A ball's free flight: at ``start`` (x, y, z, m) with ``velocity`` (m/s) at time ``t0`` (s), landing on
    the plane z = ``land_z``."""

    t0: float
    start: tuple[float, float, float]
    velocity: tuple[float, float, float]
    land_z: float

    @property
    def duration(self) -> float:
        """From its start to its landing (s); 0 when it starts at or below the landing plane."""
        height = self.start[2] - self.land_z
        if height <= 0.0 and self.velocity[2] <= 0.0:
            return 0.0
        return landing_time(self.velocity[2], max(height, 0.0))

    def at(self, time_s: float) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        """The ball's position and velocity at ``time_s`` (clamped to the landing)."""
        t = min(max(time_s - self.t0, 0.0), self.duration)
        (x, y, z), (vx, vy, vz) = self.start, self.velocity
        return (x + vx * t, y + vy * t, z + vz * t - G * t * t / 2), (vx, vy, vz - G * t)

    def landed(self, time_s: float) -> bool:
        return time_s - self.t0 >= self.duration

    @property
    def landing(self) -> tuple[float, float, float]:
        """Where the ball's centre meets the landing plane."""
        return self.at(self.t0 + self.duration)[0]
