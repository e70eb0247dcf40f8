"""Two carts on a level, frictionless air track, stepped exactly: between events each coasts at its own
velocity, so every event inside a physics step (the carts colliding, a cart reaching a buffer, a flag's edge
crossing a photogate's beam) falls at a time found by one division, and the step is advanced event by
event. Only +, −, × and ÷ are used, so the motion is the same to the bit on every machine.

A collision exchanges momentum exactly with the coefficient of restitution e (cart 0 behind, on the left)::

    v0' = (m0 v0 + m1 v1 − m1 e (v0 − v1)) / (m0 + m1)
    v1' = (m0 v0 + m1 v1 + m0 e (v0 − v1)) / (m0 + m1)

so m0 v0 + m1 v1 is kept (to rounding) and the carts part at e times the speed they met at. A buffer at each
end of a cart's travel stops a cart that reaches it dead. Each cart carries a flag of length ``flag`` centred
on it; a photogate's beam at x = g is blocked while |x − g| < flag / 2.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MAX_EVENTS = 16
"""Events in one step beyond which the carts are taken to rest: a cart driven against one resting on a
buffer meets it again and again at ever smaller speeds (their limit is rest)."""
Bounds = tuple[float, float]


@dataclass(frozen=True)
class Collision:
    """The carts met at ``time_s``: their velocities before and after (m/s)."""

    time_s: float
    before: tuple[float, float]
    after: tuple[float, float]


@dataclass(frozen=True)
class Stop:
    """Cart ``cart`` ran into a buffer at ``time_s`` at ``speed`` (m/s) and stopped."""

    time_s: float
    cart: int
    speed: float


@dataclass(frozen=True)
class Edge:
    """Cart ``cart``'s flag began (``entering``) or ceased to block gate ``gate``'s beam at ``time_s``,
    moving at ``velocity`` (m/s, + to the right)."""

    time_s: float
    gate: int
    cart: int
    entering: bool
    velocity: float


Event = Collision | Stop | Edge


@dataclass(frozen=True)
class Carts:
    """Two carts' masses (kg), the restitution of their bumpers, the distance between their centres when they
    touch (m), each cart's travel between its buffers (centre x, m), the photogates' beams (x, m) and the
    flags' length (m)."""

    masses: tuple[float, float]
    restitution: float
    contact: float
    travel: tuple[Bounds, Bounds]
    gates: tuple[float, ...]
    flag: float

    def collide(self, v0: float, v1: float) -> tuple[float, float]:
        """The velocities after cart 0 at ``v0`` meets cart 1 at ``v1`` (v0 > v1)."""
        m0, m1 = self.masses
        momentum = m0 * v0 + m1 * v1
        closing = self.restitution * (v0 - v1)
        total = m0 + m1
        return (momentum - m1 * closing) / total, (momentum + m0 * closing) / total

    def step(self, state: Sequence[float], start_s: float, dt: float) -> tuple[list[float], list[Event]]:
        """(x0, x1, v0, v1) ``dt`` later, and the events on the way in time order (their times from
        ``start_s``)."""
        x = [float(state[0]), float(state[1])]
        v = [float(state[2]), float(state[3])]
        events: list[Event] = []
        elapsed = 0.0
        for _ in range(MAX_EVENTS):
            wait, what = self._next(x, v)
            if wait >= dt - elapsed:
                events += self.edges(x, v, start_s + elapsed, dt - elapsed)
                x = [x[i] + v[i] * (dt - elapsed) for i in (0, 1)]
                return [*x, *v], events
            events += self.edges(x, v, start_s + elapsed, wait)
            x = [x[i] + v[i] * wait for i in (0, 1)]
            elapsed += wait
            at = start_s + elapsed
            if what < 0:
                after = self.collide(v[0], v[1])
                events.append(Collision(at, (v[0], v[1]), after))
                v = list(after)
            else:
                low, high = self.travel[what]
                x[what] = low if v[what] < 0 else high
                events.append(Stop(at, what, abs(v[what])))
                v[what] = 0.0
        return [*x, 0.0, 0.0], events

    def _next(self, x: list[float], v: list[float]) -> tuple[float, int]:
        """How long until the next collision (-1) or buffer (the cart's index), and which; inf for none."""
        found = (math.inf, -1)
        if v[0] > v[1]:
            found = (max(0.0, x[1] - x[0] - self.contact) / (v[0] - v[1]), -1)
        for cart in (0, 1):
            low, high = self.travel[cart]
            if v[cart] < 0:
                found = min(found, (max(0.0, x[cart] - low) / -v[cart], cart))
            elif v[cart] > 0:
                found = min(found, (max(0.0, high - x[cart]) / v[cart], cart))
        return found

    def edges(self, x: Sequence[float], v: Sequence[float], start_s: float, span: float) -> list[Edge]:
        """The flags' edges crossing the beams while the carts coast ``span`` seconds from ``x`` at ``v``
        (a crossing at the very start is the previous span's), in time order."""
        found = []
        half = self.flag / 2
        for cart in (0, 1):
            if v[cart] == 0.0:
                continue
            for gate, beam in enumerate(self.gates):
                for boundary, entering_right in ((beam + half, False), (beam - half, True)):
                    wait = (boundary - x[cart]) / v[cart]
                    if 0.0 < wait <= span:
                        entering = entering_right if v[cart] > 0 else not entering_right
                        found.append(Edge(start_s + wait, gate, cart, entering, v[cart]))
        return sorted(found, key=lambda e: e.time_s)
