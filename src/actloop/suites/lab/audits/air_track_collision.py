"""The difficulty audit of #6, air-track collision: cart_a's rebound left out, against the momentum balance of
the three times."""

from __future__ import annotations

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan
from actloop.suites.lab.instance import Instance


def plan() -> Plan:
    from actloop.suites.lab.experiments.air_track_collision import bench
    from actloop.suites.lab.platforms.collision_track import CART_A_KG, FLAG_M, TIMES
    from actloop.suites.lab.reference.air_track_collision import unknown_mass

    def timed(instance: Instance) -> tuple[float, float, float]:
        """The times (ms) the timer shows for cart_a launched into cart_b at rest: cart_a in and back through
        gate 1, cart_b out through gate 2."""
        track = bench(instance)
        v_in = track.launch_speed
        v_back, v_b = track.carts.collide(v_in, 0.0)
        meters = {spec.name: Meter(spec, instance.noise_key) for spec in TIMES}
        return (
            meters["gate1_first"].read(1000.0 * FLAG_M / v_in),
            meters["gate1_second"].read(1000.0 * FLAG_M / -v_back),
            meters["gate2_first"].read(1000.0 * FLAG_M / v_b),
        )

    def naive(instance: Instance) -> Estimate:
        t_in, _, t_b = timed(instance)
        return {"m_unknown": CART_A_KG * t_b / t_in}

    def standard(instance: Instance) -> Estimate:
        return {"m_unknown": unknown_mass(CART_A_KG, *timed(instance))}

    return Plan(
        lambda i: {"m_unknown": i.hidden["m_unknown"]},
        Design("cart_a's rebound left out", "m_b = m_a v_in / v_b (as if cart_a stopped dead)", naive),
        Design(
            "the momentum balance",
            "each velocity the flag's length over its time, cart_a coming back: "
            "m_b = m_a t_b (1 / t_in + 1 / t_back)",
            standard,
        ),
        "the collision is not elastic (restitution 0.6-0.9) and cart_a comes back at 7-46 % of its speed in, "
        "so leaving its rebound out misses by 6-32 %; the balance of the three times is limited only by the "
        "timer's 0.01 ms",
    )
