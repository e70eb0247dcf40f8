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

from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.optical_rail import COARSE_STEP, MAX_SCREEN_X, SteadyFocusOperator

SCREEN_CLEAR = 0.045
"""The screen's plane at least this far beyond the block carriage's index: its base and the block's holder
clear of each other."""
MID_INDEX = 1.7
"""The index whose shift t (1 − 1/n) centres the second search."""
FADED = 0.3
"""The coarse search stops once the sharpness has fallen below this share of its best after rising."""


class PlateOperator(SteadyFocusOperator):
    """The rail's steady-focus operator with a coarse search that starts where the screen clears the block's
    holder."""

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

    def read_screen(self) -> tuple[list[dict[str, Any]], float]:
        """The screen's index mark read steadily: the citations of the readings and their mean (mm)."""
        views, mean, self.screen_x = self.read_steadily(self.screen_x)
        return [
            {"observation_id": seen, "instrument": "screen_index", "value": value} for seen, value in views
        ], mean

    def focus_and_read(self, guess: float | None) -> tuple[list[dict[str, Any]], float]:
        """Focus the screen (from ``guess``, or a coarse search), let go and read its index mark: the
        readings' citations and their mean (mm)."""
        self.focus_steadily(guess)
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
