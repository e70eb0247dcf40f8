"""The difficulty audit of #25, the single slit's width: the first dark fringe from the central maximum
against the fringes ±1 to ±6 on both sides."""

from __future__ import annotations

import math

from actloop.suites.lab.audits import Design, Plan, read_scale, slope
from actloop.suites.lab.instance import Instance

FRINGES = 6


def plan() -> Plan:
    from actloop.suites.lab.physics.optics import Slit
    from actloop.suites.lab.platforms.laser_rail import SCREEN_SCALE_NOMINAL_ZERO
    from actloop.suites.lab.platforms.optical_rail import INDEX, OBJECT_X, RAIL_Y, SCREEN

    slit_mark = OBJECT_X + 0.10
    """The slit carriage's index 0.10 m from the laser's, the screen where it starts: L about 0.40 m."""

    def bench(instance: Instance) -> tuple[dict[int, float], float, float]:
        """The dark fringes ±1..±FRINGES and the central maximum as the screen's scale shows them (mm, read
        to its resolution), and L read from the index marks (mm, each read to its resolution): the slit's
        plane lies δ beyond its mark."""
        h, wavelength = instance.hidden, instance.public["wavelength"]
        slit = Slit(slit_mark + h["principal_offset"], h["a"])
        length = SCREEN.start_x - slit.position
        zero = SCREEN_SCALE_NOMINAL_ZERO + h["screen_scale_offset"]

        def on_screen(offset: float) -> float:
            return read_scale(1000.0 * (RAIL_Y + offset - zero), INDEX.resolution)

        fringes = {m: on_screen(slit.dark_fringe(m, wavelength, length))
                   for m in range(-FRINGES, FRINGES + 1) if m}  # fmt: skip
        marks = [
            read_scale(1000.0 * (x - h["scale_offset"]), INDEX.resolution)
            for x in (slit_mark, SCREEN.start_x)
        ]
        return fringes, on_screen(0.0), marks[1] - marks[0]

    def first_fringe(instance: Instance) -> float:
        """a = λ L / y with y from the central maximum's reading to the first dark fringe's."""
        fringes, centre, length = bench(instance)
        return instance.public["wavelength"] * length / (fringes[1] - centre)

    def both_sides(instance: Instance) -> float:
        """The centre midway between the fringes ±m, sin θ_m = y / √(y² + L²) from it, a = λ / the slope
        of sin θ_m against m."""
        fringes, _, length = bench(instance)
        centre = sum(fringes.values()) / len(fringes)
        sines = [(m, (y - centre) / math.hypot(y - centre, length)) for m, y in fringes.items()]
        return instance.public["wavelength"] / slope(sines)[0]

    return Plan(
        lambda i: {"a": i.hidden["a"]},
        Design(
            "first dark fringe",
            f"the central maximum's and the first dark fringe's places read on the screen's scale to its "
            f"{INDEX.resolution:g} mm, L from the index marks, a = λ L / y",
            lambda i: {"a": first_fringe(i)},
        ),
        Design(
            "fringes on both sides",
            f"the dark fringes ±1 to ±{FRINGES} read to {INDEX.resolution:g} mm, their centre midway between "
            "the pairs, sin θ = y / √(y² + L²), a = λ / the slope of sin θ against the order",
            lambda i: {"a": both_sides(i)},
        ),
        "the first fringe lies 2.6-6.5 mm from the central maximum: two readings each within a quarter of a "
        "millimetre give it to 4-19 %, while twelve fringes on both sides over 30-80 mm give the slope to "
        "a few tenths of a percent; the slit's plane (up to 1 mm off its mark) leaves 0.25 % in L",
    )
