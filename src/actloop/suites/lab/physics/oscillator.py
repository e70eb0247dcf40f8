"""A load hanging on a linear spring with viscous damping, stepped exactly: the measured degree of freedom of
a spring's oscillation, integrated in pure Python (:class:`~.linear.ExactStepper`) instead of by the
physics engine, whose integration at 240 Hz shifts an oscillator's period by up to a percent.

The spring's own mass joins the motion as a third of it (Rayleigh's lumped first mode, the model the
oscillation experiment's card and analysis use) and stretches the spring by half its weight at rest. With
x the load's drop below the spring's anchor::

    M x'' = −k (x − x_eq) − c x',   M = m + m_s / 3,   x_eq = x_free + (m + m_s / 2) g / k

where x_free is where the unloaded spring's end would hang without its own weight.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from actloop.suites.lab.physics.linear import ExactStepper

G = 9.81


@dataclass
class HangingSpring:
    """A spring of ``stiffness`` (N/m), ``mass`` (kg) and viscous ``damping`` (N s/m) whose unloaded end
    would hang at ``free_length`` (m) below the anchor, stepped every ``dt`` (s)."""

    stiffness: float
    mass: float
    damping: float
    free_length: float
    dt: float
    _steppers: dict[float, ExactStepper] = field(default_factory=dict, init=False, repr=False)

    def moving_mass(self, load_kg: float) -> float:
        """The mass the motion carries with ``load_kg`` hanging on the spring."""
        return load_kg + self.mass / 3.0

    def equilibrium(self, load_kg: float) -> float:
        """Where ``load_kg`` hangs at rest (m below the anchor)."""
        return self.free_length + (load_kg + self.mass / 2.0) * G / self.stiffness

    def step(self, x: float, v: float, load_kg: float) -> tuple[float, float]:
        """(x, v) one step later with ``load_kg`` hanging."""
        stepper = self._steppers.get(load_kg)
        if stepper is None:
            moving = self.moving_mass(load_kg)
            stepper = ExactStepper([[0.0, 1.0], [-self.stiffness / moving, -self.damping / moving]], self.dt)
            self._steppers[load_kg] = stepper
        pull = self.stiffness / self.moving_mass(load_kg) * self.equilibrium(load_kg)
        x1, v1 = stepper.step([x, v], [0.0, pull])
        return x1, v1
