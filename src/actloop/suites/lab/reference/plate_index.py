"""The reference experimenter for the plate's refractive index, through the public client only.

It carries the lens from its stand into the lens carriage's holder (the carriage left where it starts),
holds the screen by the post behind it, watching the screen's back through the wrist camera, and drags the
screen along the rail from just beyond the empty block carriage until the image has sharpened and faded
again, then finds the sharpest image in fine steps (the operator's focus, midway between the half-maximum
crossings of the gradient energy); it lets go and reads the screen's index mark. It carries the block into
the block carriage's holder, in the converging beam between the lens and the screen, focuses again near the
first focus plus the shift a mid-range index would give, and reads the screen's and the lens's marks. The
shift Δ of the screen's mark (each reading the mean of three close-ups) and the card's thickness t give
n = 1 / (1 − Δ / t). It puts the block and the
lens back in their stands and submits with the readings.

What it knows besides the card is the bench's published layout, as any experimenter at the bench would;
every value comes from the images.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.optical_rail import (
    COARSE_STEP,
    FINE_HALF,
    FINE_STEP,
    HOLD_SCREEN,
    MAX_SCREEN_X,
    RailOperator,
)

SCREEN_CLEAR = 0.045
"""The screen's plane at least this far beyond the block carriage's index: its base and the block's holder
clear of each other."""
MID_INDEX = 1.7
"""The index whose shift t (1 − 1/n) centres the second search."""
FADED = 0.3
"""The coarse search stops once the sharpness has fallen below this share of its best after rising."""
FINE_SCAN = round(2 * FINE_HALF / FINE_STEP) + 1
"""The samples of one of the operator's fine scans."""
FLANK = 0.003
"""The approach to the sharpest image starts this far below it, where the sharpness rises steeply."""
APPROACH_SHORT = (0.0015, 0.0)
"""Each move of the approach stops this short of where the sharpness seen says the sharpest image is: the
first on the steep part of the flank, 1.5 mm below, where the sharpness tells the distance to within
0.1 mm (near the top it changes too little), the second there."""
VIEW_SHIFT = 0.0008
"""A screen reading is the mean of close-ups centred on the mark and this far either side: a reading from
one close-up is off by up to 0.18 mm as the marks fall on the camera's pixels, the mean by a third of
that."""
RELEASE_WIDTH = 0.03
"""The fingers open this wide to let go of the screen's 24 mm post: opened wider at once, they knock the
screen by up to a millimetre (a 3 % error in n) about one time in five; opened this far, by 0.06 mm at
most."""


class PlateOperator(RailOperator):
    """The rail's operator with a coarse search that starts where the screen clears the block's holder, an
    approach to the sharpest image only upwards, and letting go of the screen gently."""

    def __init__(self, lab: Client) -> None:
        super().__init__(lab)
        self.samples: list[tuple[float, float]] = []
        """(screen x, sharpness) of every view of the screen since it was last gripped."""

    def coarse_focus(self) -> float:
        """The screen position of the sharpest of COARSE_STEP samples from the block carriage outwards,
        stopping once the image has sharpened and faded again."""
        samples: list[tuple[float, float]] = []
        x = self.carriage_x["block"] + SCREEN_CLEAR
        while x <= MAX_SCREEN_X:
            samples.append((x, self.sharpness_at(x)))
            best = max(m for _, m in samples)
            if best > 3 * samples[0][1] and samples[-1][1] < FADED * best:
                break
            x += COARSE_STEP
        return max(samples, key=lambda s: s[1])[0]

    def release_screen(self) -> None:
        self.lab.gripper(RELEASE_WIDTH)
        grip = self._hold_point(self.screen_x)
        self.arm.line([grip[0] + 0.08, self.rail_y, self.post_grip_z], HOLD_SCREEN)
        self._to_ready()

    def sharpness_at(self, x: float) -> float:
        """The operator's sharpness with the screen held at ``x``, each sample kept."""
        sharpness = super().sharpness_at(x)
        self.samples.append((x, sharpness))
        return sharpness

    def approach(self, best: float) -> None:
        """Bring the screen to the sharpest image from below, where the last fine scan put it (``best``):
        the fingers on the post slip by 0.1-0.4 mm each time the hand turns back along the rail, so after
        one turn (to FLANK below ``best``) the screen goes on only upwards, each move the distance the
        scan's rising flank gives for the sharpness seen there."""
        scan = self.samples[-FINE_SCAN - 1 : -1]  # the last fine scan (then the operator's turn below best)
        peak = max(range(len(scan)), key=lambda i: scan[i][1])
        flank = sorted((m, x - best) for x, m in scan[: peak + 1])
        values, offsets = [m for m, _ in flank], [o for _, o in flank]
        x = best - FLANK
        for aim in APPROACH_SHORT:
            offset = float(np.interp(self.sharpness_at(x), values, offsets))
            x += max(0.0, -offset - aim)
        self.arm.line(self._hold_point(x), HOLD_SCREEN)
        self.screen_x = x

    def read_screen(self) -> tuple[list[dict[str, Any]], float]:
        """The screen's index mark read from close-ups centred on it and VIEW_SHIFT either side: the
        citations of the readings and their mean (mm)."""
        citations, values = [], []
        for shift in (0.0, -VIEW_SHIFT, VIEW_SHIFT):
            seen, value, found = self.read(self.screen_x + shift)
            if shift == 0.0:
                self.screen_x = found
            citations.append({"observation_id": seen, "instrument": "screen_index", "value": value})
            values.append(value)
        return citations, sum(values) / len(values)

    def focus_and_read(self, guess: float | None) -> tuple[list[dict[str, Any]], float]:
        """Focus the screen (from ``guess``, or a coarse search), let go and read its index mark: the
        readings' citations and their mean (mm)."""
        self.grip_screen()
        self.samples = []
        self.approach(self.find_focus(self.coarse_focus() if guess is None else guess))
        self.release_screen()
        return self.read_screen()


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    me = PlateOperator(lab)
    me.seat("lens", "lens")
    without, without_mm = me.focus_and_read(None)
    me.seat("block", "block")
    with_block, with_mm = me.focus_and_read(me.screen_x + public["thickness"] * (1.0 - 1.0 / MID_INDEX))
    seen_lens, lens_mm, _ = me.read(me.carriage_x["lens"])
    me.unseat("block", "block")
    me.unseat("lens", "lens")
    lens = {"observation_id": seen_lens, "instrument": "lens_index", "value": lens_mm}
    n = 1.0 / (1.0 - (with_mm - without_mm) / (1000.0 * public["thickness"]))
    return lab.submit({"n": n}, [*without, *with_block, lens])
