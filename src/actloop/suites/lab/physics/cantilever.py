"""A cantilever strip on a compliant clamp under point loads: small-deflection Euler-Bernoulli bending plus
the clamp's rotation.

The strip leaves its clamp horizontally; the clamp turns in proportion to the moment at the strip's root,
θ0 = M / kθ, so every point x of the strip drops by x θ0 besides its bending. A downward load P at distance a
from the clamp lowers the strip at x by P c(x, a), with the influence

    c(x, a) = x² (3a − x) / (6 EI) + a x / kθ    for x ≤ a,
    c(x, a) = a² (3x − a) / (6 EI) + a x / kθ    for x ≥ a,

and loads add (superposition). Plain arithmetic: the same bits on every machine.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

Load = tuple[float, float]
"""(P, a): a downward force in newtons at a distance in metres from the clamp."""


@dataclass(frozen=True)
class Cantilever:
    """A strip of bending stiffness ``ei`` (N·m²) in a clamp of rotational stiffness ``k_theta``
    (N·m/rad)."""

    ei: float
    k_theta: float

    def influence(self, x: float, a: float) -> float:
        """How far the strip drops at ``x`` per newton pressing down at ``a`` (m/N)."""
        near, far = (x, a) if x <= a else (a, x)
        return near * near * (3.0 * far - near) / (6.0 * self.ei) + a * x / self.k_theta

    def deflection(self, x: float, loads: Iterable[Load]) -> float:
        """How far the strip drops at ``x`` under ``loads`` (m, downward positive)."""
        return sum(p * self.influence(x, a) for p, a in loads)

    def slope(self, x: float, loads: Iterable[Load]) -> float:
        """The strip's downward slope at ``x`` under ``loads`` (the derivative of :meth:`deflection`)."""
        total = 0.0
        for p, a in loads:
            bend = x * (2.0 * a - x) / 2.0 if x <= a else a * a / 2.0
            total += p * (bend / self.ei + a / self.k_theta)
        return total
