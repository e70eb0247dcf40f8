"""The exactly stepped carts against the closed form: momentum kept and restitution met at a collision, a
collision inside a physics step landing where exact arithmetic puts it, the gates timing each flag to its
length over its speed, the buffers, and a whole collision's mass balance (its error a fraction of #6's
0.5 % tolerance)."""

from __future__ import annotations

import random
from fractions import Fraction

from actloop.suites.lab.physics.collision import Carts, Collision, Edge, Stop

DT = 1.0 / 240.0
FLAG = 0.04
GATES = (-0.15, 0.12)
TRAVEL = ((-0.28, 0.165), (-0.22, 0.225))


def carts(mass_b: float = 0.4, restitution: float = 0.75) -> Carts:
    return Carts((0.15, mass_b), restitution, 0.06, TRAVEL, GATES, FLAG)


def run(motion: Carts, state: list[float], seconds: float) -> tuple[list[float], list[object]]:
    events: list[object] = []
    for i in range(round(seconds / DT)):
        state, found = motion.step(state, i * DT, DT)
        events += found
    return state, events


def test_a_collision_keeps_momentum_and_parts_at_e_times_the_closing_speed() -> None:
    draw = random.Random(6)
    for _ in range(1000):
        m_b, e = draw.uniform(0.3, 0.5), draw.uniform(0.6, 0.9)
        v_a, v_b = draw.uniform(0.1, 0.5), draw.uniform(-0.1, 0.05)
        after_a, after_b = carts(m_b, e).collide(v_a, v_b)
        before = 0.15 * v_a + m_b * v_b
        assert abs(0.15 * after_a + m_b * after_b - before) <= 1e-15
        assert abs((after_b - after_a) - e * (v_a - v_b)) <= 1e-15


def test_a_collision_inside_a_step_lands_where_exact_arithmetic_puts_it() -> None:
    motion = carts()
    x_a, x_b, v_a = -0.0611, 0.0, 0.31  # they meet 1.1 mm on: 3.5 ms into the 4.2 ms step
    (new_a, new_b, w_a, w_b), events = motion.step([x_a, x_b, v_a, 0.0], 2.0, DT)
    (collision,) = events
    assert isinstance(collision, Collision)
    f = Fraction
    tau = (f(x_b) - f(x_a) - f(0.06)) / f(v_a)
    m_a, m_b, e = f(0.15), f(0.4), f(0.75)
    exact_a = (m_a * f(v_a) - m_b * e * f(v_a)) / (m_a + m_b)
    exact_b = (m_a * f(v_a) + m_a * e * f(v_a)) / (m_a + m_b)
    assert abs(f(collision.time_s) - 2 - tau) < f(1e-15)
    assert abs(f(w_a) - exact_a) < f(1e-15) and abs(f(w_b) - exact_b) < f(1e-15)
    assert abs(f(new_a) - (f(x_a) + f(v_a) * tau + exact_a * (f(DT) - tau))) < f(1e-15)
    assert abs(f(new_b) - (f(x_b) + exact_b * (f(DT) - tau))) < f(1e-15)


def test_the_gates_time_each_flag_to_its_length_over_its_speed() -> None:
    draw = random.Random(1)
    for _ in range(50):
        speed = draw.uniform(0.015, 0.5)
        direction = draw.choice((1, -1))
        start = -0.24 if direction > 0 else -0.05
        _, events = run(carts(), [start, 0.2, direction * speed, 0.0], 0.2 / speed)
        edges = [e for e in events if isinstance(e, Edge) and e.gate == 0]
        assert [e.entering for e in edges] == [True, False]
        blocked = edges[1].time_s - edges[0].time_s
        assert abs(blocked / (FLAG / speed) - 1) < 1e-10  # 2e-8 of the tolerance


def test_a_buffer_stops_a_cart_dead() -> None:
    (x_a, _, v_a, _), events = run(carts(), [-0.2, 0.1, -0.3, 0.0], 1.0)
    assert (x_a, v_a) == (TRAVEL[0][0], 0.0)
    assert [type(e) for e in events if not isinstance(e, Edge)] == [Stop]


def test_a_cart_driven_against_one_resting_on_a_buffer_comes_to_rest_within_a_step() -> None:
    """cart_b, heavier than e times cart_a, keeps pressing on after each meeting: their speeds shrink
    geometrically, and the carts are taken to rest (the limit) instead of looping."""
    motion = Carts((0.15, 0.4), 0.9, 0.06, TRAVEL, GATES, FLAG)
    (x_a, x_b, v_a, v_b), events = motion.step([TRAVEL[0][0], TRAVEL[0][0] + 0.0601, 0.0, -0.2], 0.0, DT)
    assert x_a == TRAVEL[0][0] and v_a == 0.0 and abs(v_b) < 1e-3
    assert x_b - x_a >= 0.06 - 1e-12 and len(events) <= 16


def test_a_whole_collision_gives_cart_bs_mass_from_the_three_times() -> None:
    """cart_a launched through gate 1 into cart_b at rest, cart_b out through gate 2 and cart_a back through
    gate 1: m_a t_b (1/t_in + 1/t_back) is cart_b's mass to 1e-12 (2e-10 of the tolerance)."""
    draw = random.Random(3)
    for _ in range(20):
        m_b, e, speed = draw.uniform(0.3, 0.5), draw.uniform(0.6, 0.9), draw.uniform(0.25, 0.35)
        _, events = run(carts(m_b, e), [TRAVEL[0][0], 0.0, speed, 0.0], 12.0)
        times: dict[tuple[int, int], list[float]] = {}
        for flag in ((0, 0), (1, 1)):
            edges = [e for e in events if isinstance(e, Edge) and (e.gate, e.cart) == flag]
            assert [e.entering for e in edges] == [True, False] * (len(edges) // 2)
            times[flag] = [b.time_s - a.time_s for a, b in zip(edges[::2], edges[1::2], strict=True)]
        (t_in, t_back), (t_b,) = times[(0, 0)], times[(1, 1)]
        mass = 0.15 * t_b * (1 / t_in + 1 / t_back)
        assert abs(mass / m_b - 1) < 1e-12
