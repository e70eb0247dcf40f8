"""A turntable on a torsion wire, stepped exactly: the measured degree of freedom of the torsion pendulum
experiments, integrated in pure Python (:class:`~.linear.ExactStepper`) rather than by the physics engine.

With I the moment of inertia about the wire of the turntable and whatever rides on it, κ the wire's
torsion constant and c its viscous damping, the angle θ obeys ``I θ'' = −κ θ − c θ'``, whose period is
2π / √(κ / I − (c / 2I)²). A load of mass m whose centre of mass is a distance d from the axis adds its own
moment about its centre plus m d² (the parallel-axis theorem).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from actloop.suites.lab.physics.linear import ExactStepper


def about_axis(own: float, mass: float, offset_m: float) -> float:
    """A load's moment of inertia about the wire: its own about its centre of mass plus m d²."""
    return own + mass * offset_m * offset_m


@dataclass
class TorsionWire:
    """A wire of torsion constant ``stiffness`` (N m/rad) and viscous ``damping`` (N m s/rad), its load
    stepped every ``dt`` (s)."""

    stiffness: float
    damping: float
    dt: float
    _steppers: dict[float, ExactStepper] = field(default_factory=dict, init=False, repr=False)

    def step(self, theta: float, rate: float, inertia: float) -> tuple[float, float]:
        """(θ, θ') one step later with ``inertia`` (kg m²) turning on the wire."""
        stepper = self._steppers.get(inertia)
        if stepper is None:
            if len(self._steppers) >= 64:
                self._steppers.clear()
            a = [[0.0, 1.0], [-self.stiffness / inertia, -self.damping / inertia]]
            stepper = self._steppers[inertia] = ExactStepper(a, self.dt)
        theta, rate = stepper.step([theta, rate], [0.0, 0.0])
        return theta, rate
