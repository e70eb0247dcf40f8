"""The reference experimenter for the spectrophotometric calibration, through the public client only.

It sweeps the unknown and then the solvent blank across the visible (holding λ+); their difference is the
unknown's spectrum, which at the peak is bent flat by stray light. On the red flank of the band it picks
the wavelength where the unknown reads :data:`TARGET_A`, on the straight part of the instrument's
response. There it blanks on the solvent, reads the blank, the five standards and the unknown twice each,
fits a straight line of absorbance against concentration over the blank and the standards, turns the
unknown's mean reading into a concentration, puts every cuvette back and submits with every reading the
result rests on.

What it knows besides the card is the bench's published layout; every value comes from images of the LCDs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.spectrophotometer import SpectroOperator, corrected

SWEEP = (470, 720)
"""The sweep (nm): the dye's band with its red flank down to a third of the peak or less."""
TARGET_A = 1.0
"""The unknown's absorbance at the calibration wavelength: 0.4 % below the truth from stray light, while
the standards there still read 0.05 A or more."""
BLANK, STANDARDS, UNKNOWN = 0, 5, 6
READS = 2


def calibration_wavelength(spectrum: Sequence[tuple[float, float]], target: float) -> int:
    """The whole wavelength on the red side of the highest point where ``spectrum`` (wavelength,
    absorbance) falls through ``target``, interpolated between the points either side."""
    points = sorted(spectrum)
    top = max(range(len(points)), key=lambda i: points[i][1])
    for (x0, y0), (x1, y1) in itertools.pairwise(points[top:]):
        if y1 <= target < y0:
            return round(x0 + (x1 - x0) * (y0 - target) / (y0 - y1))
    raise RuntimeError(f"the unknown reads above {target} A up to {points[-1][0]:g} nm")


def line(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares (slope, intercept) of absorbance against concentration."""
    slope, intercept = np.polyfit([c for c, _ in points], [a for _, a in points], 1)
    return float(slope), float(intercept)


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    step = public["standard_step"]
    me = SpectroOperator(lab)
    unknown = me.scan(UNKNOWN, *SWEEP)
    baseline = me.scan(BLANK, *SWEEP)
    at = calibration_wavelength(corrected(unknown, baseline), TARGET_A)
    me.set_wavelength(at)
    me.press_key("blank")
    citations: list[dict[str, Any]] = []
    points: list[tuple[float, float]] = []
    unknown_reads: list[float] = []
    for i in (BLANK, *range(1, STANDARDS + 1), UNKNOWN):
        me.seat(i)
        for _ in range(READS):
            reading = me.read_at(at)
            citations.append(reading.citation("c_unknown", i))
            if i == UNKNOWN:
                unknown_reads.append(reading.absorbance)
            else:
                points.append((i * step, reading.absorbance))
    me.unseat()
    me.clear()
    slope, intercept = line(points)
    concentration = (sum(unknown_reads) / len(unknown_reads) - intercept) / slope
    if not (math.isfinite(concentration) and concentration > 0):
        raise RuntimeError("the readings give no concentration")
    return lab.submit({"c_unknown": concentration}, citations)
