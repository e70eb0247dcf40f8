"""The difficulty audit of #23, the two-lens relay: the relay set from each lens's f at one object distance
against the relay set from each lens's f and principal-plane offset fitted to four conjugate pairs.

A configure objective: a design's estimate is the magnification of the bench it sets (y* of its final
state), scored against the card's M. Both designs place the lenses by index marks read to the scale's half
millimetre and read the first lens's mark back before placing the second; the screen's focus window does
not change the magnification."""

from __future__ import annotations

from collections.abc import Callable

from actloop.suites.lab.audits import Design, Plan, read_scale
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.physics.noise import seeded_uniform

ONE_DISTANCE_U = 0.12
"""The naive shortcut's object distance (index mark from the slide's, m)."""


def plan() -> Plan:
    from actloop.suites.lab.platforms.optical_rail import FOCUS_BLUR_M, INDEX, LENS_APERTURE
    from actloop.suites.lab.reference.lens_focal_length import fit_focal_length
    from actloop.suites.lab.reference.two_lens_relay import FIRST_U, LAST_AT, LENS_AT, relay, second_stage

    resolution = INDEX.resolution / 1000.0

    def draw(instance: Instance, label: str, k: int) -> float:
        """A quantile in [-1, 1] of the instance's noise."""
        return 2.0 * seeded_uniform(instance.noise_key, f"audit/{label}", k) - 1.0

    def lens(instance: Instance, name: str) -> tuple[float, float]:
        return instance.hidden[f"f_{name[-1]}"], instance.hidden[f"principal_offset_{name[-1]}"]

    def pair(instance: Instance, name: str, u: float, k: int) -> tuple[float, float]:
        """A conjugate pair (u, v) read from the lens's index mark ``u`` from the slide's, the screen
        anywhere in the focus window and both marks read to the scale's resolution (the scale's offset
        drops out of the differences)."""
        f, delta = lens(instance, name)
        v = (u + delta) * f / (u + delta - f) + delta
        s = v + FOCUS_BLUR_M * (v - delta) / LENS_APERTURE * draw(instance, f"{name}/focus", k)
        offset = instance.hidden["scale_offset"]
        u_read = read_scale(u - offset, resolution) - read_scale(-offset, resolution)
        return u_read, read_scale(u + s - offset, resolution) - read_scale(u - offset, resolution)

    def conjugates(instance: Instance, name: str) -> tuple[float, float]:
        """(f, δ) fitted to the reference's four pairs."""
        u_first, v_first = pair(instance, name, FIRST_U, 0)
        f_first = u_first * v_first / (u_first + v_first)
        pairs = [(u_first, v_first)]
        for k, factor in enumerate(LENS_AT, start=1):
            pairs.append(pair(instance, name, factor * f_first, k))
        f_fit, delta = fit_focal_length(pairs)
        pairs.append(pair(instance, name, LAST_AT * f_fit - delta, len(pairs)))
        return fit_focal_length(pairs)

    def one_distance(instance: Instance, name: str) -> tuple[float, float]:
        u, v = pair(instance, name, ONE_DISTANCE_U, 0)
        return u * v / (u + v), 0.0

    def relayed(
        identify: Callable[[Instance, str], tuple[float, float]],
    ) -> Callable[[Instance], dict[str, float | str]]:
        def magnification(instance: Instance) -> dict[str, float | str]:
            """The magnification of the relay set from ``identify``'s (f, δ): lens_a's mark placed to the
            scale's resolution and read back, lens_b's placed for the rest from that reading."""
            (f1, d1), (f2, d2) = identify(instance, "lens_a"), identify(instance, "lens_b")
            (t1, e1), (t2, e2) = lens(instance, "lens_a"), lens(instance, "lens_b")
            target = instance.public["M"]
            mark1 = relay(f1, f2, target).u1 - d1 + 0.5 * resolution * draw(instance, "place", 0)
            u1 = read_scale(mark1, resolution) + d1
            gap, _ = second_stage(f1, u1, f2, target)
            mark2 = u1 + gap - d2 + 0.5 * resolution * draw(instance, "place", 1)
            true_u1 = mark1 + e1
            v1 = true_u1 * t1 / (true_u1 - t1)
            u2 = mark2 + e2 - true_u1 - v1
            v2 = u2 * t2 / (u2 - t2)
            return {"m": (v1 / true_u1) * (v2 / u2)}

        return magnification

    return Plan(
        lambda i: {"m": i.public["M"]},
        Design(
            "one object distance each",
            f"each lens's f from the thin-lens formula at one object distance ({ONE_DISTANCE_U:g} m from its "
            "index mark), the compact relay set by the index marks",
            relayed(one_distance),
        ),
        Design(
            "conjugate pairs each",
            "each lens's f and principal-plane offset fitted to four conjugate pairs (either side of u = v), "
            "the compact relay set by the index marks, the second lens placed from the first's reading",
            relayed(conjugates),
        ),
        "each lens's principal plane lies 5-12 mm beyond its index mark: one object distance keeps that "
        "offset in f, and placing a lens by its mark misplaces it by δ as well; each stage's magnification "
        "changes by |m| du / f (about 2 % per mm for f near 50 mm), so the relay misses M by several "
        "per cent; with δ fitted, the half-millimetre scale alone leaves about one relay in ten outside 3 %",
    )
