"""Two gliders on an air track coupled by springs, wall—k1—A—kc—B—k2—wall, stepped exactly: the measured
degrees of freedom of the coupled oscillators, integrated in pure Python (:class:`~.linear.ExactStepper`)
instead of by the physics engine, whose integration at 240 Hz shifts an oscillator's frequency by up to a
percent.

With x_A and x_B each glider's displacement from its rest (the springs' equilibrium)::

    m_A x_A'' = −(k1 + kc) x_A + kc x_B − c_A x_A'
    m_B x_B'' = kc x_A − (k2 + kc) x_B − c_B x_B'

The normal-mode angular frequencies ω1 < ω2 are the square roots of the eigenvalues of M⁻¹K (undamped).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from actloop.suites.lab.physics.linear import ExactStepper, Vector


@dataclass(frozen=True)
class CoupledGliders:
    """Glider masses (kg), the outer springs k1 and k2 and the coupling spring kc (N/m), each glider's
    viscous damping (N s/m), stepped every ``dt`` (s)."""

    mass_a: float
    mass_b: float
    k1: float
    kc: float
    k2: float
    damping_a: float
    damping_b: float
    dt: float
    _stepper: ExactStepper = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_stepper", ExactStepper(self.matrix(), self.dt))

    def matrix(self) -> list[list[float]]:
        """A in (x_A, x_B, v_A, v_B)' = A (x_A, x_B, v_A, v_B)."""
        ma, mb = self.mass_a, self.mass_b
        return [
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
            [-(self.k1 + self.kc) / ma, self.kc / ma, -self.damping_a / ma, 0.0],
            [self.kc / mb, -(self.k2 + self.kc) / mb, 0.0, -self.damping_b / mb],
        ]

    def step(self, state: Sequence[float]) -> Vector:
        """(x_A, x_B, v_A, v_B) one step later."""
        return self._stepper.step(state, [0.0, 0.0, 0.0, 0.0])

    def omegas(self) -> tuple[float, float]:
        """The undamped normal-mode angular frequencies (ω1, ω2), ω1 < ω2 (rad/s)."""
        return normal_modes(self.mass_a, self.mass_b, self.k1, self.kc, self.k2)

    def shapes(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """Each undamped mode's shape (x_A, x_B), x_A = 1: (mode 1, mode 2)."""
        out = []
        for omega in self.omegas():
            # (k1 + kc − m_A ω²) x_A = kc x_B
            out.append((1.0, (self.k1 + self.kc - self.mass_a * omega * omega) / self.kc))
        return out[0], out[1]

    def modal_amplitudes(self, state: Sequence[float]) -> tuple[float, float]:
        """How far each undamped mode moves the glider it moves most, in ``state`` (m): the displacement
        x = q1 s1 + q2 s2 (shapes s with x_A = 1), q_i's amplitude √(q_i² + (q_i'/ω_i)²) times the larger
        of s_i's two entries."""
        (_, r1), (_, r2) = self.shapes()
        x_a, x_b, v_a, v_b = state

        def split(a: float, b: float) -> tuple[float, float]:
            q2 = (b - r1 * a) / (r2 - r1)
            return a - q2, q2

        q1, q2 = split(x_a, x_b)
        p1, p2 = split(v_a, v_b)
        w1, w2 = self.omegas()
        return (
            math.hypot(q1, p1 / w1) * max(1.0, abs(r1)),
            math.hypot(q2, p2 / w2) * max(1.0, abs(r2)),
        )


def normal_modes(mass_a: float, mass_b: float, k1: float, kc: float, k2: float) -> tuple[float, float]:
    """(ω1, ω2) of the undamped coupled gliders: ω² the roots of det(K − ω² M) = 0."""
    a = (k1 + kc) / mass_a
    d = (k2 + kc) / mass_b
    half_trace = (a + d) / 2
    root = math.sqrt(((a - d) / 2) ** 2 + kc * kc / (mass_a * mass_b))
    return math.sqrt(half_trace - root), math.sqrt(half_trace + root)
