"""The difficulty audit of #11, the lens focal length: the thin lens at one distance against the displacement
method."""

from __future__ import annotations

import math
from collections.abc import Sequence

from actloop.suites.lab.audits import Design, Plan, read_scale
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.physics.noise import seeded_uniform

LENS_DISPLACEMENT_D = 0.50
"""The lens's standard design sets the screen 0.50 m from the slide: more than 4f for every lens drawn."""


def plan() -> Plan:
    from actloop.suites.lab.platforms.optical_rail import FOCUS_BLUR_M, INDEX, LENS_APERTURE, OBJECT_X

    def marks(instance: Instance, points: Sequence[float]) -> list[float]:
        """The scale's readings (m) at the world positions ``points``: the scale's offset shifts all alike,
        and each is read to its resolution."""
        offset = instance.hidden["scale_offset"]
        return [read_scale(1000.0 * (x - offset), INDEX.resolution) / 1000.0 for x in points]

    def one_distance(instance: Instance, u: float) -> float:
        """f = uv / (u + v) with the lens's index mark u from the slide and the screen anywhere its blur
        circle is in focus (a quantile of the instance's noise): the lens's principal plane is δ beyond
        its mark, so the true distances are u + δ and v − δ."""
        f, delta = instance.hidden["f"], instance.hidden["principal_offset"]
        object_distance = u + delta
        v = object_distance * f / (object_distance - f)
        depth = FOCUS_BLUR_M * v / LENS_APERTURE  # blur = aperture |1 - s / v| at the screen's s
        s = v + depth * (2.0 * seeded_uniform(instance.noise_key, "audit/focus", 0) - 1.0)
        obj, lens, screen = marks(instance, (OBJECT_X, OBJECT_X + u, OBJECT_X + object_distance + s))
        u_read, v_read = lens - obj, screen - lens
        return u_read * v_read / (u_read + v_read)

    def displacement(instance: Instance, distance: float) -> float:
        """f = (D² − d²) / 4D with the screen D from the slide and the lens at each of its two focus
        positions d apart, each anywhere in its in-focus window (a quantile of the instance's noise): the
        lens moving by x moves the image by x (1 − m²), so the window is the screen's ±(blur v / aperture)
        over |1 − m²|. Both positions are off their marks by the same δ, which drops out of d."""
        f, delta = instance.hidden["f"], instance.hidden["principal_offset"]
        gap = math.sqrt(distance * distance - 4.0 * distance * f)
        lens_marks = []
        for k, u in enumerate(((distance - gap) / 2.0, (distance + gap) / 2.0)):
            v = distance - u
            window = FOCUS_BLUR_M * v / LENS_APERTURE / abs(1.0 - (v / u) ** 2)
            shift = window * (2.0 * seeded_uniform(instance.noise_key, "audit/focus", k) - 1.0)
            lens_marks.append(OBJECT_X + u - delta + shift)
        obj, first, second, screen = marks(instance, (OBJECT_X, *lens_marks, OBJECT_X + distance))
        d_read, gap_read = screen - obj, abs(second - first)
        return (d_read * d_read - gap_read * gap_read) / (4.0 * d_read)

    return Plan(
        lambda i: {"f": i.hidden["f"]},
        Design(
            "one object distance",
            "the thin-lens formula at one object distance (0.20 m) with the screen where the image looks "
            "in focus",
            lambda i: {"f": one_distance(i, 0.20)},
        ),
        Design(
            "displacement method",
            f"the screen fixed {LENS_DISPLACEMENT_D:g} m from the slide, the lens at each of its two focus "
            "positions, f = (D² − d²) / 4D",
            lambda i: {"f": displacement(i, LENS_DISPLACEMENT_D)},
        ),
        "the scale's offset drops out of u and v, but the lens's principal plane lies 5-12 mm beyond its "
        "index mark: one object distance keeps that offset in u and v (a bias of about δ (v − u) / (u + v) "
        "and more, zero only near u = v), which the displacement method's two positions share and cancel",
    )
