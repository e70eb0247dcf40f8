"""The laser rail's operator for reference experimenters: the optical rail's, and a look at the screen's back
(the diffraction pattern and the printed scale under it) with the screen's scale read from that view."""

from __future__ import annotations

from typing import Any

import numpy as np

from actloop.suites.lab.reference.optical_rail import HOLD_SCREEN, RailOperator

INK = 15.0
"""A tick is a column at least this much darker than the columns 2 px either side."""


class LaserRailOperator(RailOperator):
    """The rail's operator that also looks at the screen's back (the pattern and the printed scale)."""

    def look_at_screen(self) -> dict[str, Any]:
        """Bring the wrist camera to where it is when the hand holds the screen's post, the fingers open
        round the post without closing (the screen stays put), look at the screen's back and back out."""
        self._to_ready()
        self.lab.gripper(0.05)
        hold = self._hold_point(self.screen_x)
        behind = [hold[0] + 0.08, self.rail_y, self.post_grip_z]
        self.arm.line([behind[0], self.rail_y, self.post_grip_z + 0.06], HOLD_SCREEN)
        self.arm.line(behind, HOLD_SCREEN)
        self.arm.line(hold, HOLD_SCREEN)
        seen = self.lab.observe()
        self.arm.line(behind, HOLD_SCREEN)
        self._to_ready()
        return seen


def screen_ticks(image: np.ndarray, below: int) -> tuple[np.ndarray, np.ndarray]:
    """The screen scale's ticks under row ``below`` (the beam's): their columns (sub-pixel) and their
    values (mm, the leftmost tick the zero). Raises when the longer ticks are not every fifth."""
    grey = image.astype(float).mean(axis=2)
    paper = float(np.median(grey[below + 8 : below + 20]))
    dark = (grey < paper - 25).sum(axis=1)
    top = below + 8 + int(np.argmax(dark[below + 8 :] >= 0.6 * dark[below + 8 :].max()))
    bottom = top
    while dark[bottom + 1] >= 0.6 * dark[top]:
        bottom += 1  # the band every tick crosses, above the longer ones' tails and the numbers
    profile = grey[top : bottom + 1].mean(axis=0)
    columns, long = [], []
    for c in range(2, profile.size - 2):
        p = profile[c]
        if p < profile[c - 1] and p <= profile[c + 1] and min(profile[c - 2], profile[c + 2]) - p > INK:
            curve = profile[c - 1] - 2 * p + profile[c + 1]
            columns.append(c + 0.5 * (profile[c - 1] - profile[c + 1]) / curve)
            long.append(paper - grey[bottom + 3 : bottom + 6, c - 1 : c + 2].min() > 0.5 * (paper - p))
    marks = np.array(columns)
    values = np.arange(marks.size, dtype=float)
    if not long or not all(is_long == (k % 5 == 0) for k, is_long in enumerate(long)):
        raise RuntimeError("the screen's scale is not seen whole")
    return marks, values
