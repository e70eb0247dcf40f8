"""The bridge rectifier's periodic steady state against the closed form of an ideal bridge and against an
independent fine-step integration; its sine and cosine against the platform's."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.physics.rectifier import Rectifier, sin_cos, steady_state

SUPPLY = Rectifier(12.0 * math.sqrt(2.0), 1.0, 1.4)
R_MIN_TOLERANCE = 0.01
"""The experiment's tolerance on R_min; the ripple, nearly ∝ 1/R, must be right to a tenth of it and far
better."""


def test_sine_and_cosine_match_the_platform_over_a_half_turn_and_refuse_beyond() -> None:
    for i in range(1001):
        x = math.pi * i / 1000
        s, c = sin_cos(x)
        assert abs(s - math.sin(x)) <= 3e-16 and abs(c - math.cos(x)) <= 3e-16, x
    with pytest.raises(ValueError):
        sin_cos(-0.1)
    with pytest.raises(ValueError):
        sin_cos(3.2)


def _bisect(f, lo: float, hi: float) -> float:  # type: ignore[no-untyped-def]
    f_lo = f(lo)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if (f(mid) > 0) == (f_lo > 0):
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def ideal_bridge(supply: Rectifier, farads: float, ohms: float) -> tuple[float, float]:
    """(minimum, ripple) of an ideal bridge (no winding resistance) by the textbook construction: the
    capacitor follows the rectified sine past the crest until the sine falls faster than the load can
    discharge it, ω C V_pk cos ωt = −e(t)/R, then decays as exp(−t/RC) until the next half cycle's sine
    catches it."""
    w, half, tau = supply.omega, supply.half_period, ohms * farads

    def e(t: float) -> float:
        return supply.peak * math.sin(w * t) - supply.forward_drop

    t_off = _bisect(lambda t: w * farads * supply.peak * math.cos(w * t) + e(t) / ohms, half / 2, half)
    v_off = e(t_off)
    s_on = _bisect(lambda s: e(s) - v_off * math.exp(-(s + half - t_off) / tau), 1e-9, half / 2)
    low = e(s_on)
    return low, supply.peak - supply.forward_drop - low


@pytest.mark.parametrize(("farads", "ohms"), [(470e-6, 600.0), (1000e-6, 250.0), (2200e-6, 100.0)])
def test_without_winding_resistance_the_ripple_is_the_ideal_bridges(farads: float, ohms: float) -> None:
    supply = Rectifier(SUPPLY.peak, 1e-6, SUPPLY.forward_drop)
    low, ripple = ideal_bridge(supply, farads, ohms)
    out = steady_state(supply, farads, ohms)
    assert out.ripple == pytest.approx(ripple, rel=1e-4 * R_MIN_TOLERANCE / 0.01)
    assert out.minimum == pytest.approx(low, rel=1e-6)
    assert out.maximum == pytest.approx(supply.peak - supply.forward_drop, rel=1e-6)


def fine_steps(supply: Rectifier, farads: float, ohms: float, v0: float, n: int = 20000) -> dict[str, float]:
    """One half cycle from v0 by classical Runge-Kutta with ``n`` steps on C dv/dt = max(e − v, 0)/R_s − v/R
    (math.sin): the end value, least, greatest and mean (trapezoid)."""
    h = supply.half_period / n

    def f(t: float, v: float) -> float:
        e = supply.peak * math.sin(supply.omega * t) - supply.forward_drop
        return (max(e - v, 0.0) / supply.winding_ohms - v / ohms) / farads

    t, v, values = 0.0, v0, [v0]
    for _ in range(n):
        k1 = f(t, v)
        k2 = f(t + h / 2, v + h * k1 / 2)
        k3 = f(t + h / 2, v + h * k2 / 2)
        k4 = f(t + h, v + h * k3)
        v += h * (k1 + 2 * k2 + 2 * k3 + k4) / 6
        t += h
        values.append(v)
    mean = (sum(values) - (values[0] + values[-1]) / 2) / n
    return {"end": v, "low": min(values), "high": max(values), "mean": mean}


@pytest.mark.parametrize(("farads", "ohms"), [(1000e-6, 250.0), (470e-6, 100.0)])
def test_the_steady_state_is_a_fixed_point_of_a_fine_step_integration(farads: float, ohms: float) -> None:
    out = steady_state(SUPPLY, farads, ohms)
    steps = fine_steps(SUPPLY, farads, ohms, out.start)
    assert steps["end"] == pytest.approx(out.start, abs=2e-6)
    assert steps["low"] == pytest.approx(out.minimum, abs=2e-6)
    assert steps["high"] == pytest.approx(out.maximum, abs=2e-6)
    assert steps["mean"] == pytest.approx(out.mean, abs=2e-6)
    assert abs((steps["high"] - steps["low"]) / out.ripple - 1) < 1e-4


def test_the_ripple_falls_with_the_load_resistance_and_the_capacitance() -> None:
    ripples = [steady_state(SUPPLY, 1000e-6, r).ripple for r in (68.0, 180.0, 470.0, 1200.0)]
    assert ripples == sorted(ripples, reverse=True)
    larger, smaller = steady_state(SUPPLY, 2200e-6, 180.0), steady_state(SUPPLY, 470e-6, 180.0)
    assert larger.ripple < ripples[1] < smaller.ripple
    # Lightly loaded, the bridge conducts only at the crest and the ripple is the load current's charge
    # over the half cycle, I T/2 / C, a little less (it recharges before the half cycle ends).
    ratios = []
    for ohms in (5e3, 1e5, 1e6):
        light = steady_state(SUPPLY, 2200e-6, ohms)
        ratios.append(light.ripple / (light.mean / ohms * SUPPLY.half_period / 2200e-6))
    assert 0.9 < ratios[0] < ratios[1] < ratios[2] < 1.0
    assert ratios[2] == pytest.approx(1.0, abs=0.015)


def test_without_a_capacitor_the_output_is_the_rectified_sine() -> None:
    out = steady_state(SUPPLY, 1e-9, 1000.0)
    top = (SUPPLY.peak - SUPPLY.forward_drop) * 1000.0 / 1001.0
    assert out.maximum == pytest.approx(top, rel=1e-6)
    assert out.minimum == pytest.approx(0.0, abs=1e-9)


def test_it_refuses_a_circuit_without_a_conducting_bridge() -> None:
    with pytest.raises(ValueError):
        steady_state(Rectifier(1.0, 1.0, 1.4), 1e-3, 100.0)
    with pytest.raises(ValueError):
        steady_state(SUPPLY, 0.0, 100.0)
