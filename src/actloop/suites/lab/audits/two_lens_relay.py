"""The difficulty audit of #23, the two-lens relay: the relay set from each lens's f at one object distance
against the relay set as the reference sets it (lens_a's f and principal-plane offset fitted to four conjugate
pairs, lens_b's to four pairs measured from lens_a's image, the second lens placed from the first's reading).

A configure objective: a design's estimate is the magnification of the bench it sets (y* of its final
state), scored against the card's M. The screen's focus window does not change the magnification; where the
screen is focused moves each conjugate pair's v, and the index marks' readings move both u and v."""

from __future__ import annotations

import math

from actloop.suites.lab.audits import Design, Plan, read_scale
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.physics.noise import seeded_uniform

ONE_DISTANCE_U = 0.12
"""The naive shortcut's object distance (index mark from the slide's, m)."""
FOCUS_PRECISION_M = 0.0003
"""The sharpest image found within 0.3 mm of the image plane (the rail operator's search)."""
CLOSE_UP_RESOLUTION_M = 0.0001
"""A close-up of the scale read to a tenth of a millimetre, as the reference reads it."""
PUSH_M = 0.0013
"""A carriage pushed by its grip block stops up to 1.3 mm from where the hand left it."""


def plan() -> Plan:
    from actloop.suites.lab.platforms.optical_rail import FOCUS_BLUR_M, INDEX, LENS_APERTURE, OBJECT_X
    from actloop.suites.lab.reference.lens_focal_length import fit_focal_length
    from actloop.suites.lab.reference.two_lens_relay import (
        ALONE,
        PLACE_TOLERANCE,
        READ_LIMIT,
        Pairs,
        stage,
        through_image,
        within,
    )

    def draw(instance: Instance, label: str, k: int) -> float:
        """A quantile in [-1, 1] of the instance's noise."""
        return 2.0 * seeded_uniform(instance.noise_key, f"audit/{label}", k) - 1.0

    def lens(instance: Instance, name: str) -> tuple[float, float]:
        return instance.hidden[f"f_{name[-1]}"], instance.hidden[f"principal_offset_{name[-1]}"]

    class Bench:
        """One instance's rail as a design sets it: true positions (from the slide's mark, m) and the
        readings a design takes of them."""

        def __init__(self, instance: Instance, resolution: float, focus: float | None) -> None:
            self.instance, self.resolution, self.focus, self.k = instance, resolution, focus, 0
            self.offset = instance.hidden["scale_offset"]

        def read(self, x: float) -> float:
            """The mark at ``x`` read, as a distance from the slide's mark read the same way."""
            return read_scale(x - self.offset, self.resolution) - read_scale(-self.offset, self.resolution)

        def push(self, aim: float) -> float:
            """Where a carriage pushed towards ``aim`` stops."""
            self.k += 1
            return aim + PUSH_M * draw(self.instance, "push", self.k)

        def pair(self, name: str, mark: float, source: float) -> tuple[float, float]:
            """(mark, screen) read with ``name``'s index at ``mark`` imaging an object at ``source``, the
            screen where the design focuses it."""
            f, delta = lens(self.instance, name)
            u = mark + delta - source
            v = u * f / (u - f)
            self.k += 1
            window = self.focus if self.focus is not None else FOCUS_BLUR_M * v / LENS_APERTURE
            screen = mark + delta + v + window * draw(self.instance, f"{name}/focus", self.k)
            return self.read(mark), self.read(screen)

    def conjugates(bench: Bench, name: str, plan: Pairs, origin: float, source: float) -> tuple[float, float]:
        """(f, δ) fitted to four pairs taken as the reference takes them, object distances from ``origin``
        (where the design puts the object) while the object truly is at ``source``."""
        room = READ_LIMIT - OBJECT_X - origin - 0.015
        pairs: list[tuple[float, float]] = []
        u, f_first = plan.first, math.nan
        for k in range(len(plan.then) + 2):
            mark, screen = bench.pair(name, bench.push(origin + u), source)
            pairs.append((mark - origin, screen - mark))
            if k == 0:
                f_first = pairs[0][0] * pairs[0][1] / sum(pairs[0])
            if k < len(plan.then):
                u = within(plan.then[k], f_first, room) * f_first
            elif k == len(plan.then):
                f, delta = fit_focal_length(pairs)
                u = within(plan.last, f, room) * f - delta
        return fit_focal_length(pairs)

    def magnification(instance: Instance, marks: tuple[float, float]) -> float:
        """The bench's magnification with the lenses' index marks at ``marks`` (from the slide's, m)."""
        (f1, e1), (f2, e2) = lens(instance, "lens_a"), lens(instance, "lens_b")
        u1 = marks[0] + e1
        v1 = u1 * f1 / (u1 - f1)
        u2 = marks[1] + e2 - u1 - v1
        return (v1 / u1) * (u2 * f2 / (u2 - f2) / u2)

    def reference(instance: Instance) -> dict[str, float | str]:
        """The relay as the reference sets it."""
        bench = Bench(instance, CLOSE_UP_RESOLUTION_M, FOCUS_PRECISION_M)
        target = instance.public["M"]
        f1, d1 = conjugates(bench, "lens_a", ALONE, 0.0, 0.0)
        near = bench.push(stage(f1, -math.sqrt(target))[0] - d1)
        u1 = bench.read(near) + d1
        v1 = u1 * f1 / (u1 - f1)
        fa, ea = lens(instance, "lens_a")
        image = near + ea + (near + ea) * fa / (near + ea - fa)
        f2, d2 = conjugates(bench, "lens_b", through_image(f1), u1 + v1, image)
        aim = u1 + v1 + stage(f2, target / (-v1 / u1))[0] - d2
        far = aim + PLACE_TOLERANCE * draw(instance, "place", 0)
        return {"m": magnification(instance, (near, far))}

    def one_distance(instance: Instance) -> dict[str, float | str]:
        """Each lens's f from one pair at ONE_DISTANCE_U (no offset), the marks set where the thin-lens
        formula puts the principal planes, read to the scale's half millimetre."""
        bench = Bench(instance, INDEX.resolution / 1000.0, None)
        target = instance.public["M"]
        focals = []
        for name in ("lens_a", "lens_b"):
            mark, screen = bench.pair(name, ONE_DISTANCE_U, 0.0)
            focals.append(mark * (screen - mark) / screen)
        (u1, v1), (u2, _) = (stage(f, -math.sqrt(target)) for f in focals)
        return {"m": magnification(instance, (bench.push(u1), bench.push(u1 + v1 + u2)))}

    return Plan(
        lambda i: {"m": i.public["M"]},
        Design(
            "one object distance each",
            f"each lens's f from the thin-lens formula at one object distance ({ONE_DISTANCE_U:g} m from its "
            "index mark), the relay (m1 = m2 = -√M) set by the index marks",
            one_distance,
        ),
        Design(
            "conjugate pairs each",
            "lens_a's f and principal-plane offset fitted to four conjugate pairs either side of u = v, "
            "lens_b's to four pairs from lens_a's image, lens_b placed from lens_a's reading to 0.2 mm, "
            "marks read to 0.1 mm",
            reference,
        ),
        "each lens's principal plane lies 5-12 mm beyond its index mark: one object distance keeps that "
        "offset in f, and placing a lens by its mark misplaces it by δ as well; each stage's magnification "
        "changes by |m| du / f (about 2 % per mm for f near 50 mm), so the relay misses M by several per "
        "cent; with δ fitted and the second lens placed from the first's reading, the relay is set within "
        "about 1 %",
    )
