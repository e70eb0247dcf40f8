"""The difficulty audit of #12, the grating wavelength: one first order from the screen scale's nominal zero
with the small-angle formula against both first orders with the exact grating equation."""

from __future__ import annotations

import math

from actloop.suites.lab.audits import Design, Plan, read_scale
from actloop.suites.lab.instance import Instance


def plan() -> Plan:
    from actloop.suites.lab.experiments.grating_wavelength import GRATING_X
    from actloop.suites.lab.physics.optics import Grating
    from actloop.suites.lab.platforms.laser_rail import SCREEN_SCALE_NOMINAL_ZERO
    from actloop.suites.lab.platforms.optical_rail import INDEX, RAIL_Y, SCREEN

    def bench(instance: Instance) -> tuple[dict[int, float], float]:
        """Orders −1, 0 and +1 as the screen's scale shows them (mm, read to its resolution) with the grating
        carriage and the screen where they start, and L read from the index marks (mm, each read to its
        resolution): the grating's plane lies δ beyond its mark."""
        h = instance.hidden
        grating = Grating(GRATING_X + h["principal_offset"], 1000.0 * instance.public["lines_per_mm"])
        zero = SCREEN_SCALE_NOMINAL_ZERO + h["screen_scale_offset"]
        orders = {
            m: read_scale(1000.0 * (RAIL_Y + y - zero), INDEX.resolution)
            for m, y, _ in grating.orders(1e-9 * h["lambda"], SCREEN.start_x - grating.position)
            if abs(m) <= 1
        }
        marks = [
            read_scale(1000.0 * (x - h["scale_offset"]), INDEX.resolution)
            for x in (GRATING_X, SCREEN.start_x)
        ]
        return orders, marks[1] - marks[0]

    def nominal(instance: Instance) -> float:
        """λ = d y / L with y from the scale's nominal number at the beam (its middle) to order +1."""
        orders, length = bench(instance)
        middle = 1000.0 * (RAIL_Y - SCREEN_SCALE_NOMINAL_ZERO)
        return 1e6 * (orders[1] - middle) / length / instance.public["lines_per_mm"]

    def both_orders(instance: Instance) -> float:
        """y half the distance between orders −1 and +1, sin θ = y / √(y² + L²), λ = sin θ / N."""
        orders, length = bench(instance)
        y = (orders[1] - orders[-1]) / 2
        return 1e6 * y / math.hypot(y, length) / instance.public["lines_per_mm"]

    return Plan(
        lambda i: {"lambda": i.hidden["lambda"]},
        Design(
            "one order, small angle",
            f"order +1 read on the screen's scale to its {INDEX.resolution:g} mm from the scale's middle "
            "(where the beam would be were its zero in its nominal place), L from the index marks where the "
            "carriages start, λ = y / (L N)",
            lambda i: {"lambda": nominal(i)},
        ),
        Design(
            "both first orders",
            f"orders −1 and +1 read to {INDEX.resolution:g} mm with the carriages where they start, y half "
            "their distance, L from the index marks, sin θ = y / √(y² + L²), λ = sin θ / N",
            lambda i: {"lambda": both_orders(i)},
        ),
        "the small-angle formula is 1.2-2.2 % long at θ = 9-12°, and the screen scale's zero, up to 4 mm off "
        "its middle, is 6-10 % of y; the half-distance between both first orders drops the zero, the exact "
        "angle the approximation, and the grating's plane (up to 2 mm off its mark) leaves at most 0.67 % "
        "in L",
    )
