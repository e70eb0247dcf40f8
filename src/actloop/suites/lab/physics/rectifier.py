"""A full-wave bridge rectifier with a capacitor filter and a resistive load, by its exact periodic steady
state.

The source is ``V_pk sin ωt`` behind the winding resistance ``R_s``; the two diodes that conduct in each
half cycle drop ``V_f`` together (a constant forward drop), so the filter capacitor C, loaded by R_L, sees
the rectified ``e(t) = V_pk |sin ωt| − V_f`` whenever the bridge conducts. Over one half cycle (every half
cycle is alike) the capacitor voltage v follows, in closed form:

- with the bridge off, ``v = v_a e^{−(t − t_a)/(R_L C)}``;
- with it on, ``C dv/dt = (e − v)/R_s − v/R_L``: a first-order linear equation driven by a sinusoid, solved
  exactly (a constant and a sinusoidal particular part plus the decaying homogeneous one);

the bridge turns on where e(t) rises above v and off where its current ``(e − v)/R_s`` falls to zero. The
switching instants are bracketed on a fine grid and bisected to 1e-13 s, the steady state is the fixed point
of the half-cycle map (secant iteration), and its mean, peak-to-peak ripple, minimum and maximum follow
analytically (the maximum by golden-section search on the conducting stretch, where v is unimodal).

Everything is pure Python over IEEE arithmetic with :func:`sin_cos` and :mod:`.linear`'s ``exp``, so the
result is the same on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from actloop.suites.lab.physics.linear import exp

_SIN_TAYLOR = [float(Fraction((-1) ** j, math.factorial(2 * j + 1))) for j in range(12)]
_COS_TAYLOR = [float(Fraction((-1) ** j, math.factorial(2 * j))) for j in range(12)]
_S0, _S1, _S2, _S3, _S4, _S5, _S6, _S7, _S8, _S9, _S10, _S11 = _SIN_TAYLOR
_C0, _C1, _C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10, _C11 = _COS_TAYLOR
_GRID = 400
"""Grid points per half cycle on which switching instants are bracketed (at most one of each kind)."""
_BISECTIONS = 60
_GOLDEN = 60
_SHOOTING_TOL = 1e-12
_SHOOTING_MAX = 60


def sin_cos(x: float) -> tuple[float, float]:
    """(sin x, cos x) for 0 ≤ x ≤ π, bit-identical on every machine (Taylor series about 0 or π/2)."""
    if not 0.0 <= x <= math.pi + 1e-12:
        raise ValueError(f"sin_cos is defined on [0, π], got {x!r}")
    flip = x > math.pi / 2  # sin(π − x) = sin x, cos(π − x) = −cos x
    y = math.pi - x if flip else x
    far = y > math.pi / 4  # sin y = cos(π/2 − y)
    z = math.pi / 2 - y if far else y
    q = z * z
    # Horner's rule written out (a loop costs twice as much; the operations and their order are the same)
    s = (((((_S11 * q + _S10) * q + _S9) * q + _S8) * q + _S7) * q + _S6) * q + _S5
    s = ((((s * q + _S4) * q + _S3) * q + _S2) * q + _S1) * q + _S0
    c = (((((_C11 * q + _C10) * q + _C9) * q + _C8) * q + _C7) * q + _C6) * q + _C5
    c = ((((c * q + _C4) * q + _C3) * q + _C2) * q + _C1) * q + _C0
    s *= z
    sin, cos = (c, s) if far else (s, c)
    return sin, -cos if flip else cos


@dataclass(frozen=True)
class Rectifier:
    """The supply: peak source voltage (V), winding resistance (Ω), the conducting pair's forward drop (V),
    the mains frequency (Hz)."""

    peak: float
    winding_ohms: float
    forward_drop: float
    frequency: float = 50.0

    @property
    def half_period(self) -> float:
        return 0.5 / self.frequency

    @property
    def omega(self) -> float:
        return 2.0 * math.pi * self.frequency


@dataclass(frozen=True)
class Output:
    """The periodic steady state across the load: its mean, peak-to-peak ripple, minimum and maximum, and its
    value at the start of each half cycle (the mains' zero crossing), in volts."""

    mean: float
    ripple: float
    minimum: float
    maximum: float
    start: float


class _HalfCycle:
    """The closed-form capacitor voltage over one half cycle for one circuit."""

    def __init__(self, supply: Rectifier, farads: float, load_ohms: float) -> None:
        self.s = supply
        self.w = supply.omega
        self.tau_off = load_ohms * farads
        g = 1.0 / supply.winding_ohms + 1.0 / load_ohms
        self.k = g / farads
        self.v_const = -supply.forward_drop / (supply.winding_ohms * g)
        self.amp = supply.peak / (supply.winding_ohms * farads) / (self.k**2 + supply.omega**2)

    def decay(self, v_a: float, dt: float) -> float:
        return v_a * exp(-dt / self.tau_off)

    def _source(self, t: float) -> float:
        """e(t) within a half cycle (0 ≤ t ≤ T/2)."""
        return self.s.peak * sin_cos(self.w * t)[0] - self.s.forward_drop

    def _particular(self, t: float) -> float:
        sin, cos = sin_cos(self.w * t)
        return self.v_const + self.amp * (self.k * sin - self.w * cos)

    def conducting(self, v_on: float, t_on: float) -> Callable[[float], float]:
        """v(t) while the bridge conducts, from v_on at t_on."""
        homogeneous = v_on - self._particular(t_on)
        return lambda t: self._particular(t) + homogeneous * exp(-self.k * (t - t_on))

    def _first(self, f: Callable[[float], float], start: float, rising: bool) -> float | None:
        """The first t in (start, T/2] where f turns positive (``rising``) or stops being positive, bisected
        between grid points; None if it never does."""
        end = self.s.half_period
        step = (end - start) / _GRID
        lo = start
        for i in range(1, _GRID + 1):
            hi = start + i * step if i < _GRID else end
            if (f(hi) > 0.0) == rising:
                for _ in range(_BISECTIONS):
                    mid = 0.5 * (lo + hi)
                    if (f(mid) > 0.0) == rising:
                        hi = mid
                    else:
                        lo = mid
                return hi
            lo = hi
        return None

    def switching(self, v0: float) -> tuple[float, float, float, float] | None:
        """(t_on, v at t_on, t_off, v at t_off) of the half cycle starting at v0; None if the bridge never
        conducts."""
        t_on = self._first(lambda t: self._source(t) - self.decay(v0, t), 0.0, rising=True)
        if t_on is None:
            return None
        v_on = self.decay(v0, t_on)
        v = self.conducting(v_on, t_on)
        t_off = self._first(lambda t: self._source(t) - v(t), t_on, rising=False)
        t_off = self.s.half_period if t_off is None else t_off
        return t_on, v_on, t_off, v(t_off)

    def end(self, v0: float) -> float:
        """v at the end of the half cycle that starts at v0."""
        found = self.switching(v0)
        if found is None:
            return self.decay(v0, self.s.half_period)
        _, _, t_off, v_off = found
        return self.decay(v_off, self.s.half_period - t_off)

    def _integral_conducting(self, v_on: float, t_on: float, t_off: float) -> float:
        w, k = self.w, self.k
        (s1, c1), (s0, c0) = sin_cos(w * t_off), sin_cos(w * t_on)
        # ∫ (k sin wt − w cos wt) dt = −(k/w) cos wt − sin wt
        sinusoid = self.amp * ((-(k / w) * c1 - s1) - (-(k / w) * c0 - s0))
        homogeneous = (v_on - self._particular(t_on)) * (1.0 - exp(-k * (t_off - t_on))) / k
        return self.v_const * (t_off - t_on) + sinusoid + homogeneous

    def output(self, v0: float) -> Output:
        """Mean, ripple, minimum and maximum over the half cycle that starts (and, in steady state, ends)
        at v0."""
        half = self.s.half_period
        found = self.switching(v0)
        if found is None:  # never charged: a pure decay (only on the way down from a switch-off)
            v1 = self.decay(v0, half)
            mean = v0 * self.tau_off * (1.0 - exp(-half / self.tau_off)) / half
            return Output(mean, v0 - v1, v1, v0, v0)
        t_on, v_on, t_off, v_off = found
        area = v0 * self.tau_off * (1.0 - exp(-t_on / self.tau_off))
        area += self._integral_conducting(v_on, t_on, t_off)
        area += v_off * self.tau_off * (1.0 - exp(-(half - t_off) / self.tau_off))
        low, high = self._extremes(v_on, t_on, t_off)
        return Output(area / half, high - low, low, high, v0)

    def _extremes(self, v_on: float, t_on: float, t_off: float) -> tuple[float, float]:
        """The least and greatest v while the bridge conducts: v first falls on (the load still draws more
        than the bridge gives), then rises to its crest and falls again until the bridge turns off; each
        extreme is bracketed on a grid and refined by golden-section search."""
        step = (t_off - t_on) / _GRID
        times = [t_on + i * step for i in range(_GRID)] + [t_off]
        v = self.conducting(v_on, t_on)
        values = [v(t) for t in times]
        low = self._refine(values.index(min(values)), times, v, sign=1.0)
        high = self._refine(values.index(max(values)), times, v, sign=-1.0)
        return low, high

    @staticmethod
    def _refine(i: int, times: list[float], v: Callable[[float], float], sign: float) -> float:
        """The minimum (sign 1) or maximum (sign −1) of v about grid point i, by golden-section search."""
        ratio = (math.sqrt(5.0) - 1.0) / 2.0
        a, b = times[max(i - 1, 0)], times[min(i + 1, len(times) - 1)]
        value = lambda t: sign * v(t)  # noqa: E731
        for _ in range(_GOLDEN):
            x1, x2 = b - ratio * (b - a), a + ratio * (b - a)
            if value(x1) < value(x2):
                b = x2
            else:
                a = x1
        return sign * min(value(0.5 * (a + b)), value(times[i]))


def steady_state(supply: Rectifier, farads: float, load_ohms: float) -> Output:
    """The periodic steady state of ``supply`` filtered by ``farads`` into ``load_ohms``."""
    if not (farads > 0 and load_ohms > 0 and supply.winding_ohms > 0 and supply.peak > supply.forward_drop):
        raise ValueError("the rectifier needs positive C, R_L, R_s and a peak above the forward drop")
    cycle = _HalfCycle(supply, farads, load_ohms)
    x0 = supply.peak - supply.forward_drop  # the capacitor charged to the crest, a little above its cycle
    f0 = cycle.end(x0) - x0
    x1 = 0.9 * x0
    f1 = cycle.end(x1) - x1
    for _ in range(_SHOOTING_MAX):
        if f1 == f0:
            break
        x0, f0, x1 = x1, f1, x1 - f1 * (x1 - x0) / (f1 - f0)
        f1 = cycle.end(x1) - x1
        if abs(f1) <= _SHOOTING_TOL * max(1.0, abs(x1)):
            break
    else:
        raise ArithmeticError("the rectifier's steady state did not converge")
    return cycle.output(x1)
