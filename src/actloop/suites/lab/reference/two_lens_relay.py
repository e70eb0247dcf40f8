"""The reference experimenter for the two-lens relay, through the public client only.

It parks the near carriage at the rail's left end and identifies lens_a in the far carriage as #11's
reference does: a first focused image from 80 mm, then the lens's index mark 4.5 f and 2 f from the slide's,
then where the fit of the first three puts its principal plane 1.5 f from the slide (conjugates either side
of u = v, which fix the principal plane's offset δ); f and δ fitted to the four conjugate pairs. It then sets
the first stage: the far carriage beside where the near one will stand, the near carriage at the first
lens's place for m1 = -√M, lens_a carried from the far holder into the near one (a lens set back in its open
stand and gripped again would be carried off-centre), its mark read. lens_b goes into the far carriage and is
identified the same way through lens_a's real image, which is its object (conjugate pairs measured from that
image, either side of u = v, within the length of rail the scale's close-ups reach). lens_b's carriage is
placed for m2 = M / m1 with the first stage's m1 from lens_a's reading, read back and set again until within
0.2 mm; the screen focused where the relay's image lies, and both lenses' marks read with the relay set. It
leaves the relay set and submits the readings taken with the screen focused (nothing else: the bench is
scored). Every focus approaches the sharpest image from below and lets go of the screen gently (the steady
operator's): the screen's scale is the relay's magnification only at the image plane, changing by 0.8 % per
millimetre there.

Design: two thin lenses in turn, the first images the slide at m1 = -v1 / u1 (a real, inverted intermediate
image), the second images that at m2 = -v2 / u2, so the screen shows m1 m2 = M upright. With u = f (1 - 1/m)
and v = f (1 - m) for each lens, |m1| = |m2| = √M keeps each stage near u = v, about 4 f long. Each stage's m
changes by |m| du / f with its object distance, so a millimetre's error in the second lens's place is about
2 % of M: it is placed from index readings to 0.2 mm, and each lens's δ (5-12 mm) must be known. Measuring
lens_b from lens_a's image makes an error in where that image was computed to be part of lens_b's fitted δ,
so the relay is set from the same numbers it was measured with.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from actloop.suites.lab.reference.lens_focal_length import fit_focal_length
from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.optical_rail import (
    FRONT_Y,
    LOOK_SCALE,
    MIN_V,
    MISSED_M,
    WRIST_UP_M,
    SteadyFocusOperator,
)

PARK_X = -0.218
"""The near carriage's index while lens_a is identified: at the rail's left end, out of the far carriage's
way."""
FIRST_U = 0.08
"""lens_a's first and least object distance (index mark from the slide's, m): the far carriage's grip block
stays 50 mm from the parked near carriage's (the open fingers closing on one would catch the other)."""
TRANSFER_GAP = 0.08
"""The far carriage's index this far beyond the near one's while lens_a is carried from one to the other."""
READ_LIMIT = 0.25
"""The farthest world x at which the hand reaches a close-up of the scale: conjugate pairs are taken with the
screen short of it."""
OFFSET_ROOM = 0.015
"""Room kept for a lens's principal plane beyond its mark when a pair is fitted into the rail's length."""
SCREEN_AHEAD = 0.03
"""Before a carriage moves towards the screen, the screen goes this far beyond where the image will be."""
PLACE_TOLERANCE = 0.0002
PLACE_TRIES = 4


@dataclass(frozen=True)
class Pairs:
    """Where a lens's four conjugate pairs are taken, as object distances from the origin (the slide, or the
    image the lens is to image): its index mark ``first`` (m) from it, then ``then`` multiples of the first
    pair's f, then its principal plane ``last`` times the first three's fitted f from it."""

    first: float
    then: tuple[float, ...]
    last: float


ALONE = Pairs(FIRST_U, (4.5, 2.0), 1.5)
"""lens_a, the only lens on the rail: magnifications of 1.3-3 (80 mm from the slide), 0.3, 1 and 2 (or the
first pair's again where the far carriage would come nearer the parked one than FIRST_U)."""


def through_image(f_first_lens: float) -> Pairs:
    """lens_b's pairs from lens_a's image: a first object distance of twice lens_a's f (the two focal
    lengths are drawn from one range), then as lens_a's."""
    return Pairs(2.0 * f_first_lens, (3.0, 2.0), 1.6)


def within(k: float, f: float, room: float) -> float:
    """``k``, or the nearest multiple towards 2 whose pair (an object k f from the principal plane, u + v =
    f k² / (k - 1)) fits in ``room`` (m)."""
    while f * k * k / (k - 1) > room and abs(k - 2) > 0.05:
        k += 0.05 if k < 2 else -0.05
    return k


def stage(f: float, magnification: float) -> tuple[float, float]:
    """(u, v) of a lens of focal length ``f`` imaging at ``magnification`` (negative: a real image)."""
    return f * (1 - 1 / magnification), f * (1 - magnification)


class RelayOperator(SteadyFocusOperator):
    """The steady operator whose close-ups of the scale follow one another along the open space in front of
    the rail: from one close-up's posture the hand goes straight to the next (every reading is the mean of
    three close-ups, which by way of the starting posture would cost twice the time), and whose focus lies
    between the crossings of 85 % of the sharpness's peak."""

    focus_level = 0.85
    """An image formed through both lenses grows on the screen by 1-3 % per millimetre (the exit pupil lies
    near it): seen by the wrist camera its sharpness falls off slower on the near side, over ±7 mm when
    magnified, and the half-maximum crossings put its focus up to 0.9 mm short; 85 % of the peak, 0.1 mm."""

    def _look_at_scale(self, x: float) -> dict[str, Any]:
        here = self.lab.state()["hand_position"]
        front = [x, FRONT_Y, self.scale_view_z - WRIST_UP_M]
        if abs(here[1] - FRONT_Y) > MISSED_M or abs(here[2] - front[2]) > MISSED_M:
            return super()._look_at_scale(x)
        if self.arm.line(front, LOOK_SCALE) > MISSED_M:
            return super()._look_at_scale(x)
        return self._in_and_out(x, front[2])


class RelayBench:
    """The operator with the readings taken so far: index marks read in mm and turned into distances from
    the slide's mark (the scale's offset drops out); those taken with the screen focused since anything
    last moved are cited (readings count only then)."""

    def __init__(self, lab: Client) -> None:
        self.me = RelayOperator(lab)
        self.citations: list[dict[str, Any]] = []
        self.focused = False
        _, self.object_mm, _ = self.me.read_steadily(self.me.object_x)

    def cite(self, seen: str, instrument: str, value: float) -> None:
        self.citations.append({"observation_id": seen, "instrument": instrument, "value": value})

    def read_carriage(self, name: str) -> float:
        """Read ``name``'s index mark (the mean of three close-ups): its distance from the slide's mark
        (m)."""
        me = self.me
        views, mm, found = me.read_steadily(me.screen_x if name == "screen" else me.carriage_x[name])
        if name == "screen":
            me.screen_x = found
        else:
            me.carriage_x[name] = found
        if self.focused:
            for seen, value in views:
                self.cite(seen, f"{name}_index", value)
        return (mm - self.object_mm) / 1000.0

    def focus(self, guess: float | None) -> None:
        """The screen to the sharpest image, searched from ``guess`` (a distance from the slide's mark) or
        from the last carriage out."""
        self.me.focus_steadily(None if guess is None else self.me.object_x + guess)
        self.focused = True

    def clear_screen(self, distance: float) -> None:
        """Drag the screen ``distance`` from the slide's mark unless it is already beyond: a carriage pushed
        towards the screen would push the screen along."""
        x = self.me.object_x + distance
        if self.me.screen_x < x:
            self.focused = False
            self.me.grip_screen()
            self.me.sharpness_at(x)
            self.me.release_screen()

    def move(self, carriage: str, distance: float) -> None:
        """Push ``carriage``'s index towards ``distance`` from the slide's mark, the screen cleared first."""
        self.clear_screen(distance + MIN_V + SCREEN_AHEAD)
        self.focused = False
        self.me.move_carriage(carriage, self.me.object_x + distance)

    def identify(self, plan: Pairs, origin: float = 0.0, least: float = FIRST_U) -> tuple[float, float]:
        """(f, δ) of the lens in the far carriage from four focused conjugate pairs taken as ``plan`` says,
        object distances measured from ``origin`` (the lens's object, a distance from the slide's mark) and
        its index mark never nearer than ``least`` to it."""
        pairs: list[tuple[float, float]] = []
        room = READ_LIMIT - self.me.object_x - origin - OFFSET_ROOM
        f_first, u = math.nan, plan.first
        for k in range(len(plan.then) + 2):
            guess = None
            if k > 0:
                f, delta = fit_focal_length(pairs) if len(pairs) >= 3 else (f_first, 0.0)
                guess = origin + u + delta + (u + delta) * f / (u + delta - f)
                self.clear_screen(guess + SCREEN_AHEAD)
            self.move("far", origin + u)
            self.focus(guess)
            u_read = self.read_carriage("far") - origin
            v_read = self.read_carriage("screen") - origin - u_read
            pairs.append((u_read, v_read))
            if k == 0:
                f_first = u_read * v_read / (u_read + v_read)
            if k < len(plan.then):
                u = within(plan.then[k], f_first, room) * f_first
            elif k == len(plan.then):
                f, delta = fit_focal_length(pairs)
                u = max(least, within(plan.last, f, room) * f - delta)
        return fit_focal_length(pairs)

    def place(self, carriage: str, distance: float) -> float:
        """Set ``carriage``'s index mark ``distance`` (m) from the slide's, read back until within
        PLACE_TOLERANCE, the aim of each push corrected by what the last one missed; returns the last
        reading."""
        aim = distance
        self.move(carriage, aim)
        read = self.read_carriage(carriage)
        for _ in range(PLACE_TRIES):
            if abs(read - distance) <= PLACE_TOLERANCE:
                break
            aim += distance - read
            self.move(carriage, aim)
            read = self.read_carriage(carriage)
        return read


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Identify lens_a alone and set it for m1 = -√M, identify lens_b through its image, set lens_b for the
    rest, focus, read the relay and submit."""
    bench = RelayBench(lab)
    me, magnification = bench.me, public["M"]
    me.move_carriage("near", PARK_X)
    me.seat("lens_a", "far")
    f1, d1 = bench.identify(ALONE)

    near = stage(f1, -math.sqrt(magnification))[0] - d1
    bench.move("far", near + TRANSFER_GAP)
    bench.move("near", near)
    bench.read_carriage("near")  # where the push left it: the lens goes down centred in its holder
    me.transfer("lens_a", "far", "near")
    u1 = bench.read_carriage("near") + d1
    v1 = u1 * f1 / (u1 - f1)
    image = u1 + v1

    me.seat("lens_b", "far")
    f2, d2 = bench.identify(through_image(f1), image, near + TRANSFER_GAP - image)
    u2 = stage(f2, magnification / (-v1 / u1))[0]
    u2 = bench.place("far", image + u2 - d2) + d2 - image
    bench.focus(image + u2 + u2 * f2 / (u2 - f2))
    bench.read_carriage("far")
    bench.read_carriage("near")
    return lab.submit({}, bench.citations)
