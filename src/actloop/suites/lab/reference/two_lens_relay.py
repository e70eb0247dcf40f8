"""The reference experimenter for the two-lens relay, through the public client only.

It parks the near carriage at the rail's left end and identifies each lens in the far carriage as #11's
reference does (lens_a first, then lens_b, which stays seated): a first focused image from 80 mm, then the
lens's index mark 4.5 f and 2 f from the slide's, then where the fit of the first three puts its principal
plane 1.5 f from the slide (conjugates either side of u = v, which fix δ); f and the principal plane's
offset δ from the index mark fitted to the four conjugate pairs. It then sets the relay: the screen out of
the way, lens_a seated in the near carriage at the compact relay's first position (its principal plane, mark
plus δ), its index read back; lens_b's carriage placed for m2 = M / m1 with the first stage's m1 from that
reading (so a first carriage set a little off is made good by the second), read back and set again until
within 0.2 mm; the screen focused where the relay's image lies, and all four index marks read with both
lenses seated and the image in focus. It leaves the relay set and submits the readings (nothing else: the
bench is scored).

Design: two thin lenses in turn, the first images the slide at m1 = -v1 / u1 (a real, inverted intermediate
image), the second images that at m2 = -v2 / u2, so the screen shows m1 m2 = M upright. With u = f (1 - 1/m)
and v = f (1 - m) for each lens, the relay's length f1 (2 + a + 1/a) + f2 (2 + M/a + a/M) over a = |m1| is
least at a² = (f1 + f2 M) / (f1 + f2 / M): the compact relay, which leaves the rail's far end free. Each
stage's m changes by |m| du / f with its object distance, so a millimetre's error in either lens's place is
about 2 % of M: the lenses are placed from index readings, and each lens's δ (5-12 mm) must be known.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from actloop.suites.lab.reference.lens_focal_length import fit_focal_length
from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.optical_rail import RailOperator

PARK_X = -0.218
"""The near carriage's index while the lenses are identified: at the rail's left end, out of the far
carriage's way."""
FIRST_U = 0.08
"""The first and least object distance (index mark from the slide's, m): the image lies beyond where the
focus search starts (80 mm past the carriage) for every lens drawn, and the far carriage's grip block stays
50 mm from the parked near carriage's (the open fingers closing on one would catch the other)."""
LENS_AT = (4.5, 2.0)
"""After the first pair, the lens's index mark is set these multiples of the first focal length from the
slide's: magnifications of about 0.3 and 1, far enough apart to fix the principal plane's offset (pairs near
u = v alone fix f but hardly δ, and the relay places each lens by its δ)."""
LAST_AT = 1.5
"""The last pair's principal plane (as the first three pairs' fit puts it) this multiple of their f from the
slide: a magnification near 2, the other side of u = v."""
SCREEN_AHEAD = 0.03
"""Before a carriage moves towards the screen, the screen goes this far beyond where the image will be."""
PLACE_TOLERANCE = 0.0002
PLACE_TRIES = 4


@dataclass(frozen=True)
class Relay:
    """Distances along the rail (m): slide to the first lens's principal plane, first to second, second to
    the screen; and the first stage's magnification."""

    u1: float
    gap: float
    v2: float
    m1: float


def relay(f1: float, f2: float, magnification: float) -> Relay:
    """The compact relay of lenses ``f1`` then ``f2`` for an upright image of ``magnification``."""
    a = math.sqrt((f1 + f2 * magnification) / (f1 + f2 / magnification))
    m1, m2 = -a, -magnification / a
    return Relay(f1 * (1 - 1 / m1), f1 * (1 - m1) + f2 * (1 - 1 / m2), f2 * (1 - m2), m1)


def second_stage(f1: float, u1: float, f2: float, magnification: float) -> tuple[float, float]:
    """(gap between the principal planes, v2) that complete a relay of ``magnification`` for a first lens
    ``f1`` at object distance ``u1``."""
    v1 = u1 * f1 / (u1 - f1)
    m2 = magnification / (-v1 / u1)
    return v1 + f2 * (1 - 1 / m2), f2 * (1 - m2)


class RelayBench:
    """The operator with the readings taken so far: index marks read in mm and turned into world x by the
    slide's mark (the scale's offset drops out)."""

    def __init__(self, lab: Client) -> None:
        self.me = RailOperator(lab)
        self.citations: list[dict[str, Any]] = []
        seen, self.object_mm, _ = self.me.read(self.me.object_x)
        self.cite(seen, "object_index", self.object_mm)

    def cite(self, seen: str, instrument: str, value: float) -> None:
        self.citations.append({"observation_id": seen, "instrument": instrument, "value": value})

    def read_carriage(self, name: str) -> float:
        """Read ``name``'s index mark: its distance from the slide's mark (m)."""
        me = self.me
        if name == "screen":
            seen, mm, me.screen_x = me.read(me.screen_x)
        else:
            seen, mm, me.carriage_x[name] = me.read(me.carriage_x[name])
        self.cite(seen, f"{name}_index", mm)
        return (mm - self.object_mm) / 1000.0

    def focus(self, guess: float | None) -> None:
        self.me.grip_screen()
        self.me.find_focus(guess)
        self.me.release_screen()

    def clear_screen(self, x: float) -> None:
        """Drag the screen to ``x`` unless it is already beyond it: a carriage pushed towards the screen
        would push the screen along."""
        if self.me.screen_x < x:
            self.me.grip_screen()
            self.me.sharpness_at(x)
            self.me.release_screen()

    def identify(self, lens: str) -> tuple[float, float]:
        """(f, δ) of ``lens`` seated in the far carriage from four focused conjugate pairs."""
        me, pairs = self.me, list[tuple[float, float]]()
        f_first, u = math.nan, FIRST_U
        for k in range(len(LENS_AT) + 2):
            guess = None
            if k > 0:
                f_fit, delta = fit_focal_length(pairs) if len(pairs) >= 3 else (f_first, 0.0)
                guess = me.object_x + u + delta + (u + delta) * f_fit / (u + delta - f_fit)
                self.clear_screen(guess + SCREEN_AHEAD)
            me.move_carriage("far", me.object_x + u)
            self.focus(guess)
            u_read = self.read_carriage("far")
            v_read = self.read_carriage("screen") - u_read
            pairs.append((u_read, v_read))
            if k == 0:
                f_first = u_read * v_read / (u_read + v_read)
            if k < len(LENS_AT):
                u = max(FIRST_U, LENS_AT[k] * f_first)
            elif k == len(LENS_AT):
                f_fit, delta = fit_focal_length(pairs)
                u = max(FIRST_U, LAST_AT * f_fit - delta)
        return fit_focal_length(pairs)

    def place(self, carriage: str, distance: float) -> float:
        """Set ``carriage``'s index mark ``distance`` (m) from the slide's, read back until within
        PLACE_TOLERANCE; returns the last reading."""
        read = self.read_carriage(carriage)
        for _ in range(PLACE_TRIES):
            if abs(read - distance) <= PLACE_TOLERANCE:
                break
            here = self.me.carriage_x[carriage]
            self.me.move_carriage(carriage, here + distance - read)
            read = self.read_carriage(carriage)
        return read


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Identify both lenses, set the relay for the card's M, focus, read it and submit."""
    bench = RelayBench(lab)
    me, magnification = bench.me, public["M"]
    me.move_carriage("near", PARK_X)
    me.seat("lens_a", "far")
    f1, d1 = bench.identify("lens_a")
    me.unseat("lens_a", "far")
    me.seat("lens_b", "far")
    f2, d2 = bench.identify("lens_b")
    design = relay(f1, f2, magnification)
    far = design.u1 + design.gap - d2
    bench.clear_screen(me.object_x + design.u1 + design.gap + design.v2 + SCREEN_AHEAD)
    me.move_carriage("far", me.object_x + far)
    me.seat("lens_a", "near")
    u1 = bench.place("near", design.u1 - d1) + d1
    gap, v2 = second_stage(f1, u1, f2, magnification)
    u2_mark = bench.place("far", u1 + gap - d2)
    bench.focus(me.object_x + u2_mark + d2 + v2)
    bench.read_carriage("screen")
    bench.read_carriage("near")
    bench.read_carriage("far")
    return lab.submit({}, bench.citations)
